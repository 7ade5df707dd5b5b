//! `query --status proposed`: the nodes pending proposals would add, for a
//! reviewer. They are in no graph yet, so no edge leads to or from one:
//! the query's first node pattern (and `--type`, `--tier`) picks them, each
//! shown with the proposal and agent it comes from. Proposals are sealed to
//! the master key, so below it the command says so.

use anyhow::{Result, bail};
use graphex_engine::Store;
use graphex_engine::proposal::{ProposedNode, proposed_nodes};
use graphex_engine::query::Query;
use serde::Serialize;

use super::output::{emit, note};

#[derive(Serialize)]
struct Proposed<'a> {
    query: &'a str,
    proposed: Vec<ProposedNode>,
}

/// Prints the proposed nodes `q` (parsed from `text`) picks.
pub fn run(store: &Store, text: &str, q: &Query, json: bool) -> Result<()> {
    let Ok(scan) = store.pending() else {
        bail!("proposed nodes are in pending proposals, which are sealed to the master key: unlock it to list them");
    };
    if !q.hops.is_empty() {
        note(
            "note: proposed nodes are in no graph yet, so no edge leads to or from one: the query's first node is matched",
        );
    }
    let proposed: Vec<ProposedNode> = proposed_nodes(&scan)
        .into_iter()
        .filter(|p| q.start.value.matches(&p.name))
        .filter(|p| {
            q.flags
                .node_type
                .as_ref()
                .is_none_or(|t| p.node_type.as_str() == t.value)
        })
        .filter(|p| q.flags.tier.is_none_or(|t| p.tier <= t))
        .collect();
    emit(json, &Proposed { query: text, proposed }, |v| {
        let mut s = String::new();
        for p in &v.proposed {
            s.push_str(&format!(
                "{} ({}, {}, proposed in {} by {})\n",
                p.name,
                p.node_type,
                p.tier,
                &p.proposal[..p.proposal.len().min(12)],
                p.agent
            ));
        }
        s.push_str(&format!("{} proposed node(s)\n", v.proposed.len()));
        s
    })
}
