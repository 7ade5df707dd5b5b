//! The Graph pane's keys: moving through the rings, recentring, back and
//! forward, depth, direction and filters, marks and paths, folding, and
//! the worker's answers.

use graphex_engine::model::Status;
use graphex_engine::traverse::Direction;

use super::curate_ui;
use super::data::{Neighbourhood, PathView};
use super::dialogs::{self, FacetKind};
use super::history::HistoryView;
use super::rows::{self, Item, group_key};
use super::work::JumpHit;
use super::{Graph, MAX_DEPTH, Place};
use crate::app::action::{Action, Pane};
use crate::app::effect::{Effect, Go, request};
use crate::app::state::{AppState, Popup};
use crate::app::worker::Request;

/// Opens `name` in the Graph pane as a new centre (from the queue, the
/// palette or the jump), keeping the walk's settings.
pub fn open(state: &mut AppState, name: &str, fx: &mut Vec<Effect>) {
    state.pane = Pane::Graph;
    let place = match &state.graph.place {
        Some(p) => p.around(name.to_owned()),
        None => Place::new(name.to_owned()),
    };
    go(state, place, fx);
}

/// Moves to `place`, remembering where the pane was.
fn go(state: &mut AppState, place: Place, fx: &mut Vec<Effect>) {
    let g = &mut state.graph;
    if g.place.as_ref() == Some(&place) {
        return;
    }
    g.remember();
    if let Some(old) = g.place.replace(place) {
        g.back.push(old);
    }
    g.forward.clear();
    fresh(g);
    ask(state, fx);
}

/// A new centre starts at its first row, unfolded.
fn fresh(g: &mut Graph) {
    g.selected = 0;
    g.filter = Default::default();
    g.folded.clear();
    g.opened.clear();
    g.inspector_scroll = 0;
    g.inspected = None;
    g.path = None;
}

/// Asks the worker for the neighbourhood of the current place.
pub fn ask(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(place) = state.graph.place.clone() else { return };
    let generation = state.next_generation();
    state.graph.generation = generation;
    request(fx, Request::Show { generation, place });
}

/// Changes the current place's walk (depth, direction, filters) without a
/// history entry: back returns to the previous centre with its own walk.
fn reshape(state: &mut AppState, fx: &mut Vec<Effect>, change: impl FnOnce(&mut Place)) {
    let Some(place) = state.graph.place.as_mut() else {
        state.error("no node open: press / to jump to one");
        return;
    };
    change(place);
    state.graph.selected = 0;
    state.graph.path = None;
    ask(state, fx);
}

/// A key for the rings' filter while it is typed (or `esc` clearing a
/// kept one); false when the key is not the filter's.
pub fn filter_key(state: &mut AppState, k: crossterm::event::KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if !state.graph.filter.key(&k) {
        return false;
    }
    state.graph.selected = 0;
    inspect_selected(state, fx);
    true
}

/// The inspector follows the cursor: a selected neighbour is read for it
/// (the newest selection wins); the centre's own is in the neighbourhood.
pub fn inspect_selected(state: &mut AppState, fx: &mut Vec<Effect>) {
    let name = match selected(&state.graph) {
        Some(Selected::Node(name)) => name,
        _ => {
            state.graph.inspected = None;
            return;
        }
    };
    if matches!(&state.graph.inspected, Some(Ok(i)) if i.name == name) {
        return;
    }
    let Some(place) = state.graph.place.as_ref().map(|p| p.around(name)) else {
        return;
    };
    let generation = state.next_generation();
    state.graph.inspect_generation = generation;
    state.graph.inspector_scroll = 0;
    request(fx, Request::Inspect { generation, place });
}

/// The worker's reading of a selected neighbour, if still wanted.
pub fn inspected(state: &mut AppState, generation: u64, result: Result<super::data::Inspector, String>) {
    if generation == state.graph.inspect_generation {
        state.graph.inspected = Some(result);
    }
}

pub fn graph_action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    graph_key(state, a, fx);
    inspect_selected(state, fx);
}

fn graph_key(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    let n = rows::items(&rows::current(&state.graph)).len();
    let page = usize::from(crate::app::layout::list_height(state.size)).max(1);
    let g = &mut state.graph;
    let before = g.selected;
    match a {
        Action::Up => g.selected = before.saturating_sub(1),
        Action::Down => g.selected = (before + 1).min(n.saturating_sub(1)),
        Action::PageUp => g.selected = before.saturating_sub(page),
        Action::PageDown => g.selected = (before + page).min(n.saturating_sub(1)),
        Action::Top => g.selected = 0,
        Action::Bottom => g.selected = n.saturating_sub(1),
        Action::CardUp => g.inspector_scroll = g.inspector_scroll.saturating_sub(3),
        Action::CardDown => g.inspector_scroll = g.inspector_scroll.saturating_add(3),
        Action::Jump => dialogs::open_jump(state),
        Action::Recentre => match selected(g) {
            Some(Selected::Node(name)) => {
                let place = g.place.as_ref().map(|p| p.around(name.clone()));
                if let Some(place) = place {
                    go(state, place, fx);
                }
            }
            Some(Selected::Group(key)) => toggle(&mut g.opened, key),
            Some(Selected::Centre(name)) => state.info(format!("{name} is the centre; select a neighbour (j/k)")),
            None => state.error("nothing shown to recentre on"),
        },
        Action::ToggleBranch => match selected(g) {
            Some(Selected::Node(name)) => toggle(&mut g.folded, name),
            Some(Selected::Group(key)) => toggle(&mut g.opened, key),
            Some(Selected::Centre(_)) | None => state.error("select a neighbour or a group to fold"),
        },
        Action::Back => step(state, true, fx),
        Action::Forward => step(state, false, fx),
        Action::Deeper | Action::Shallower => {
            let depth = g.place.as_ref().map_or(0, |p| p.depth);
            let to = if a == Action::Deeper {
                (depth + 1).min(MAX_DEPTH)
            } else {
                depth.saturating_sub(1).max(1)
            };
            if depth > 0 && to == depth {
                state.info(format!("depth stays {depth} (from 1 to {MAX_DEPTH})"));
            } else {
                reshape(state, fx, |p| p.depth = to);
            }
        }
        Action::Direction => reshape(state, fx, |p| {
            p.direction = match p.direction {
                Direction::Both => Direction::Out,
                Direction::Out => Direction::In,
                Direction::In => Direction::Both,
            };
        }),
        Action::ShowInactive => reshape(state, fx, |p| p.inactive = !p.inactive),
        Action::FilterTypes => dialogs::open_facets(state, FacetKind::Types),
        Action::FilterRelations => dialogs::open_facets(state, FacetKind::Relations),
        Action::FilterRings => {
            if g.shown.is_none() {
                state.error("no node open: press / to jump to one");
            } else {
                g.filter.typing = true;
            }
        }
        Action::Mark => {
            let name = match selected(g) {
                Some(Selected::Node(name) | Selected::Centre(name)) => Some(name),
                _ => g.place.as_ref().map(|p| p.centre.clone()),
            };
            match name {
                Some(name) => {
                    state.info(format!("marked {name}: open another node and press p for the path"));
                    state.graph.mark = Some(name);
                }
                None => state.error("no node open to mark"),
            }
        }
        Action::Path => path(state, fx),
        Action::Export => dialogs::open_export(state),
        Action::AsOf => dialogs::open_as_of(state),
        Action::NewNode => curate_ui::new_node(state, fx),
        Action::EditNode => curate_ui::edit_node(state, fx),
        Action::Link => curate_ui::link(state, fx),
        Action::Unlink => curate_ui::unlink(state),
        Action::Deprecate => curate_ui::lifecycle(state, Status::Deprecated, fx),
        Action::Archive => curate_ui::lifecycle(state, Status::Archived, fx),
        Action::Restore => curate_ui::lifecycle(state, Status::Active, fx),
        Action::Supersede => curate_ui::supersede(state),
        Action::Curator => super::curator::open(state, fx),
        Action::Project => {
            let name = match selected(&state.graph) {
                Some(Selected::Node(name) | Selected::Centre(name)) => Some(name),
                _ => state.graph.place.as_ref().map(|p| p.centre.clone()),
            };
            match name {
                Some(name) => {
                    crate::app::effect::go(fx, Go::Project(crate::app::subject::Subject::Node { name, depth: 2 }))
                }
                None => state.error("no node open: press / to jump to one"),
            }
        }
        Action::History => {
            let name = match selected(&state.graph) {
                Some(Selected::Node(name) | Selected::Centre(name)) => Some(name),
                _ => state.graph.place.as_ref().map(|p| p.centre.clone()),
            };
            match name {
                Some(name) => dialogs::open_history(state, name, fx),
                None => state.error("no node open: press / to jump to one"),
            }
        }
        _ => {}
    }
}

/// What the selected row stands for, owned.
enum Selected {
    Centre(String),
    Node(String),
    Group((u32, String, String)),
}

fn selected(g: &Graph) -> Option<Selected> {
    rows::selected(g).map(|i| match i {
        Item::Centre { name, .. } => Selected::Centre(name.to_owned()),
        Item::Node { row, .. } => Selected::Node(row.name.clone()),
        Item::Group {
            distance,
            relation,
            arrow,
            ..
        } => Selected::Group(group_key(distance, relation, arrow)),
    })
}

fn toggle<T: Ord>(set: &mut std::collections::BTreeSet<T>, key: T) {
    if !set.remove(&key) {
        set.insert(key);
    }
}

/// Back (or forward) one place, with the walk it had.
fn step(state: &mut AppState, back: bool, fx: &mut Vec<Effect>) {
    let g = &mut state.graph;
    let from = if back { &mut g.back } else { &mut g.forward };
    let Some(place) = from.pop() else {
        state.info(if back {
            "nothing to go back to"
        } else {
            "nothing to go forward to"
        });
        return;
    };
    g.remember();
    if let Some(current) = g.place.replace(place) {
        if back {
            g.forward.push(current);
        } else {
            g.back.push(current);
        }
    }
    fresh(g);
    // Back where the cursor was, with the folds and groups as they were.
    if let Some(view) = g.seen_before() {
        g.selected = view.selected;
        g.folded = view.folded;
        g.opened = view.opened;
        g.groups_decided = g.place.clone();
    }
    ask(state, fx);
}

fn path(state: &mut AppState, fx: &mut Vec<Effect>) {
    let g = &state.graph;
    let (Some(from), Some(place)) = (g.mark.clone(), g.place.clone()) else {
        state.error("mark a node first (m), then open another and press p");
        return;
    };
    if from == place.centre {
        state.error(format!("{from} is the centre itself: open another node for a path"));
        return;
    }
    let generation = state.next_generation();
    state.graph.path_generation = generation;
    let to = place.centre.clone();
    request(
        fx,
        Request::Path {
            generation,
            from,
            to,
            place,
        },
    );
}

/// The worker's neighbourhood for the current place.
pub fn shown(state: &mut AppState, generation: u64, result: Result<Neighbourhood, String>) {
    let g = &mut state.graph;
    if generation != g.generation || g.place.is_none() {
        return;
    }
    g.shown = Some(result);
    open_groups_that_fit(state);
    let g = &mut state.graph;
    let n = rows::items(&rows::current(g)).len();
    g.selected = g.selected.min(n.saturating_sub(1));
}

/// A place shown for the first time opens its ring groups when all of
/// them open still fit the list: nothing to unfold by hand. A place shown
/// again (the graph changed) keeps what the user opened and closed.
fn open_groups_that_fit(state: &mut AppState) {
    let list = super::view::areas(crate::app::layout::areas(state.size).main).1;
    let rows_shown = usize::from(list.height.saturating_sub(2));
    let g = &mut state.graph;
    let (Some(Ok(n)), Some(place)) = (&g.shown, &g.place) else {
        return;
    };
    if g.groups_decided.as_ref() == Some(place) {
        return;
    }
    g.groups_decided = Some(place.clone());
    let every: std::collections::BTreeSet<(u32, String, String)> = n
        .rings
        .iter()
        .flat_map(|ring| {
            ring.entries.iter().filter_map(move |e| match e {
                super::data::RingEntry::Group { relation, arrow, .. } => {
                    Some(group_key(ring.distance, relation, arrow.glyph()))
                }
                super::data::RingEntry::Node(_) => None,
            })
        })
        .collect();
    // Every group when all fit; else as many as fit, nearest ring first,
    // so a large neighbourhood shows names on its first screen.
    if !every.is_empty() && rows::lines(n, &g.folded, &every, &Default::default()).len() <= rows_shown {
        g.opened.extend(every);
        return;
    }
    // Room kept for what follows the rings (nodes pending proposals add).
    let rows_shown = rows_shown.saturating_sub(if n.proposed.is_empty() { 0 } else { n.proposed.len() + 2 });
    let mut opened = g.opened.clone();
    for group in every {
        opened.insert(group.clone());
        if rows::lines(n, &g.folded, &opened, &Default::default()).len() > rows_shown {
            opened.remove(&group);
        }
    }
    g.opened = opened;
}

pub fn path_found(state: &mut AppState, generation: u64, result: Result<PathView, String>) {
    if generation == state.graph.path_generation {
        state.graph.path = Some(result);
    }
}

pub fn history(state: &mut AppState, generation: u64, result: Result<HistoryView, String>) {
    if let Some(Popup::History(h)) = state.popups.last_mut()
        && h.generation == generation
    {
        h.selected = result.as_ref().map_or(0, |v| v.versions.len().saturating_sub(1));
        h.view = Some(result);
    }
}

pub fn jumped(state: &mut AppState, generation: u64, hits: Vec<JumpHit>) {
    dialogs::jumped(state, generation, hits);
}

/// The graph changed or the level did: what the pane shows is read again.
pub fn changed(state: &mut AppState, fx: &mut Vec<Effect>) {
    if state.graph.place.is_some() {
        ask(state, fx);
    }
    super::curator::changed(state, fx);
}

/// The pane shown with no node open: it starts on the best connected node
/// the level reads, so there is something to browse at once. The
/// Projection pane shown with nothing projected starts on the same node
/// (the Graph pane's centre once there is one): its first screen already
/// answers "what does each tier receive around the centre".
pub fn entered(state: &mut AppState, fx: &mut Vec<Effect>) {
    if state.level.is_none() || state.busy.is_some() {
        return;
    }
    let projection_empty = state.pane == Pane::Projection && state.projection.spec.is_none();
    if projection_empty && let Some(centre) = state.graph.place.as_ref().map(|p| p.centre.clone()) {
        project_start(centre, fx);
        return;
    }
    let g = &mut state.graph;
    if !(state.pane == Pane::Graph || projection_empty) || g.place.is_some() || g.started {
        return;
    }
    g.started = true;
    request(fx, Request::Start);
}

fn project_start(name: String, fx: &mut Vec<Effect>) {
    let subject = crate::app::subject::Subject::Node { name, depth: 2 };
    crate::app::effect::go(fx, Go::Project(subject));
}

/// The worker's starting node, if the pane that asked is still empty.
pub fn start(state: &mut AppState, name: Option<String>, fx: &mut Vec<Effect>) {
    match name {
        Some(name) if state.graph.place.is_none() && state.pane == Pane::Projection => {
            // Kept for the Graph pane, which opens on it when shown.
            state.graph.place = Some(Place::new(name.clone()));
            ask(state, fx);
            if state.projection.spec.is_none() {
                project_start(name, fx);
            }
        }
        Some(name) if state.graph.place.is_none() => open(state, &name, fx),
        Some(_) => {}
        None => state.info("the graph is empty at this level: n adds a node"),
    }
}
