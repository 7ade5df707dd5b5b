//! The Graph pane's dialogs: the fuzzy jump (searched on the worker, the
//! newest query wins), the type and relation pickers with counts, and the
//! export's file name.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use graphex_engine::as_of::AsOf;

use super::update::ask;
use super::work::{Format, JumpHit};
use crate::app::effect::{Effect, request};
use crate::app::state::{AppState, Popup};
use crate::app::text_input::edit_line;
use crate::app::worker::Request;

pub use super::dialog_state::{FacetKind, FacetPicker, HistoryDialog, JumpDialog, Purpose};

pub fn open_jump(state: &mut AppState) {
    open_jump_for(state, Purpose::Open);
}

/// The jump, for what choosing a node will do.
pub fn open_jump_for(state: &mut AppState, purpose: Purpose) {
    if state.level.is_none() {
        state.error("the store is still opening");
        return;
    }
    let dialog = jump_dialog(&state.graph, purpose);
    state.popups.push(Popup::Jump(dialog));
}

/// A jump for `purpose`, offering recent and nearby nodes until a name is
/// typed.
pub fn jump_dialog(g: &super::Graph, purpose: Purpose) -> Box<JumpDialog> {
    let hits = suggestions(g, picked_for(&purpose));
    Box::new(JumpDialog {
        purpose,
        hits,
        ..JumpDialog::default()
    })
}

/// The node a picker chooses for (never offered to itself).
fn picked_for(purpose: &Purpose) -> Option<&str> {
    match purpose {
        Purpose::LinkTo { from, .. } => Some(from),
        Purpose::SupersededBy { old } => Some(old),
        _ => None,
    }
}

pub fn open_facets(state: &mut AppState, kind: FacetKind) {
    let g = &state.graph;
    let (Some(place), Some(Ok(shown))) = (&g.place, &g.shown) else {
        state.error("no neighbourhood shown yet: press / to jump to a node");
        return;
    };
    let (facets, chosen) = match kind {
        FacetKind::Types => (&shown.facets.types, &place.types),
        FacetKind::Relations => (&shown.facets.relations, &place.relations),
    };
    let mut rows = facets.clone();
    // A filter already set stays offered even where nothing has it now.
    for c in chosen {
        if !rows.iter().any(|(n, _)| n == c) {
            rows.push((c.clone(), 0));
        }
    }
    if rows.is_empty() {
        state.info("nothing around this node to filter");
        return;
    }
    let chosen = chosen.clone();
    state.popups.push(Popup::Facets(FacetPicker {
        kind,
        rows,
        chosen,
        selected: 0,
    }));
}

pub fn open_history(state: &mut AppState, name: String, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    request(
        fx,
        Request::History {
            generation,
            name: name.clone(),
        },
    );
    state.popups.push(Popup::History(Box::new(HistoryDialog {
        name,
        generation,
        ..HistoryDialog::default()
    })));
}

pub fn open_as_of(state: &mut AppState) {
    if state.graph.place.is_none() {
        state.error("no node open: press / to jump to one");
        return;
    }
    // Opens empty: `@ enter` comes back to now (the point shown is in the
    // top line while in the past).
    state.popups.push(Popup::AsOf {
        input: String::new(),
        error: None,
    });
}

/// A point in time as typed (see [`AsOf::parse`]).
pub fn parse_as_of(text: &str) -> Result<Option<AsOf>, String> {
    AsOf::parse(text)
}

pub fn open_export(state: &mut AppState) {
    let Some(place) = &state.graph.place else {
        state.error("no node open to export: press / to jump to one");
        return;
    };
    let input = format!("{}.mmd", place.centre);
    state.popups.push(Popup::Export { input, error: None });
}

/// Keys for the pane's dialog on top of the stack.
pub fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    match state.popups.last_mut() {
        Some(Popup::Jump(j)) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => j.selected = j.selected.saturating_sub(1),
            KeyCode::Down => j.selected = (j.selected + 1).min(j.hits.len().saturating_sub(1)),
            // The successor does not exist yet: made here, in the form.
            KeyCode::Char('n') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                if let Purpose::SupersededBy { old } = &j.purpose {
                    let (old, typed) = (old.clone(), j.input.trim().to_owned());
                    state.popups.pop();
                    super::curate_ui::new_successor(state, old, typed, fx);
                }
            }
            KeyCode::Enter => match j.hits.get(j.selected).map(|h| h.name.clone()) {
                Some(name) => {
                    let purpose = std::mem::take(&mut j.purpose);
                    state.popups.pop();
                    super::curate_ui::chosen(state, purpose, name, fx);
                }
                None if j.searching => state.info("still searching…"),
                None if matches!(j.purpose, Purpose::SupersededBy { .. }) => {
                    state.error("no node matches; ctrl-n creates the successor with the name typed");
                }
                None => state.error("no node matches; type part of a name or description"),
            },
            _ => {
                if edit_line(&mut j.input, &k) {
                    search(state, fx);
                }
            }
        },
        Some(Popup::Facets(p)) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => p.selected = p.selected.saturating_sub(1),
            KeyCode::Down => p.selected = (p.selected + 1).min(p.rows.len().saturating_sub(1)),
            KeyCode::Char(' ') => {
                if let Some((name, _)) = p.rows.get(p.selected)
                    && !p.chosen.remove(name)
                {
                    p.chosen.insert(name.clone());
                }
            }
            KeyCode::Backspace | KeyCode::Delete => p.chosen.clear(),
            KeyCode::Enter => {
                let Some(Popup::Facets(p)) = state.popups.pop() else {
                    return;
                };
                apply_facets(state, p, fx);
            }
            _ => {}
        },
        Some(Popup::Export { input, error }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter => {
                let file = PathBuf::from(input.trim());
                match (Format::of(&file), state.graph.place.clone()) {
                    (Err(e), _) => *error = Some(e),
                    (Ok(_), None) => {
                        state.popups.pop();
                    }
                    (Ok(_), Some(place)) => {
                        state.popups.pop();
                        request(fx, Request::Export { place, file });
                    }
                }
            }
            _ => {
                if edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        Some(Popup::AsOf { input, error }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter => match parse_as_of(input) {
                Err(e) => *error = Some(e),
                Ok(at) => {
                    state.popups.pop();
                    if let Some(place) = state.graph.place.as_mut() {
                        place.as_of = at;
                        state.graph.selected = 0;
                        state.graph.path = None;
                        ask(state, fx);
                    }
                }
            },
            _ => {
                if edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        Some(Popup::History(h)) => {
            let n = h
                .view
                .as_ref()
                .and_then(|v| v.as_ref().ok())
                .map_or(0, |v| v.versions.len());
            let folded = h.place.changes_only;
            let diff = h.diff(folded).unwrap_or_default();
            // Another pair compared: its differences from their top.
            let moved = |h: &mut HistoryDialog| {
                h.place.scroll = 0;
            };
            match k.code {
                KeyCode::Esc | KeyCode::Char('q') => {
                    state.popups.pop();
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    h.selected = h.selected.saturating_sub(1);
                    moved(h);
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    h.selected = (h.selected + 1).min(n.saturating_sub(1));
                    moved(h);
                }
                KeyCode::Char(' ') => {
                    h.base = if h.base == Some(h.selected) {
                        None
                    } else {
                        Some(h.selected)
                    };
                    moved(h);
                }
                KeyCode::PageDown | KeyCode::Char('J') => h.place.scroll_by(&diff, 5),
                KeyCode::PageUp | KeyCode::Char('K') => h.place.scroll_by(&diff, -5),
                KeyCode::Char('n' | 'N') => {
                    if let Err(why) = h.place.step(&diff, k.code == KeyCode::Char('n')) {
                        state.info(why);
                    }
                }
                KeyCode::Char('c') => {
                    let mut place = h.place;
                    place.toggle(|f| h.diff(f).unwrap_or_default());
                    h.place = place;
                }
                _ => {}
            }
        }
        _ => super::curate_ui::key(state, k, fx),
    }
}

/// Pastes into the pane's dialog; returns whether one took it.
pub fn paste(state: &mut AppState, text: &str, fx: &mut Vec<Effect>) -> bool {
    let line = text.replace(['\n', '\r'], " ");
    match state.popups.last_mut() {
        Some(Popup::Jump(j)) => {
            j.input.push_str(&line);
            search(state, fx);
            true
        }
        Some(Popup::Export { input, error } | Popup::AsOf { input, error }) => {
            input.push_str(line.trim());
            *error = None;
            true
        }
        _ => false,
    }
}

/// With nothing typed: the places visited most recently, then the nodes
/// around the one in view (each once, the picker's own subject left out).
pub fn suggestions(g: &super::Graph, leave_out: Option<&str>) -> Vec<JumpHit> {
    const RECENT: usize = 5;
    const NEARBY: usize = 10;
    let mut out: Vec<JumpHit> = Vec::new();
    let push = |name: &str, label: &str, out: &mut Vec<JumpHit>| {
        if Some(name) != leave_out && !out.iter().any(|h| h.name == name) {
            out.push(JumpHit {
                name: name.to_owned(),
                node_type: label.to_owned(),
                matched: Vec::new(),
                description: None,
            });
        }
    };
    let recent = g.place.iter().chain(g.back.iter().rev()).map(|p| p.centre.as_str());
    for name in recent.take(RECENT + 1) {
        push(name, "recent", &mut out);
    }
    if let Some(Ok(n)) = &g.shown {
        let near = n.names().into_iter().skip(1).take(NEARBY);
        for name in near {
            push(name, "nearby", &mut out);
        }
    }
    out
}

/// Asks the worker for the hits of what the jump holds now (nothing
/// typed: recent and nearby nodes, at once).
fn search(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    let leave_out = match state.popups.last() {
        Some(Popup::Jump(j)) => picked_for(&j.purpose).map(str::to_owned),
        _ => None,
    };
    let offered = suggestions(&state.graph, leave_out.as_deref());
    if let Some(Popup::Jump(j)) = state.popups.last_mut() {
        j.generation = generation;
        j.selected = 0;
        j.searching = !j.input.trim().is_empty();
        if !j.searching {
            j.hits = offered;
            return;
        }
        let query = j.input.clone();
        request(fx, Request::Jump { generation, query });
    }
}

/// The worker's hits, if the jump still waits for them.
pub fn jumped(state: &mut AppState, generation: u64, hits: Vec<JumpHit>) {
    if let Some(Popup::Jump(j)) = state.popups.last_mut()
        && j.generation == generation
    {
        j.hits = hits;
        j.selected = 0;
        j.searching = false;
    }
}

fn apply_facets(state: &mut AppState, p: FacetPicker, fx: &mut Vec<Effect>) {
    let Some(place) = state.graph.place.as_mut() else {
        return;
    };
    match p.kind {
        FacetKind::Types => place.types = p.chosen,
        FacetKind::Relations => place.relations = p.chosen,
    }
    state.graph.selected = 0;
    state.graph.path = None;
    ask(state, fx);
}
