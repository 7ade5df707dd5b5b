//! The proposal queue pane: pending proposals grouped by agent session,
//! the card of the selected one, and the decisions taken on them.
//!
//! - `data`: the view models built on the engine worker from the store;
//! - `card`: the selected proposal's card as toned lines;
//! - `contradiction`, `contradiction_card`, `resolve`: the open
//!   contradictions listed after the proposals, their card, and keeping
//!   one or marking both disputed;
//! - `layout`: the list's rows and the card's scrolling;
//! - `update`: the pane's keys, turned into state changes and requests;
//! - `dialogs`, `dialog_view`: the reject reason, the stale base and the
//!   proposal editor, their keys and their drawing;
//! - `view`: drawing the pane;
//! - `component`: the pane as the shell routes to it.

use std::collections::BTreeSet;

#[cfg(test)]
mod attention_tests;
pub mod card;
pub mod component;
pub mod contradiction;
pub mod contradiction_card;
#[cfg(test)]
mod contradiction_tests;
pub mod data;
pub mod dialog_view;
pub mod dialogs;
pub mod layout;
pub mod merge_view;
pub mod resolve;
#[cfg(test)]
mod tests;
pub mod three_way_view;
pub mod update;
pub mod view;
pub mod work;

use contradiction::ContradictionItem;
use data::{ImpactView, QueueItem};

/// The proposal queue pane.
#[derive(Default)]
pub struct Queue {
    /// Grouped by agent session, oldest first within each.
    pub items: Vec<QueueItem>,
    /// The open contradictions, listed after the proposals (the only
    /// items below the master level, read-only there).
    pub contradictions: Vec<ContradictionItem>,
    /// How many contradictions are open in all (the list holds the first).
    pub contradictions_total: usize,
    /// Over the proposals, then the contradictions.
    pub selected: usize,
    pub marked: BTreeSet<String>,
    pub skipped: BTreeSet<String>,
    pub hide_info: bool,
    pub hide_diff: bool,
    pub card_scroll: u16,
    /// The impact preview of the selected proposal, once computed.
    pub impact: Option<(String, Result<Vec<ImpactView>, String>)>,
    pub impact_generation: u64,
    /// Proposals are sealed below the master level.
    pub sealed: bool,
    pub loaded: bool,
    /// Files the last read moved to quarantine.
    pub quarantined: Vec<String>,
    /// Reasons given to earlier rejections this session, oldest first.
    pub reasons: Vec<String>,
    /// Which suggestion the reject dialog shows (`↑`/`↓`), if any.
    pub reason_recall: Option<usize>,
    /// The revision that arrived last and has not been visited: the next
    /// `]` goes straight to it, wherever the cursor is.
    pub arrived: Option<String>,
}

/// The existing node a proposal's new node is very close to, from its
/// near-duplicate lint.
pub fn near_duplicate_of(item: &QueueItem) -> Option<String> {
    item.lints
        .iter()
        .flatten()
        .find_map(|(code, text)| (code == "near-duplicate").then(|| existing_in(text)).flatten())
}

/// The name after "the existing " in a near-duplicate lint's text.
fn existing_in(text: &str) -> Option<String> {
    text.split_once("the existing ")
        .map(|(_, rest)| rest.split([';', ' ', ',']).next().unwrap_or("").to_owned())
        .filter(|w| !w.is_empty())
}

/// A lint as a short reason an agent can act on ("duplicate of X",
/// "lowers a tier to public"), for the lints worth a reason.
fn short_reason(code: &str, text: &str) -> Option<String> {
    let after = |marker: &str| {
        text.split_once(marker)
            .map(|(_, rest)| rest.split([';', ' ', ',']).next().unwrap_or("").to_owned())
            .filter(|w| !w.is_empty())
    };
    Some(match code {
        "credential" => "contains a credential".to_owned(),
        "near-duplicate" => existing_in(text).map_or_else(
            || "duplicates an existing node".to_owned(),
            |n| format!("duplicate of {n}"),
        ),
        "name-taken" => "the name is taken".to_owned(),
        "tier-lowered" => after(" to ").map_or_else(|| "lowers a tier".to_owned(), |t| format!("lowers a tier to {t}")),
        "cross-tier" => "joins content across tiers".to_owned(),
        "mentions-higher" => "names a more secret node".to_owned(),
        _ => return None,
    })
}

/// What the reject and changes dialogs offer on `↑`: reasons from the
/// proposals' lints first (short phrases), then earlier reasons, newest
/// first, each once.
pub fn reason_candidates(q: &Queue, ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in q.items.iter().filter(|i| ids.contains(&i.id)) {
        for (code, text) in item.lints.iter().flatten() {
            let Some(reason) = short_reason(code, text) else {
                continue;
            };
            if !out.contains(&reason) {
                out.push(reason);
            }
        }
    }
    for r in q.reasons.iter().rev() {
        if !out.contains(r) {
            out.push(r.clone());
        }
    }
    out
}

impl Queue {
    /// The selected proposal, if a proposal is selected.
    pub fn current(&self) -> Option<&QueueItem> {
        self.items.get(self.selected)
    }

    /// The selected contradiction, if a contradiction is selected.
    pub fn current_contradiction(&self) -> Option<&ContradictionItem> {
        self.contradictions.get(self.selected.checked_sub(self.items.len())?)
    }

    /// How many rows can be selected: proposals and contradictions.
    pub fn len(&self) -> usize {
        self.items.len() + self.contradictions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many contradictions are open (listed or not).
    pub fn contradiction_count(&self) -> usize {
        self.contradictions_total.max(self.contradictions.len())
    }

    /// Drops every decrypted proposal (lock, or a level that cannot read
    /// them): the queue reads as sealed until it is read again.
    pub fn wipe(&mut self) {
        self.items.clear();
        self.contradictions.clear();
        self.contradictions_total = 0;
        self.impact = None;
        self.marked.clear();
        self.skipped.clear();
        self.sealed = true;
    }
}
