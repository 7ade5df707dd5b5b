//! `graphex freshness show|restore|accept|trust`: what this machine last
//! saw of the store on the branch checked out, the two ways out of a
//! rollback, and trusting a named revision's graph (see the engine's
//! `freshness` and `rollback` modules).

use anyhow::{Result, bail};
use graphex_engine::freshness::{Record, Verdict};
use graphex_engine::rollback;
use graphex_engine::store::{rollback_text, short_statement};
use serde::Serialize;

use super::Context;
use super::git_args::FreshnessCommand;
use super::output::{emit, note, say};
use super::session::{Need, confirm};

pub fn freshness(ctx: &Context, cmd: Option<&FreshnessCommand>) -> Result<()> {
    match cmd {
        None | Some(FreshnessCommand::Show) => show(ctx),
        Some(FreshnessCommand::Restore { yes }) => restore(ctx, *yes),
        Some(FreshnessCommand::Accept { yes }) => accept(ctx, *yes),
        Some(FreshnessCommand::Trust { rev }) => trust(ctx, rev),
    }
}

fn trust(ctx: &Context, rev: &str) -> Result<()> {
    let (mut store, _) = ctx.open_with_credentials(Need::Read)?;
    let record = store.trust_revision(rev)?;
    let on = record_scope(&store);
    note(&format!("trusted {} as the newest graph of {on}", describe(&record)));
    match store.rolled_back() {
        Some(rb) => note(&format!("warning: {}", rollback_text(store.layout().root(), rb))),
        None => note("the store as it is is that graph, or descends from it: fresh"),
    }
    Ok(())
}

/// The line of history the store's record is kept for, in words.
fn record_scope(store: &graphex_engine::Store) -> String {
    let scope = store.freshness().and_then(|f| f.file.as_ref()).and_then(|f| f.scope());
    match scope {
        Some(s) => match s.strip_prefix("refs/heads/") {
            Some(branch) => format!("branch {branch}"),
            None => s.to_owned(),
        },
        None => "this work tree".to_owned(),
    }
}

#[derive(Serialize)]
struct Seen<'a> {
    record: Option<String>,
    last_seen: Option<&'a Record>,
    verdict: String,
    rolled_back: Option<String>,
    backup: bool,
    problem: Option<&'a str>,
}

fn describe(r: &Record) -> String {
    format!(
        "graph commit {}, seal {}, git commit {}, at {}",
        r.seq,
        short_statement(&r.statement),
        r.commit
            .as_deref()
            .map_or("none (outside git)", |c| c.get(..12).unwrap_or(c)),
        graphex_engine::model::Timestamp(r.at)
    )
}

fn show(ctx: &Context) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let Some(f) = store.freshness() else {
        bail!(
            "this session holds no key that authenticates the seal, so no freshness record is kept for it: \
             unlock (GRAPHEX_PASSPHRASE, GRAPHEX_IDENTITY) or use the agent identity (GRAPHEX_AGENT_IDENTITY)"
        );
    };
    let last = f.file.as_ref().and_then(|file| file.load().ok().flatten());
    let verdict = match &f.verdict {
        Verdict::First => format!(
            "first sight of {} here: the graph as it is is trusted, and the record starts now",
            record_scope(&store)
        ),
        Verdict::Fresh { .. } => format!(
            "fresh: the store is the newest this machine saw on {}, or descends from it",
            record_scope(&store)
        ),
        Verdict::Followed { .. } => {
            "git moved to another branch or commit: the record (from an earlier version) follows it".to_owned()
        }
        Verdict::RolledBack(_) => "ROLLED BACK: read-only".to_owned(),
    };
    let seen = Seen {
        record: f.file.as_ref().map(|file| file.path().display().to_string()),
        last_seen: last.as_ref(),
        verdict,
        rolled_back: f.rollback().map(|rb| rollback_text(store.layout().root(), rb)),
        backup: f.backup,
        problem: f.problem.as_deref(),
    };
    emit(ctx.json, &seen, |s| {
        let mut out = String::new();
        out.push_str(&format!(
            "record     {}\n",
            s.record.as_deref().unwrap_or("none (no state directory)")
        ));
        if let Some(r) = s.last_seen {
            out.push_str(&format!("last seen  {}\n", describe(r)));
        }
        out.push_str(&format!("verdict    {}\n", s.verdict));
        out.push_str(&format!(
            "backup     {}\n",
            if s.backup {
                "kept (a copy of the newest graph.db in the state directory; for a graph.db over 64 MiB, a link until an idle unlock session copies it)"
            } else {
                "none (restoring relies on git)"
            }
        ));
        if let Some(p) = s.problem {
            out.push_str(&format!("problem    {p}\n"));
        }
        if let Some(t) = &s.rolled_back {
            out.push_str(&format!("\n{t}\n"));
        }
        out
    })
}

fn restore(ctx: &Context, yes: bool) -> Result<()> {
    let (store, creds) = ctx.open_with_credentials(Need::Write)?;
    let Some(rb) = store.rolled_back().cloned() else {
        return say("nothing to restore: the store is the newest this machine has seen\n");
    };
    let root = store.layout().root().to_owned();
    drop(store);
    note(&rollback_text(&root, &rb));
    let candidate = rollback::find(&root, &rb.recorded)?;
    note(&format!(
        "will restore graph commit {} (seal {}) from {}, and move the graph as it is now (graph commit {}) aside",
        rb.recorded.seq,
        short_statement(&rb.recorded.statement),
        candidate.source,
        rb.seq
    ));
    if !yes && !confirm("Restore the newer graph?")? {
        bail!("nothing restored (to restore without a question, add --yes)");
    }
    let done = rollback::restore(&root, &creds, candidate)?;
    let mut text = format!(
        "restored graph commit {} from {}; the graph as it was is kept at {}\n",
        done.seq,
        done.source,
        done.aside.display()
    );
    if done.staged {
        text.push_str("the blobs and key files of that commit came back too and are staged: commit them with the graph (`git add .gpp && git commit`)\n");
    }
    say(&text)
}

fn accept(ctx: &Context, yes: bool) -> Result<()> {
    let mut store = ctx.open(Need::Read)?;
    let Some(rb) = store.rolled_back().cloned() else {
        return say("nothing to accept: the store is the newest this machine has seen\n");
    };
    note(&rollback_text(store.layout().root(), &rb));
    note(&format!(
        "accepting makes graph commit {} (seal {}) the newest this machine has seen; graph commit {} (seal {}) \
         is then no longer expected",
        rb.seq,
        short_statement(&rb.statement),
        rb.recorded.seq,
        short_statement(&rb.recorded.statement)
    ));
    if !yes && !confirm("Accept the graph as it is now?")? {
        bail!("nothing accepted (to accept without a question, add --yes)");
    }
    store.accept_as_fresh()?;
    say(&format!(
        "accepted graph commit {} as the newest this machine has seen\n",
        rb.seq
    ))
}
