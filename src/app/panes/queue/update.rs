//! The queue's keys: moving through the list, scrolling the card, and the
//! decisions (accept, reject, edit, selections), turned into state changes
//! and requests to the engine worker.

use super::contradiction::ContradictionItem;
use super::data::{ChangeView, ImpactView, ItemLints, QueueItem, QueueSnapshot};
use super::dialogs::{confirmed, validate};
use super::layout;
use crate::app::action::Action;
use crate::app::effect::{Effect, Go, go, request};
use crate::app::state::{AppState, Confirmed, Editor, Popup};
use crate::app::worker::Request;

pub(crate) fn queue_action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    let page = usize::from(crate::app::layout::list_height(state.size)).max(1);
    let n = state.queue.len();
    let before = state.queue.selected;
    match a {
        Action::Up => state.queue.selected = before.saturating_sub(1),
        Action::Down => state.queue.selected = (before + 1).min(n.saturating_sub(1)),
        Action::PageUp => state.queue.selected = before.saturating_sub(page),
        Action::PageDown => state.queue.selected = (before + page).min(n.saturating_sub(1)),
        Action::Top => state.queue.selected = 0,
        Action::Bottom => state.queue.selected = n.saturating_sub(1),
        Action::CardUp => {
            let max = layout::current_card(state).map_or(0, |l| layout::card_max_scroll(state, &l));
            state.queue.card_scroll = state.queue.card_scroll.min(max).saturating_sub(3);
        }
        Action::CardDown => {
            let max = layout::current_card(state).map_or(0, |l| layout::card_max_scroll(state, &l));
            state.queue.card_scroll = state.queue.card_scroll.saturating_add(3).min(max);
        }
        Action::ToggleInfo => state.queue.hide_info = !state.queue.hide_info,
        Action::ToggleDiff => state.queue.hide_diff = !state.queue.hide_diff,
        Action::NextAttention | Action::PrevAttention => {
            // A revision that just arrived comes first, wherever the cursor is.
            let arrived = state.queue.arrived.take().filter(|_| a == Action::NextAttention);
            if let Some(i) = arrived.and_then(|id| state.queue.items.iter().position(|i| i.id == id)) {
                state.queue.selected = i;
                selection_changed(state, fx);
                return;
            }
            match next_attention(&state.queue.items, before, a == Action::NextAttention) {
                Some(i) => state.queue.selected = i,
                None => state.info("no other proposal needs a person: none is flagged, stale or a revision"),
            }
        }
        _ if state.queue.current_contradiction().is_some() => {
            if let Some(c) = state.queue.current_contradiction().cloned() {
                super::resolve::action(state, a, &c, fx);
            }
        }
        a if super::resolve::resolves(a) => state.error(
            "h, l and D resolve a contradiction: select one (they are listed after the proposals, under \
             'contradictions')",
        ),
        Action::PreviewImpact => match state.queue.current() {
            Some(item) => match item.changes.first() {
                Some(c) => {
                    let subject = crate::app::subject::Subject::Proposal {
                        id: item.id.clone(),
                        short: item.short.clone(),
                        centre: c.centre().to_owned(),
                    };
                    go(fx, Go::Project(subject));
                }
                None => state.error("this proposal has no changes to preview"),
            },
            None => state.error("no proposal selected"),
        },
        Action::MergeDuplicate => {
            if !state.needs_master() || !state.not_busy() {
                return;
            }
            match state.queue.current() {
                None => state.error("no proposal selected"),
                Some(i) if i.lints.is_none() => state.error("its lints are still being checked; try again in a moment"),
                Some(i) if super::near_duplicate_of(i).is_none() => {
                    state.error("m merges a near-duplicate into the node it duplicates: this proposal adds none");
                }
                Some(i) => {
                    let id = i.id.clone();
                    state.busy = Some("merging".into());
                    request(fx, Request::MergeDraft { id });
                }
            }
        }
        Action::OpenNode => {
            // A node the proposal changes, or else the existing node a new
            // one is very close to (its near-duplicate lint).
            let name = state.queue.current().and_then(|i| {
                i.changes
                    .iter()
                    .find_map(|c| c.touched().first().map(|n| (*n).to_owned()))
                    .or_else(|| super::near_duplicate_of(i))
            });
            match name {
                Some(name) => go(fx, Go::Node(name)),
                None if state.queue.current().is_none() => state.error("no proposal selected"),
                None => state.error("this proposal only adds new nodes: nothing in the graph to open yet"),
            }
        }
        _ => {
            let writes = matches!(
                a,
                Action::Accept
                    | Action::Reject
                    | Action::RequestChanges
                    | Action::Edit
                    | Action::AcceptSelection
                    | Action::RejectSelection
            );
            if !state.needs_master() || (writes && !state.not_busy()) {
                return;
            }
            let Some(item) = state.queue.current().cloned() else {
                state.error(if state.queue.loaded {
                    "no proposal selected: the queue is empty"
                } else {
                    "the queue is still being read; try again in a moment"
                });
                return;
            };
            decide(state, a, &item, fx);
        }
    }
    if state.queue.selected != before {
        selection_changed(state, fx);
    }
}

/// Accepting waits until the reviewer can see the lints of what is accepted.
fn lints_shown(state: &mut AppState, ids: &[String]) -> bool {
    let unchecked = state
        .queue
        .items
        .iter()
        .filter(|i| ids.contains(&i.id) && i.lints.is_none())
        .count();
    if unchecked > 0 {
        state.error(format!(
            "the lints of {unchecked} proposal(s) are still being checked; accept once they show"
        ));
    }
    unchecked == 0
}

/// The lints that make an accept a deliberate decision (a second key on a
/// confirmation that names them), as the card shows them.
const SECURITY_FLAGS: [&str; 5] = [
    "tier-lowered",
    "credential",
    "cross-tier",
    "mentions-higher",
    "near-duplicate",
];

/// What `item` is flagged with: stale, and each security-relevant lint.
pub(crate) fn flags(item: &QueueItem) -> Vec<&str> {
    let mut out = Vec::new();
    if !item.stale.is_empty() {
        out.push("stale");
    }
    if item.revision.is_some_and(|(_, problem)| problem) {
        out.push("revision-problem");
    }
    for (code, _) in item.lints.iter().flatten() {
        if SECURITY_FLAGS.contains(&code.as_str()) && !out.contains(&code.as_str()) {
            out.push(code.as_str());
        }
    }
    out
}

/// Whether `item` needs a person's eyes: flagged (stale, a security lint,
/// a revision problem) or a revision.
pub(crate) fn needs_attention(item: &QueueItem) -> bool {
    !flags(item).is_empty() || item.revision.is_some()
}

/// The next (or previous) proposal after `from` that needs a person, going
/// round the list; `None` when no other does.
fn next_attention(items: &[QueueItem], from: usize, forward: bool) -> Option<usize> {
    let n = items.len();
    (1..n)
        .map(|d| {
            if forward {
                (from + d) % n
            } else {
                (from + n - d % n) % n
            }
        })
        .find(|&i| needs_attention(&items[i]))
}

fn decide(state: &mut AppState, a: Action, item: &QueueItem, fx: &mut Vec<Effect>) {
    match a {
        Action::Accept if !lints_shown(state, std::slice::from_ref(&item.id)) => {}
        // Flagged: a confirmation naming the flags. Stale as well: one
        // dialog, the stale base's, with the versions and the other flags
        // (the worker checks the base again as it accepts).
        Action::Accept if item.stale.is_empty() && !flags(item).is_empty() => state.popups.push(Popup::Confirm {
            text: format!(
                "Accept {}? It is flagged: {}. y accepts, n keeps it pending.",
                item.short,
                flags(item).join(", ")
            ),
            then: Confirmed::Accept(item.id.clone()),
        }),
        Action::Accept => {
            state.busy = Some(format!("accepting {}", item.short));
            request(
                fx,
                Request::Accept {
                    id: item.id.clone(),
                    force: false,
                },
            );
        }
        Action::Reject => state.popups.push(Popup::Reason {
            ids: vec![item.id.clone()],
            input: String::new(),
            error: None,
        }),
        Action::RequestChanges if item.source == "git merge" => {
            state.error("a merge proposal comes from git, not an agent: nobody would answer; accept, reject or edit it")
        }
        Action::RequestChanges => state.popups.push(Popup::ChangesComment {
            id: item.id.clone(),
            changes: item.changes.len(),
            change: None,
            input: String::new(),
            error: None,
        }),
        Action::Edit => open_editor(state, fx),
        Action::Skip => {
            state.queue.skipped.insert(item.id.clone());
            let n = state.queue.items.len();
            let start = state.queue.selected;
            let next = (1..=n)
                .map(|d| (start + d) % n)
                .find(|i| !state.queue.skipped.contains(&state.queue.items[*i].id));
            match next {
                Some(i) => {
                    state.queue.selected = i;
                    selection_changed(state, fx);
                }
                None => state.info("every proposal is skipped; they stay pending"),
            }
        }
        // Selects without moving (as lazygit and gitui do): `j` moves on.
        Action::ToggleSelect if !state.queue.marked.remove(&item.id) => {
            state.queue.marked.insert(item.id.clone());
        }
        Action::AcceptSelection | Action::RejectSelection => {
            let ids = targets(state, item);
            let what = if state.queue.marked.is_empty() {
                format!("session {}", if item.session.is_empty() { "-" } else { &item.session })
            } else {
                "selection".to_owned()
            };
            if a == Action::AcceptSelection && !lints_shown(state, &ids) {
                return;
            }
            if a == Action::RejectSelection {
                state.popups.push(Popup::Reason {
                    ids,
                    input: String::new(),
                    error: None,
                });
            } else {
                bulk_accept(state, ids, &what, fx);
            }
        }
        _ => {}
    }
}

/// A batch accept: every proposal named (id, centre, flags); flagged ones
/// are left out (each is accepted on its own, after its confirmation). One
/// unflagged proposal needs no question.
fn bulk_accept(state: &mut AppState, ids: Vec<String>, what: &str, fx: &mut Vec<Effect>) {
    let items: Vec<&QueueItem> = state.queue.items.iter().filter(|i| ids.contains(&i.id)).collect();
    let (flagged, clean): (Vec<&QueueItem>, Vec<&QueueItem>) = items.iter().partition(|i| !flags(i).is_empty());
    let line = |i: &QueueItem| {
        let centre = i.changes.first().map_or("-", ChangeView::centre);
        match flags(i).as_slice() {
            [] => format!("  {} {centre}", i.short),
            f => format!("  {} {centre} [{}] left out", i.short, f.join(", ")),
        }
    };
    let clean_ids: Vec<String> = clean.iter().map(|i| i.id.clone()).collect();
    if clean_ids.is_empty() {
        let first = flagged.first().map_or(String::new(), |i| i.short.clone());
        state.error(format!(
            "every proposal of the {what} is flagged: accept each on its own (`a`, starting with {first}), after its \
             flags are shown"
        ));
        return;
    }
    if clean_ids.len() == 1 && flagged.is_empty() {
        confirmed(state, Confirmed::AcceptMany(clean_ids), fx);
        return;
    }
    let mut text = format!("Accept {} proposal(s) of the {what}?\n", clean_ids.len());
    for i in clean.iter().chain(&flagged) {
        text.push_str(&line(i));
        text.push('\n');
    }
    if !flagged.is_empty() {
        text.push_str(&format!(
            "{} flagged proposal(s) are left out: accept each on its own.",
            flagged.len()
        ));
    }
    state.popups.push(Popup::Confirm {
        text,
        then: Confirmed::AcceptMany(clean_ids),
    });
}

/// The marked proposals, else every proposal of `item`'s session.
fn targets(state: &AppState, item: &QueueItem) -> Vec<String> {
    let q = &state.queue;
    q.items
        .iter()
        .filter(|i| {
            if q.marked.is_empty() {
                i.agent == item.agent && i.session == item.session
            } else {
                q.marked.contains(&i.id)
            }
        })
        .map(|i| i.id.clone())
        .collect()
}

pub(crate) fn open_editor(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(item) = state.queue.current() else { return };
    let ed = Editor::new(item.id.clone(), item.short.clone(), &item.edit_text);
    state.popups.push(Popup::Editor(Box::new(ed)));
    validate(state, fx);
}

pub(crate) fn selection_changed(state: &mut AppState, fx: &mut Vec<Effect>) {
    state.queue.card_scroll = 0;
    request_impact(state, fx, false);
}

/// Asks for the selected proposal's impact preview. `refresh` asks again
/// even when it is shown (the graph may have changed); the shown one stays
/// until the new one arrives, so nothing flickers.
pub(crate) fn request_impact(state: &mut AppState, fx: &mut Vec<Effect>, refresh: bool) {
    let Some(id) = state.queue.current().map(|i| i.id.clone()) else {
        state.queue.impact = None;
        return;
    };
    let shown = state.queue.impact.as_ref().is_some_and(|(i, _)| *i == id);
    if shown && !refresh {
        return;
    }
    if !shown {
        state.queue.impact = None;
    }
    let generation = state.next_generation();
    state.queue.impact_generation = generation;
    request(fx, Request::Impact { generation, id });
}

/// The queue as read: grouped by agent session (oldest session first,
/// order kept within), the selection kept on the same proposal when it is
/// still there.
pub(crate) fn loaded(state: &mut AppState, snapshot: QueueSnapshot, fx: &mut Vec<Effect>) {
    let keep = state.queue.current().map(|i| i.id.clone());
    let keep_contradiction = contradiction_key(state);
    let mut items = snapshot.items;
    let mut first_seen: Vec<(String, String)> = Vec::new();
    for i in &items {
        let k = (i.agent.clone(), i.session.clone());
        if !first_seen.contains(&k) {
            first_seen.push(k);
        }
    }
    items.sort_by_key(|i| first_seen.iter().position(|k| k.0 == i.agent && k.1 == i.session));
    // Revisions that arrived since the last read are announced (the status
    // line and the message log), with the key that reaches them.
    let new_revisions: Vec<&QueueItem> = if state.queue.loaded {
        items
            .iter()
            .filter(|i| i.revision.is_some() && !state.queue.items.iter().any(|o| o.id == i.id))
            .collect()
    } else {
        Vec::new()
    };
    if let Some(last) = new_revisions.last() {
        state.queue.arrived = Some(last.id.clone());
    }
    let arrived: Vec<String> = new_revisions
        .iter()
        .map(|i| format!("{} (round {}, {})", i.short, i.revision.map_or(2, |r| r.0), i.agent))
        .collect();
    state.pending = items.len();
    let q = &mut state.queue;
    q.marked.retain(|id| items.iter().any(|i| i.id == *id));
    q.skipped.retain(|id| items.iter().any(|i| i.id == *id));
    q.selected = keep
        .as_ref()
        .and_then(|id| items.iter().position(|i| i.id == *id))
        .unwrap_or(q.selected);
    q.items = items;
    q.contradictions = snapshot.contradictions;
    q.contradictions_total = snapshot.contradictions_total;
    reselect(q, keep_contradiction);
    q.sealed = false;
    q.loaded = true;
    if !snapshot.quarantined.is_empty() {
        state.error(format!(
            "moved {} malformed file(s) to pending/quarantine: {}",
            snapshot.quarantined.len(),
            snapshot.quarantined.join("; ")
        ));
    }
    state.queue.quarantined = snapshot.quarantined;
    if state.busy.as_deref() == Some("opening the store") {
        state.busy = None;
    }
    if !arrived.is_empty() {
        state.info(format!(
            "revision arrived: {}; it stands where its conversation began (] goes to it)",
            arrived.join(", ")
        ));
    }
    if state.queue.current().map(|i| &i.id) == keep.as_ref() {
        request_impact(state, fx, true);
    } else {
        selection_changed(state, fx);
    }
}

/// Below the master level: only the number of proposals waiting, and
/// the contradictions this level reads (read-only).
pub(crate) fn sealed(state: &mut AppState, pending: usize, contradictions: Vec<ContradictionItem>, total: usize) {
    let keep = contradiction_key(state);
    state.pending = pending;
    state.queue.wipe();
    state.queue.contradictions = contradictions;
    state.queue.contradictions_total = total;
    reselect(&mut state.queue, keep);
    state.queue.loaded = true;
    state.busy = None;
}

/// The selected contradiction's names, to find it again after a read.
fn contradiction_key(state: &AppState) -> Option<(String, String)> {
    let (l, r) = state.queue.current_contradiction()?.key();
    Some((l.to_owned(), r.to_owned()))
}

/// The selection on the same contradiction when it is still there, else
/// where it was (within the list).
fn reselect(q: &mut super::Queue, contradiction: Option<(String, String)>) {
    if let Some((l, r)) = contradiction
        && let Some(i) = q
            .contradictions
            .iter()
            .position(|c| c.key() == (l.as_str(), r.as_str()))
    {
        q.selected = q.items.len() + i;
    }
    q.selected = q.selected.min(q.len().saturating_sub(1));
}

/// Lints of queued proposals, once checked.
pub(crate) fn lints(state: &mut AppState, found: Vec<(String, ItemLints)>) {
    for (id, lints) in found {
        if let Some(item) = state.queue.items.iter_mut().find(|i| i.id == id) {
            item.lints = Some(lints);
        }
    }
}

/// An impact preview; a stale one (an older selection's) is dropped.
pub(crate) fn impact(state: &mut AppState, generation: u64, id: String, result: Result<Vec<ImpactView>, String>) {
    if generation == state.queue.impact_generation {
        state.queue.impact = Some((id, result));
    }
}
