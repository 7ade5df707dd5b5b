//! What an unlock session serves, as typed requests: the reads it exists to
//! speed up, and a reviewer's decisions and curation. Nothing else can be
//! expressed: key export and rotation, `config approve`, `seal`,
//! `freshness accept|restore`, `git install`, `unlock` and anything that
//! writes decrypted content to a path have no operation here, so a session
//! cannot be asked for them, whatever a client sends (a request naming
//! another operation does not parse and is refused). Those always run in
//! the calling process, on a key typed or named there.

use std::path::PathBuf;

use graphex_engine::model::Status;
use serde::{Deserialize, Serialize};

use crate::cli::args::{AddArgs, AuditCommand, Command, LifecycleArgs, LinkArgs, ListArgs, ProjectArgs, UpdateArgs};
use crate::cli::query_args::{NeighborsArgs, PathArgs, QueryArgs, SubgraphArgs};
use crate::cli::review_args::{AcceptArgs, RejectArgs, RequestChangesArgs};
use crate::cli::session::Context;

/// One operation a session runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Op {
    // Reads.
    Status,
    Show {
        name: String,
        version: Option<u64>,
    },
    List(ListArgs),
    Query(QueryArgs),
    Path(PathArgs),
    Neighbors(NeighborsArgs),
    Subgraph(SubgraphArgs),
    Search {
        text: String,
        limit: usize,
    },
    Project(ProjectArgs),
    Exposure {
        limit: usize,
        check: bool,
        what_if: Option<String>,
        query: Option<String>,
        depth: u32,
    },
    Contradictions {
        check: bool,
    },
    Glossary {
        term: String,
    },
    Conventions {
        target: String,
    },
    Timeline {
        limit: usize,
    },
    History {
        name: String,
        version: Option<u64>,
    },
    Pending {
        session: Option<String>,
        id: Option<String>,
    },
    ProposalStatus {
        id: String,
    },
    AuditList {
        agent: Option<String>,
        since: Option<String>,
        limit: usize,
    },
    // Curation.
    Add(AddArgs),
    Update(UpdateArgs),
    Link(LinkArgs),
    Unlink {
        from: String,
        relation: String,
        to: String,
    },
    Supersede {
        old: String,
        new: String,
        reason: Option<String>,
        force: bool,
    },
    Confirm {
        name: String,
    },
    Deprecate(LifecycleArgs),
    Archive(LifecycleArgs),
    Restore(LifecycleArgs),
    Revert {
        name: String,
        version: u64,
    },
    Undo,
    /// A proposal read from a file (a whole path: the session's directory
    /// is not the client's).
    Propose {
        file: PathBuf,
    },
    // Decisions.
    Accept(AcceptArgs),
    Reject(RejectArgs),
    RequestChanges(RequestChangesArgs),
}

impl Op {
    /// The operation a command line asks for, when a session serves it.
    pub fn of(command: &Command) -> Option<Op> {
        Some(match command {
            Command::Status => Op::Status,
            Command::Show { name, version } => Op::Show {
                name: name.clone(),
                version: *version,
            },
            Command::List(a) => Op::List(a.clone()),
            Command::Query(a) => Op::Query(a.clone()),
            Command::Path(a) => Op::Path(a.clone()),
            Command::Neighbors(a) => Op::Neighbors(a.clone()),
            Command::Subgraph(a) => Op::Subgraph(a.clone()),
            Command::Search { text, limit } => Op::Search {
                text: text.clone(),
                limit: *limit,
            },
            Command::Project(a) => Op::Project(a.clone()),
            Command::Exposure {
                limit,
                check,
                what_if,
                query,
                depth,
            } => Op::Exposure {
                limit: *limit,
                check: *check,
                what_if: what_if.clone(),
                query: query.clone(),
                depth: *depth,
            },
            Command::Contradictions { check } => Op::Contradictions { check: *check },
            Command::Glossary { term } => Op::Glossary { term: term.clone() },
            Command::Conventions { target } => Op::Conventions { target: target.clone() },
            Command::Timeline { limit } => Op::Timeline { limit: *limit },
            Command::History {
                name,
                version,
                revert: false,
            } => Op::History {
                name: name.clone(),
                version: *version,
            },
            Command::History {
                name,
                version: Some(version),
                revert: true,
            } => Op::Revert {
                name: name.clone(),
                version: *version,
            },
            Command::Pending { session, id, .. } => Op::Pending {
                session: session.clone(),
                id: id.clone(),
            },
            Command::ProposalStatus { id } => Op::ProposalStatus { id: id.clone() },
            Command::Audit(AuditCommand::List { agent, since, limit }) => Op::AuditList {
                agent: agent.clone(),
                since: since.clone(),
                limit: *limit,
            },
            Command::Add(a) => Op::Add(a.clone()),
            Command::Update(a) => Op::Update(a.clone()),
            Command::Link(a) => Op::Link(a.clone()),
            Command::Unlink { from, relation, to } => Op::Unlink {
                from: from.clone(),
                relation: relation.clone(),
                to: to.clone(),
            },
            Command::Supersede {
                old,
                new,
                reason,
                force,
            } => Op::Supersede {
                old: old.clone(),
                new: new.clone(),
                reason: reason.clone(),
                force: *force,
            },
            Command::Confirm { name } => Op::Confirm { name: name.clone() },
            Command::Deprecate(a) => Op::Deprecate(a.clone()),
            Command::Archive(a) => Op::Archive(a.clone()),
            Command::Restore(a) => Op::Restore(a.clone()),
            Command::Undo => Op::Undo,
            // Stdin and `--schema` stay with the caller.
            Command::Propose {
                file: Some(f),
                schema: false,
            } if f.as_os_str() != "-" => Op::Propose {
                file: std::path::absolute(f).ok()?,
            },
            Command::Accept(a) => Op::Accept(a.clone()),
            Command::Reject(a) => Op::Reject(a.clone()),
            Command::RequestChanges(a) => Op::RequestChanges(a.clone()),
            _ => return None,
        })
    }

    /// Whether it may change the store (then a lost answer is not retried).
    pub fn writes(&self) -> bool {
        matches!(
            self,
            Op::Add(_)
                | Op::Update(_)
                | Op::Link(_)
                | Op::Unlink { .. }
                | Op::Supersede { .. }
                | Op::Confirm { .. }
                | Op::Deprecate(_)
                | Op::Archive(_)
                | Op::Restore(_)
                | Op::Revert { .. }
                | Op::Undo
                | Op::Propose { .. }
                | Op::Accept(_)
                | Op::Reject(_)
                | Op::RequestChanges(_)
        )
    }

    /// Whether it is a reviewer's decision (audited with the terminal it
    /// came from).
    pub fn decides(&self) -> bool {
        matches!(self, Op::Accept(_) | Op::Reject(_) | Op::RequestChanges(_) | Op::Undo)
    }

    /// Runs it with the handler the CLI has for it (the same code a
    /// command line reaches), on the session's store in `ctx`: an operation
    /// names its handler, never a command line to dispatch.
    pub fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        use crate::cli::{explore, exposure, find, history, projection, proposals, read, review, write};
        match self {
            Op::Status => read::status(ctx),
            Op::Show { name, version: None } => read::show(ctx, name),
            Op::Show { name, version: Some(v) } => history::version(ctx, name, *v, false),
            Op::List(a) => read::list(ctx, a),
            Op::Query(a) => explore::query(ctx, a),
            Op::Path(a) => explore::path(ctx, a),
            Op::Neighbors(a) => explore::neighbors(ctx, a),
            Op::Subgraph(a) => explore::subgraph(ctx, a),
            Op::Search { text, limit } => find::search(ctx, text, *limit),
            Op::Project(a) => projection::project(ctx, a),
            Op::Exposure {
                limit,
                check,
                what_if: None,
                ..
            } => exposure::exposure(ctx, *limit, *check),
            Op::Exposure {
                what_if: Some(w),
                query,
                depth,
                ..
            } => exposure::what_if(ctx, w, query.as_deref(), *depth),
            Op::Contradictions { check } => find::contradictions(ctx, *check),
            Op::Glossary { term } => find::glossary(ctx, term),
            Op::Conventions { target } => find::conventions(ctx, target),
            Op::Timeline { limit } => history::timeline(ctx, *limit),
            Op::History { name, version: None } => history::history(ctx, name),
            Op::History { name, version: Some(v) } => history::version(ctx, name, *v, false),
            Op::Revert { name, version } => history::version(ctx, name, *version, true),
            Op::Pending { session, id } => proposals::pending(ctx, session.as_deref(), id.as_deref()),
            Op::ProposalStatus { id } => proposals::status(ctx, id),
            Op::AuditList { agent, since, limit } => projection::audit(
                ctx,
                &AuditCommand::List {
                    agent: agent.clone(),
                    since: since.clone(),
                    limit: *limit,
                },
            ),
            Op::Add(a) => write::add(ctx, a),
            Op::Update(a) => write::update(ctx, a),
            Op::Link(a) => write::link(ctx, a),
            Op::Unlink { from, relation, to } => write::unlink(ctx, from, relation, to),
            Op::Supersede {
                old,
                new,
                reason,
                force,
            } => write::supersede(ctx, old, new, reason.as_deref(), *force),
            Op::Confirm { name } => write::confirm(ctx, name),
            Op::Deprecate(a) => write::lifecycle(ctx, a, Status::Deprecated),
            Op::Archive(a) => write::lifecycle(ctx, a, Status::Archived),
            Op::Restore(a) => write::lifecycle(ctx, a, Status::Active),
            Op::Undo => write::undo(ctx),
            Op::Propose { file } => proposals::propose(ctx, file),
            Op::Accept(a) => proposals::accept(ctx, a),
            Op::Reject(a) => proposals::reject(ctx, a),
            Op::RequestChanges(a) => review::request_changes(ctx, a),
        }
    }

    /// How the session's decision log names it: `accept ID`, `undo`, …
    pub fn decision(&self) -> String {
        match self {
            Op::Accept(a) => format!("accept {}", a.id.as_deref().or(a.session.as_deref()).unwrap_or("?")),
            Op::Reject(a) => format!("reject {}", a.id.as_deref().or(a.session.as_deref()).unwrap_or("?")),
            Op::RequestChanges(a) => format!("request-changes {}", a.id),
            Op::Undo => "undo".to_owned(),
            _ => "other".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::cli::Cli;

    fn op(line: &[&str]) -> Option<Op> {
        let cli = Cli::try_parse_from(std::iter::once("graphex").chain(line.iter().copied())).expect("parses");
        Op::of(cli.command.as_ref().expect("a command"))
    }

    #[test]
    fn key_export_rotation_approval_repair_and_writes_to_a_path_have_no_operation() {
        for line in [
            &["keys", "export-master", "/tmp/m"][..],
            &["keys", "export-agent", "/tmp/a"],
            &["keys", "rotate"],
            &["config", "approve", "--yes", "abcd"],
            &["seal"],
            &["freshness", "accept", "--yes"],
            &["freshness", "restore"],
            &["git", "install"],
            &["unlock"],
            &["export", "--format", "json", "-o", "/tmp/out.json"],
            &["comment", "abcd", "--comment", "x", "--agent", "a"],
            &["propose", "-"],
            &["edit", "abcd"],
            &["audit", "verify"],
        ] {
            assert!(op(line).is_none(), "{line:?} must not be served");
        }
    }

    #[test]
    fn served_commands_round_trip_through_the_wire_unchanged() {
        for line in [
            &["status"][..],
            &["query", "a -> uses -> *", "--depth", "2"],
            &["project", "--node", "a", "--tier", "public"],
            &["history", "a", "--version", "2", "--revert"],
            &["accept", "abcd", "--only", "1,3"],
            &["audit", "list", "--limit", "5"],
            &["confirm", "retry-policy"],
            &["pending", "abcd", "--session", "s"],
        ] {
            let op = op(line).unwrap_or_else(|| panic!("{line:?} is served"));
            let wire = serde_json::to_string(&op).expect("serialise");
            let back: Op = serde_json::from_str(&wire).expect("parse");
            assert_eq!(format!("{back:?}"), format!("{op:?}"));
        }
        let refused = serde_json::from_str::<Op>(r#"{"KeysExportMaster":{"file":"/tmp/m"}}"#);
        assert!(
            refused.is_err(),
            "an operation the session does not serve does not parse"
        );
    }

    /// The session runs each operation's own handler (`Op::run`), never
    /// the CLI's dispatch of a command line.
    #[test]
    fn the_session_never_dispatches_a_command_line() {
        let call = ["dispatch", "("].concat();
        for (file, src) in [
            ("server.rs", include_str!("server.rs")),
            ("server/decisions.rs", include_str!("server/decisions.rs")),
            ("server/guests.rs", include_str!("server/guests.rs")),
            ("ops.rs", include_str!("ops.rs")),
        ] {
            assert!(!src.contains(&call), "{file} dispatches a command line");
        }
    }
}
