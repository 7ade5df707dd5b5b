//! The scriptable command line: argument parsing, store discovery and
//! unlocking, and one function per command. Every console action will have a
//! command here; every read command has `--json`.

pub mod args;
mod audit_list;
mod complete;
mod config;
mod diff;
mod diff_args;
mod diff_text;
mod doctor;
mod edit_file;
mod explore;
mod exposure;
mod federation;
mod federation_git;
mod find;
mod freshness;
mod git;
mod git_args;
mod git_branch;
mod git_hooks;
mod git_program;
mod git_textconv;
pub mod hints;
mod history;
pub mod hold;
mod interchange;
mod io_args;
mod manual;
mod migrate;
pub mod output;
mod pending_ask;
mod project_args;
pub(crate) mod projection;
mod proposals;
mod proposed_query;
mod queries;
mod query_args;
mod read;
mod review;
mod review_args;
mod rotate;
mod seal;
mod session;
pub(crate) mod setup;
mod unlock;
pub mod unlock_args;
mod views;
mod write;

use anyhow::Result;
use graphex_engine::model::Status;

pub(crate) use crate::shared::cards;
pub use args::Cli;
pub use args::Command;
pub use complete::complete_if_asked;
pub use session::{Context, Held, Opened};
pub use setup::{
    DEMO_HUMAN_PASSPHRASE, DEMO_PASSPHRASE, ENV_TEST_KDF, GEN_HUMAN_PASSPHRASE, GEN_PASSPHRASE, create_demo,
};

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let ctx = Context {
        store: cli.store,
        json: cli.json,
        unlock: cli.unlock,
        held: None,
    };
    let Some(command) = cli.command else {
        return console(&ctx, None);
    };
    dispatch(&ctx, &command)
}

/// Runs one command in `ctx` (on a store an unlock session lends, when
/// `ctx.held` is set).
pub fn dispatch(ctx: &Context, command: &Command) -> Result<()> {
    match command {
        Command::Init { dir } => setup::init(dir.as_deref()),
        Command::Keys(k) => setup::keys(ctx, k),
        Command::Config(c) => config::config(ctx, c),
        Command::Seal(a) => seal::seal(ctx, a),
        Command::Add(a) => write::add(ctx, a),
        Command::Update(a) => write::update(ctx, a),
        Command::Link(a) => write::link(ctx, a),
        Command::Show { name, version: None } => read::show(ctx, name),
        Command::Show { name, version: Some(v) } => history::version(ctx, name, *v, false),
        Command::List(a) => read::list(ctx, a),
        Command::Status => read::status(ctx),
        Command::Doctor { collect_orphans, grace } => doctor::doctor(ctx, *collect_orphans, *grace),
        Command::Migrate { dry_run } => migrate::migrate(ctx, *dry_run),
        Command::Query(a) => explore::query(ctx, a),
        Command::Queries(c) => queries::queries(ctx, c),
        Command::Path(a) => explore::path(ctx, a),
        Command::Neighbors(a) => explore::neighbors(ctx, a),
        Command::Subgraph(a) => explore::subgraph(ctx, a),
        Command::Project(a) => projection::project(ctx, a),
        Command::Diff(a) => diff::diff(ctx, a),
        Command::Completions { shell } => manual::completions(*shell),
        Command::Man => manual::man(),
        Command::Audit(a) => projection::audit(ctx, a),
        Command::Exposure {
            limit,
            check,
            what_if: None,
            ..
        } => exposure::exposure(ctx, *limit, *check),
        Command::Exposure {
            what_if: Some(w),
            query,
            depth,
            ..
        } => exposure::what_if(ctx, w, query.as_deref(), *depth),
        Command::Search { text, limit } => find::search(ctx, text, *limit),
        Command::Contradictions { check } => find::contradictions(ctx, *check),
        Command::Glossary { term } => find::glossary(ctx, term),
        Command::Conventions { target } => find::conventions(ctx, target),
        Command::Unlink { from, relation, to } => write::unlink(ctx, from, relation, to),
        Command::Supersede {
            old,
            new,
            reason,
            force,
        } => write::supersede(ctx, old, new, reason.as_deref(), *force),
        Command::Deprecate(a) => write::lifecycle(ctx, a, Status::Deprecated),
        Command::Archive(a) => write::lifecycle(ctx, a, Status::Archived),
        Command::Restore(a) => write::lifecycle(ctx, a, Status::Active),
        Command::Mcp(a) => {
            let agent = crate::mcp::AgentConfig {
                agent: a.agent.clone(),
                trust: a.trust,
                session: a
                    .session
                    .clone()
                    .unwrap_or_else(|| format!("mcp-{}", graphex_engine::model::Timestamp::now().0)),
                local: a.local,
                public_only: a.public_only,
                max_message: usize::try_from(a.max_message)?,
            };
            let root = ctx.root()?;
            match hold::client::mcp(&root, &agent) {
                Some(relayed) => relayed,
                None => crate::mcp::serve(root, agent),
            }
        }
        Command::Infer { path, dry_run } => proposals::infer(ctx, path.as_deref(), *dry_run),
        Command::Propose { schema: true, .. } => output::say(graphex_engine::proposal::SCHEMA),
        Command::Propose { file, .. } => proposals::propose(ctx, file.as_deref().unwrap_or(std::path::Path::new("-"))),
        Command::Pending { session, id, .. } if !pending_ask::asks(command, ctx.json) => {
            proposals::pending(ctx, session.as_deref(), id.as_deref())
        }
        Command::Pending { session, .. } => pending_ask::run(ctx, session.as_deref()),
        Command::Accept(a) => proposals::accept(ctx, a),
        Command::Reject(a) => proposals::reject(ctx, a),
        Command::Edit { id, force } => proposals::edit(ctx, id, *force),
        Command::ProposalStatus { id } => proposals::status(ctx, id),
        Command::RequestChanges(a) => review::request_changes(ctx, a),
        Command::Comment(a) => review::comment(ctx, a),
        Command::ReviewList { agent } => review::list(ctx, agent),
        Command::Undo => write::undo(ctx),
        Command::Confirm { name } => write::confirm(ctx, name),
        Command::History {
            name, version: None, ..
        } => history::history(ctx, name),
        Command::History {
            name,
            version: Some(v),
            revert,
        } => history::version(ctx, name, *v, *revert),
        Command::Timeline { limit } => history::timeline(ctx, *limit),
        Command::Demo { dir, reset, no_console } => setup::demo(dir.as_deref(), *reset, *no_console),
        Command::Gen(a) => setup::gen_store(ctx, a),
        Command::Export(a) => interchange::export(ctx, a),
        Command::Import(a) => interchange::import(ctx, a),
        Command::Git(c) => git::git(ctx, c),
        Command::MergeDriver(a) => git::merge_driver(a),
        Command::Freshness { command } => freshness::freshness(ctx, command.as_ref()),
        Command::Federation(c) => federation::federation(ctx, c),
        Command::Unlock(a) => unlock::unlock(ctx, a),
        Command::Lock => unlock::lock(ctx),
        Command::Session => unlock::session(ctx),
        Command::SessionServe(a) => unlock::serve(ctx, a),
    }
}

/// `graphex` alone: the console on the discovered store, through its
/// unlock session when one runs and no key is named, else with the
/// environment's credentials (and a prompt first for `--unlock`). With a
/// revision range (`graphex diff --console`), its Projection pane compares
/// the range's base (revision, name) with the store now.
pub(crate) fn console(ctx: &Context, range: Option<(String, String)>) -> Result<()> {
    crate::app::terminal::require_tty()?;
    let root = ctx.root()?;
    let session = if ctx.unlock.is_none() {
        hold::client::console(&root)
    } else {
        None
    };
    let creds = match session {
        Some(_) => graphex_engine::Credentials::none(),
        None => session::console_credentials(ctx)?,
    };
    crate::app::run(crate::app::Options {
        root,
        creds,
        session,
        range,
    })
}
