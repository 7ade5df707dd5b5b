//! Review conversations from the command line: `request-changes`
//! (reviewers, master level) sends a proposal back with a comment;
//! `comment` (agents) answers. The revision itself is a proposal naming
//! the one it revises (`"revises"` in its JSON, see `propose --schema`).

use anyhow::Result;
use serde::Serialize;

use super::args::{CommentArgs, RequestChangesArgs};
use super::output::{emit, note};
use super::session::{Context, Need};

#[derive(Serialize)]
struct Sent {
    id: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<usize>,
}

pub fn request_changes(ctx: &Context, a: &RequestChangesArgs) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let id = store.resolve_proposal_or_node(&a.id)?;
    store.retrying(|s| s.request_changes(&id, &a.comment, a.change))?;
    if !ctx.json {
        note(&format!(
            "asked for changes on {}{}; it waits for the agent's revision",
            id.short(),
            a.change.map_or_else(String::new, |c| format!(" (change {c})"))
        ));
        return Ok(());
    }
    emit(
        true,
        &Sent {
            id: id.to_string(),
            outcome: "changes-requested",
            change: a.change,
        },
        |_| String::new(),
    )
}

#[derive(Serialize)]
struct Commented {
    comment: String,
    on: String,
}

pub fn comment(ctx: &Context, a: &CommentArgs) -> Result<()> {
    let mut store = ctx.open(Need::Read)?;
    let on = store.resolve_proposal(&a.id)?;
    let id = store.comment(&a.agent, &a.session, on.as_str(), a.change, &a.comment)?;
    emit(
        ctx.json,
        &Commented {
            comment: id.to_string(),
            on: on.to_string(),
        },
        |c| {
            format!(
                "comment {} on proposal {} sealed for the reviewers\n",
                &c.comment[..12],
                &c.on[..12]
            )
        },
    )
}

pub fn list(ctx: &Context, agent: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let Some(ledger) = graphex_engine::proposal::Ledger::for_store(store.layout().root(), agent) else {
        anyhow::bail!("no state directory for the agent's list (set GRAPHEX_STATE_DIR or HOME), or a bad agent id");
    };
    let items = store.review_list(&ledger.entries()?)?;
    emit(ctx.json, &items, |items| {
        if items.is_empty() {
            return format!("no proposals recorded for {agent} on this machine\n");
        }
        let mut out = String::new();
        for i in items {
            out.push_str(&format!(
                "{}  {:<17}  {}  {}\n",
                i.id.short(),
                i.state,
                i.submitted.to_rfc3339(),
                super::cards::clean(&i.summary, " ")
            ));
            if let Some(c) = &i.comment {
                let on = i.change.map_or_else(String::new, |n| format!(" on change {n}"));
                out.push_str(&format!("  comment{on}: {}\n", super::cards::clean(c, "    ")));
            }
            if let Some(r) = &i.revised_by {
                out.push_str(&format!("  revised by {}\n", r.short()));
            }
        }
        out
    })
}
