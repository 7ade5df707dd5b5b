//! Proposal commands: `propose` (agents), `pending`, `accept`, `reject`,
//! `edit`, `undo` (reviewers, master level) and `proposal-status` (agents).

use std::io::Read;
use std::path::Path;

use anyhow::{Context as _, Result, bail};
use graphex_engine::proposal::AcceptOptions;
use graphex_engine::proposal::{
    self, Card, Group, MAX_SUBMISSION_BYTES, ProposalId, ProposalStatus, Quarantined, Source, Submission,
};
use graphex_engine::{Error, Store};
use serde::Serialize;

use super::args::{AcceptArgs, RejectArgs};
use super::cards;
use super::output::{emit, note};
use super::session::{Context, Need, interactive};

/// Reads a submission from a file or stdin (`-`), capped in size.
fn read_submission(file: &Path) -> Result<Submission> {
    let mut bytes = Vec::new();
    let cap = MAX_SUBMISSION_BYTES as u64 + 1;
    if file == Path::new("-") {
        std::io::stdin()
            .take(cap)
            .read_to_end(&mut bytes)
            .context("cannot read stdin")?;
    } else {
        std::fs::File::open(file)
            .with_context(|| format!("cannot open {}", file.display()))?
            .take(cap)
            .read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {}", file.display()))?;
    }
    Ok(Submission::from_json(&bytes)?)
}

#[derive(Serialize)]
struct Proposed {
    id: String,
    changes: usize,
}

pub fn propose(ctx: &Context, file: &Path) -> Result<()> {
    let sub = read_submission(file)?;
    let mut store = ctx.open(Need::Read)?;
    let settings = super::output::config_in_force(&store)?.projection_settings()?;
    let changes = sub.changes.len();
    warn_unauthenticated_recipient(&store);
    let id = proposal::submit(&mut store, &settings.policy, sub.clone(), Source::Cli)?;
    remember(&store, &id, &sub);
    emit(
        ctx.json,
        &Proposed {
            id: id.to_string(),
            changes,
        },
        |p| format!("{}\n", p.id),
    )?;
    if !ctx.json {
        note(&format!(
            "proposed {changes} change(s); a reviewer sees it in `graphex pending`; follow it with `graphex proposal-status {}`",
            id.short()
        ));
    }
    Ok(())
}

/// Adds a submitted proposal to its agent's list (for `review-list` and
/// MCP `review_list`); the proposal is stored either way, so a failure
/// here is only said.
pub(super) fn remember(store: &Store, id: &ProposalId, sub: &Submission) {
    let Some(ledger) = proposal::Ledger::for_store(store.layout().root(), &sub.agent) else {
        return;
    };
    if let Err(e) = ledger.record_submitted(id, sub) {
        note(&format!(
            "warning: {id} is stored, but not in the agent's list of its proposals: {e}"
        ));
    }
}

/// A session with neither the master nor an agent identity (whose file pins
/// the master key) seals to `master.pub` as found: say it cannot be checked.
pub(super) fn warn_unauthenticated_recipient(store: &graphex_engine::Store) {
    if !store.keys().proposal_recipient_authenticated() {
        note(
            "warning: sealing to keys/master.pub, which this session cannot authenticate (anyone who can write \
             the repository could have replaced it); set GRAPHEX_AGENT_IDENTITY to the file `graphex keys \
             export-agent` wrote, which pins the master key",
        );
    }
}

pub fn infer(ctx: &Context, path: Option<&Path>, dry_run: bool) -> Result<()> {
    let mut store = ctx.open(Need::Read)?;
    let root = match path {
        Some(p) => p.to_path_buf(),
        None => store.layout().root().to_path_buf(),
    };
    let exists = |name: &str| store.catalog().by_name(name).is_some() || store.name_is_hidden(name);
    let found = graphex_engine::infer::infer(&root, &exists)?;
    for s in &found.skipped {
        note(&format!("skipped {s}"));
    }
    // Edges already in the graph are not proposed again.
    let catalog = store.catalog();
    let changes: Vec<proposal::Change> = found
        .changes
        .into_iter()
        .filter(|c| match c {
            proposal::Change::AddEdge { from, relation, to, .. } => {
                match (catalog.by_name(from.as_str()), catalog.by_name(to.as_str())) {
                    (Some(f), Some(t)) => !catalog.outgoing(&f.id).any(|e| e.relation == *relation && e.to == t.id),
                    _ => true,
                }
            }
            _ => true,
        })
        .collect();
    if changes.is_empty() {
        note(&format!(
            "nothing new to propose from {} ({} files read)",
            root.display(),
            found.sources.len()
        ));
        return Ok(());
    }
    let sub = Submission {
        revises: None,
        agent: proposal::INFERRED.to_owned(),
        trust: 100.0,
        session: format!(
            "infer {}",
            std::fs::canonicalize(&root).unwrap_or(root.clone()).display()
        )
        .chars()
        .take(128)
        .collect(),
        rationale: format!(
            "Inferred from {} file(s) under {}: crates, modules and their dependencies, and concepts from the docs.",
            found.sources.len(),
            root.display()
        ),
        changes,
    };
    sub.validate()?;
    if dry_run {
        return emit(true, &sub, |_| String::new());
    }
    let settings = super::output::config_in_force(&store)?.projection_settings()?;
    let n = sub.changes.len();
    warn_unauthenticated_recipient(&store);
    let id = proposal::submit(&mut store, &settings.policy, sub, Source::Infer)?;
    emit(
        ctx.json,
        &Proposed {
            id: id.to_string(),
            changes: n,
        },
        |p| format!("{}\n", p.id),
    )?;
    if !ctx.json {
        note(&format!(
            "proposed {n} inferred change(s); review them with `graphex pending`"
        ));
    }
    Ok(())
}

#[derive(Serialize)]
struct Queue {
    proposals: Vec<Card>,
    groups: Vec<Group>,
    /// Each agent session with its batch digest (for `accept --session`).
    sessions: Vec<SessionBatch>,
    quarantined: Vec<Quarantined>,
}

#[derive(Serialize)]
struct SessionBatch {
    session: String,
    agents: Vec<String>,
    proposals: usize,
    batch: String,
}

fn sessions(cards: &[Card]) -> Vec<SessionBatch> {
    let mut by: std::collections::BTreeMap<&str, Vec<&Card>> = std::collections::BTreeMap::new();
    for c in cards {
        by.entry(c.proposal.submission.session.as_str()).or_default().push(c);
    }
    by.into_iter()
        .map(|(session, cs)| {
            let mut agents: Vec<String> = cs.iter().map(|c| c.proposal.submission.agent.clone()).collect();
            agents.sort();
            agents.dedup();
            SessionBatch {
                session: session.to_owned(),
                agents,
                proposals: cs.len(),
                batch: proposal::batch_digest(cs.iter().map(|c| &c.id)),
            }
        })
        .collect()
}

fn queue(store: &Store, session: Option<&str>) -> Result<Queue> {
    let scan = store.pending()?;
    let pending = scan
        .pending
        .into_iter()
        .filter(|p| session.is_none_or(|s| p.proposal.submission.session == s))
        .collect();
    for u in &scan.unreadable {
        note(&format!(
            "left in place {}: {}",
            cards::clean(&u.file, " "),
            cards::clean(&u.reason, " ")
        ));
    }
    let (proposals, groups) = proposal::cards(store, pending);
    Ok(Queue {
        sessions: sessions(&proposals),
        proposals,
        groups,
        quarantined: scan.quarantined,
    })
}

/// The queue (or, with `id`, the card of that one pending proposal).
pub fn pending(ctx: &Context, session: Option<&str>, id: Option<&str>) -> Result<()> {
    let store = ctx.open(Need::Write)?;
    let mut q = queue(&store, session)?;
    if let Some(prefix) = id {
        let id = store.resolve_proposal(prefix)?;
        q.proposals.retain(|c| c.id == id);
        if q.proposals.is_empty() {
            bail!(
                "proposal {} is not pending (`graphex proposal-status {}` says where it stands)",
                id.short(),
                id.short()
            );
        }
        q.sessions.clear();
    }
    for held in &q.quarantined {
        note(&format!(
            "quarantined {}: {}",
            cards::clean(&held.file, " "),
            cards::clean(&held.reason, " ")
        ));
    }
    emit(ctx.json, &q, |q| {
        if q.proposals.is_empty() {
            return "no pending proposals\n".to_owned();
        }
        let mut out = String::new();
        for c in &q.proposals {
            out.push_str(&cards::card(&store, c, &q.groups));
            out.push('\n');
        }
        for b in &q.sessions {
            out.push_str(&format!(
                "session {} ({}): {} proposal(s), batch {}\n",
                if b.session.is_empty() {
                    "-".to_owned()
                } else {
                    cards::clean(&b.session, " ")
                },
                b.agents.join(", "),
                b.proposals,
                b.batch
            ));
        }
        if id.is_none() {
            out.push_str(&format!(
                "{} pending. Accept: graphex accept ID [--only N,..] (or --session S --batch B); \
                 reject: graphex reject ID --reason R; edit: graphex edit ID\n",
                q.proposals.len()
            ));
        }
        out
    })
}

#[derive(Serialize)]
struct Decided {
    id: String,
    outcome: &'static str,
    #[serde(flatten)]
    accepted: Option<graphex_engine::proposal::Accepted>,
}

/// Accepts one proposal, printing the three versions when its base is stale.
fn accept_one(store: &mut Store, id: &ProposalId, opts: &AcceptOptions) -> Result<graphex_engine::proposal::Accepted> {
    let (_, p) = store.proposal(id.as_str())?;
    match store.retrying(|s| s.accept(id, &p, opts)) {
        Err(e @ Error::StaleBase { .. }) => {
            if let Ok(three) = proposal::stale_versions(store, &p) {
                note(&cards::stale(&three));
            }
            Err(e.into())
        }
        other => Ok(other?),
    }
}

/// The pending ids of `session`, if they are still the batch the reviewer saw.
fn session_ids(store: &Store, session: &str, batch: Option<&str>) -> Result<Vec<ProposalId>> {
    let ids: Vec<ProposalId> = store
        .session_proposals(None, session)?
        .into_iter()
        .map(|p| p.id)
        .collect();
    if ids.is_empty() {
        bail!("no pending proposals in session {session:?}");
    }
    let now = proposal::batch_digest(&ids);
    if batch != Some(now.as_str()) {
        bail!(
            "session {session:?} is not the batch you reviewed (it now holds {} proposal(s), batch {now}); \
             run `graphex pending --session {session}` again",
            ids.len()
        );
    }
    Ok(ids)
}

pub fn accept(ctx: &Context, a: &AcceptArgs) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let ids = match (&a.id, &a.session) {
        (Some(id), _) => vec![store.resolve_proposal_or_node(id)?],
        (None, Some(session)) => session_ids(&store, session, a.batch.as_deref())?,
        (None, None) => bail!("give a proposal id or --session"),
    };
    let opts = AcceptOptions {
        only: a.only.clone(),
        force: a.force,
    };
    let mut results = Vec::new();
    for id in ids {
        let done = accept_one(&mut store, &id, &opts)?;
        if !ctx.json {
            note(&format!(
                "accepted {}: {}; {} node(s) added, {} changed, {} edge(s) added{}{}",
                id.short(),
                numbers(&done.applied),
                done.nodes_added,
                done.nodes_changed,
                done.edges_added,
                super::cards::removed_note(done.edges_removed),
                if done.edges_existing > 0 {
                    format!(", {} already present", done.edges_existing)
                } else {
                    String::new()
                }
            ));
        }
        results.push(Decided {
            id: id.to_string(),
            outcome: "accepted",
            accepted: Some(done),
        });
    }
    if ctx.json {
        emit(true, &results, |_| String::new())?;
    }
    Ok(())
}

/// `change 2`, `changes 1-101`, or `changes 1, 3`.
fn numbers(list: &[usize]) -> String {
    let contiguous = list.windows(2).all(|w| w[1] == w[0] + 1);
    match list {
        [one] => format!("change {one}"),
        [first, .., last] if contiguous => format!("changes {first}-{last}"),
        _ => format!(
            "changes {}",
            list.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

pub fn reject(ctx: &Context, a: &RejectArgs) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let ids = match (&a.id, &a.session) {
        (Some(id), _) => vec![store.resolve_proposal_or_node(id)?],
        (None, Some(session)) => session_ids(&store, session, a.batch.as_deref())?,
        (None, None) => bail!("give a proposal id or --session"),
    };
    let mut results = Vec::new();
    for id in ids {
        store.retrying(|s| s.reject(&id, &a.reason))?;
        if !ctx.json {
            note(&format!("rejected {}", id.short()));
        }
        results.push(Decided {
            id: id.to_string(),
            outcome: "rejected",
            accepted: None,
        });
    }
    if ctx.json {
        emit(true, &results, |_| String::new())?;
    }
    Ok(())
}

pub fn edit(ctx: &Context, id: &str, force: bool) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let (id, p) = store.proposal(id)?;
    if store.decision(&id)?.is_some() {
        return Err(Error::AlreadyDecided(id.short().to_owned()).into());
    }
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_owned());
    // Dropped on every way out of this function, removing the decrypted text.
    let scratch = super::edit_file::Scratch::new(&format!("proposal-{}.json", id.short()), &proposal::edit_text(&p))?;
    let path = scratch.path().to_owned();
    loop {
        let status = scratch.run(&editor)?;
        if !status.success() {
            bail!("the editor {editor:?} exited with {status}; nothing was accepted");
        }
        let text = std::fs::read_to_string(&path)?;
        match store.retrying(|s| s.accept_edit(&id, &text, force)) {
            Ok((edited, done)) => {
                emit(
                    ctx.json,
                    &Decided {
                        id: edited.to_string(),
                        outcome: "accepted",
                        accepted: Some(done),
                    },
                    |d| format!("accepted the edit of {} as {}\n", id.short(), &d.id[..12]),
                )?;
                return Ok(());
            }
            Err(e @ (Error::Document { .. } | Error::Invalid { .. })) if interactive() => {
                eprintln!("error: {e}");
                eprint!("Edit again? [Y/n] ");
                let mut answer = String::new();
                std::io::stdin().read_line(&mut answer)?;
                if answer.trim().eq_ignore_ascii_case("n") {
                    bail!("nothing accepted; the edit was discarded (it held decrypted content)");
                }
            }
            // The edit is not kept: a decrypted copy left in $TMPDIR is
            // readable by anything running as this user, agents included.
            Err(e) => return Err(anyhow::Error::from(e).context("nothing accepted; the edit was discarded")),
        }
    }
}

pub fn status(ctx: &Context, id: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let s = store.proposal_status(id)?;
    if ctx.json {
        // Times as RFC 3339, as every command prints them (the decision keeps milliseconds).
        let mut v = serde_json::to_value(&s)?;
        if let (Some(at), ProposalStatus::Decided { decision, .. }) = (v.pointer_mut("/decision/at"), &s) {
            *at = serde_json::Value::String(decision.at.to_rfc3339());
        }
        return emit(true, &v, |_| String::new());
    }
    emit(false, &s, |s| match s {
        ProposalStatus::Pending { id } => format!("{}  pending\n", id.short()),
        ProposalStatus::Decided { id, decision } => {
            let mut out = format!("{}  {}", id.short(), decision.outcome.as_str());
            if !decision.applied.is_empty() {
                out.push_str(&format!(" (changes {:?})", decision.applied));
            }
            if let Some(e) = &decision.edited_as {
                out.push_str(&format!(" (accepted as its edited copy {})", e.short()));
            }
            out.push_str(&format!("  {}", decision.at.to_rfc3339()));
            if let Some(r) = &decision.reason {
                let label = match decision.change {
                    Some(c) => format!("comment on change {c}"),
                    None if decision.outcome == proposal::Outcome::ChangesRequested => "comment".to_owned(),
                    None => "reason".to_owned(),
                };
                let indent = " ".repeat(label.len() + 4);
                out.push_str(&format!("\n  {label}: {}", cards::clean(r, &indent)));
            }
            if decision.outcome == proposal::Outcome::ChangesRequested {
                out.push_str(&format!(
                    "\n  waiting for a revision: a proposal with \"revises\": \"{id}\" (answer with graphex comment)"
                ));
            }
            out.push('\n');
            out
        }
        ProposalStatus::Quarantined { id, reason } => {
            format!(
                "{}  quarantined: {}\n",
                cards::clean(id, " "),
                cards::clean(reason, " ")
            )
        }
    })
}
