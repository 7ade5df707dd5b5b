//! The pure heart of the console: `update(state, msg) -> effects`. No I/O:
//! requests to the engine are returned as effects, replies come back as
//! messages. Dialogs on the popup stack see keys before the panes (their
//! keys are in `dialog_keys`).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use graphex_engine::Level;
use zeroize::Zeroizing;

use super::action::{Action, Pane, Scope};
use super::dialog_keys::{editor_move, paste, popup_key, quit_asked};
use super::layout;
use super::panes::graph::update::graph_action;
use super::panes::queue::update::{queue_action, selection_changed};
use super::panes::{graph, projection, query, queue};
use super::state::{AppState, Confirmed, Popup};
use super::worker::{Reply, Request};

/// What reaches `update`.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    Action(Action),
    Reply(Reply),
}

/// What `update` asks the loop to do.
#[derive(Debug)]
pub enum Effect {
    Request(Request),
    /// Clear the whole terminal before the next draw (after a lock).
    ClearScreen,
    /// Put this text on the clipboard (OSC 52: the terminal does it, over
    /// ssh and tmux too).
    Clipboard(String),
    Quit,
}

/// Applies `msg` to `state`.
pub fn update(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(k) if k.kind == KeyEventKind::Release => {}
        Msg::Key(k) => key(state, k, &mut fx),
        Msg::Mouse(m) => mouse(state, m, &mut fx),
        Msg::Paste(text) => paste(state, &text, &mut fx),
        Msg::Resize(w, h) => state.size = (w, h),
        Msg::Action(a) => action(state, a, &mut fx),
        Msg::Reply(r) => reply(state, r, &mut fx),
    }
    graph::update::entered(state, &mut fx);
    fx
}

pub(crate) fn request(fx: &mut Vec<Effect>, r: Request) {
    fx.push(Effect::Request(r));
}

fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    if !state.popups.is_empty() {
        popup_key(state, k, fx);
        return;
    }
    if state.pane == Pane::Query && state.query.editing && query::update::editor_key(state, k, fx) {
        return;
    }
    if let Some(a) = state.keymap.action(state.pane, &k) {
        action(state, a, fx);
    }
}

pub(super) fn confirmed(state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
    match then {
        Confirmed::AcceptMany(ids) => {
            state.busy = Some(format!("accepting {} proposals", ids.len()));
            clear_marks(state, &ids);
            request(fx, Request::AcceptMany { ids });
        }
        Confirmed::RejectMany(ids, reason) => {
            state.busy = Some(format!("rejecting {} proposals", ids.len()));
            clear_marks(state, &ids);
            request(fx, Request::Reject { ids, reason });
        }
        Confirmed::Quit => {
            state.quit = true;
            fx.push(Effect::Quit);
        }
        Confirmed::Write(w) => graph::curate_ui::write(state, *w, fx),
        Confirmed::DiscardForm => {
            if let Some(Popup::NodeForm(_)) = state.popups.last()
                && let Some(Popup::NodeForm(f)) = state.popups.pop()
            {
                f.wipe();
            }
            state.info("form discarded; nothing written");
        }
        Confirmed::DiscardEdit => {
            if let Some(Popup::Editor(_)) = state.popups.last() {
                state.popups.pop();
            }
            state.info("edit discarded");
        }
    }
}

fn clear_marks(state: &mut AppState, ids: &[String]) {
    for id in ids {
        state.queue.marked.remove(id);
    }
}

/// Runs an action (from a key, the palette or a click).
pub fn action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    if let Scope::Pane(p) = a.info().scope
        && p != state.pane
    {
        state.error(format!("{} works in the {} pane", a.name(), p.title()));
        return;
    }
    match a {
        Action::Quit => quit_asked(state, fx),
        Action::ForceQuit => {
            state.quit = true;
            fx.push(Effect::Quit);
        }
        Action::Help => state.popups.push(Popup::Help {
            filter: String::new(),
            selected: 0,
        }),
        Action::Palette => state.popups.push(Popup::Palette {
            input: String::new(),
            selected: 0,
        }),
        Action::NextPane | Action::PrevPane => {
            let i = Pane::ALL.iter().position(|p| *p == state.pane).unwrap_or(0);
            let n = Pane::ALL.len();
            let j = if a == Action::NextPane {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            state.pane = Pane::ALL[j];
        }
        Action::ShowQueue => state.pane = Pane::Queue,
        Action::ShowGraph => state.pane = Pane::Graph,
        Action::ShowQuery => state.pane = Pane::Query,
        Action::ShowProjection => state.pane = Pane::Projection,
        Action::Unlock | Action::UnlockHuman => {
            let level = state.level.unwrap_or(Level::Locked);
            let human = a == Action::UnlockHuman || level >= Level::Master;
            if state.busy.as_deref().is_some_and(|b| b.starts_with("unlocking")) {
                state.error("still unlocking; wait for it to finish");
            } else if level >= Level::Human {
                state.info("already unlocked at every level (L locks)");
            } else if human && level < Level::Master {
                state.error("unlock the master level first (U)");
            } else {
                state.popups.push(Popup::Unlock {
                    human,
                    input: Zeroizing::new(String::new()),
                    error: None,
                    busy: false,
                });
            }
        }
        Action::Lock => {
            // Lock and clear: decrypted content leaves the state at once, not
            // when the engine answers; the editor's text is wiped, and the
            // whole screen is cleared, not just redrawn over.
            for p in state.popups.drain(..) {
                match p {
                    Popup::Editor(ed) => ed.wipe(),
                    Popup::NodeForm(f) => f.wipe(),
                    _ => {}
                }
            }
            state.queue.wipe();
            state.graph.wipe();
            state.query.wipe();
            state.projection.wipe();
            state.busy = Some("locking".into());
            state.info("locked: decrypted content wiped from memory and the screen");
            request(fx, Request::Lock);
            fx.push(Effect::ClearScreen);
        }
        Action::Undo => {
            if needs_master(state) && not_busy(state) {
                state.busy = Some("undoing".into());
                request(fx, Request::Undo);
            }
        }
        Action::Refresh => {
            request(fx, Request::LoadQueue);
            graph::update::changed(state, fx);
        }
        _ => match state.pane {
            Pane::Queue => queue_action(state, a, fx),
            Pane::Graph => graph_action(state, a, fx),
            Pane::Query => query::update::query_action(state, a, fx),
            Pane::Projection => projection::update::projection_action(state, a, fx),
        },
    }
}

/// One write at a time: a decision waits until the last one has come back
/// with the queue as it is now.
pub(crate) fn not_busy(state: &mut AppState) -> bool {
    match state.busy.clone() {
        Some(b) => {
            state.error(format!("still {b}; try again when it is done"));
            false
        }
        None => true,
    }
}

pub(crate) fn needs_master(state: &mut AppState) -> bool {
    if state.level.unwrap_or(Level::Locked) < Level::Master {
        state.error(if state.pane == Pane::Queue {
            "proposals are sealed to the master key: press U to unlock"
        } else {
            "changing the graph takes the master level: press U to unlock"
        });
        return false;
    }
    true
}

fn mouse(state: &mut AppState, m: MouseEvent, fx: &mut Vec<Effect>) {
    if !state.mouse {
        return;
    }
    if !state.popups.is_empty() {
        // The wheel moves the editor's text or a list's choice; other
        // dialogs take keys only.
        let down = match m.kind {
            MouseEventKind::ScrollDown => true,
            MouseEventKind::ScrollUp => false,
            _ => return,
        };
        let code = if down { KeyCode::Down } else { KeyCode::Up };
        match state.popups.last() {
            Some(Popup::Editor(_)) => editor_move(state, if down { 3 } else { -3 }),
            Some(Popup::Help { .. } | Popup::Palette { .. } | Popup::Jump(_) | Popup::Facets(_)) => {
                popup_key(state, KeyEvent::new(code, KeyModifiers::NONE), fx);
            }
            _ => {}
        }
        return;
    }
    let areas = layout::areas(state.size);
    let inside = |r: ratatui::layout::Rect| r.contains(ratatui::layout::Position::new(m.column, m.row));
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            if inside(areas.tabs) {
                if let Some(i) = crate::widgets::bars::TabBar::hit(&layout::tab_titles(state), m.column) {
                    state.pane = Pane::ALL[i];
                }
            } else if state.pane == Pane::Queue && inside(areas.list) {
                let rows = queue::layout::queue_rows(state);
                let inner_top = areas.list.y + 1;
                let height = usize::from(areas.list.height.saturating_sub(2));
                let sel = queue::layout::selected_row(state, &rows);
                let first = crate::widgets::grouped_list::offset(sel, height, rows.len());
                let row = first + usize::from(m.row.saturating_sub(inner_top));
                if let Some(item) = queue::layout::item_at(&rows, row)
                    && state.queue.selected != item
                {
                    state.queue.selected = item;
                    selection_changed(state, fx);
                }
            }
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp if state.pane == Pane::Queue => {
            let down = m.kind == MouseEventKind::ScrollDown;
            let a = match (inside(areas.card), down) {
                (true, true) => Action::CardDown,
                (true, false) => Action::CardUp,
                (false, true) => Action::Down,
                (false, false) => Action::Up,
            };
            queue_action(state, a, fx);
        }
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp if state.pane == Pane::Graph => {
            let down = m.kind == MouseEventKind::ScrollDown;
            let inspector = graph::view::areas(areas.main).2;
            let a = match (inside(inspector), down) {
                (true, true) => Action::CardDown,
                (true, false) => Action::CardUp,
                (false, true) => Action::Down,
                (false, false) => Action::Up,
            };
            graph_action(state, a, fx);
        }
        _ => {}
    }
}

fn reply(state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) {
    match r {
        Reply::Opened { level, root } => {
            state.level = Some(level);
            state.rolled_back = None;
            state.store = root;
            state.busy = None;
            // Unlocked or reopened: the panes are drawn from what this level reads.
            graph::update::changed(state, fx);
            if level >= Level::Master {
                request(fx, Request::SavedQueries);
            }
            projection::update::changed(state, fx);
        }
        Reply::RolledBack(text) => {
            state.error(text.clone());
            state.rolled_back = Some(text);
        }
        Reply::OpenFailed(e) => {
            state.busy = None;
            state.error(e);
        }
        Reply::Sealed { pending } => queue::update::sealed(state, pending),
        Reply::Queue(snapshot) => queue::update::loaded(state, snapshot, fx),
        Reply::Lints(found) => queue::update::lints(state, found),
        Reply::Impact { generation, id, result } => queue::update::impact(state, generation, id, result),
        Reply::Validated { generation, result } => {
            if let Some(Popup::Editor(ed)) = state.popups.last_mut()
                && ed.generation == generation
            {
                ed.validation = Some(result);
            }
        }
        Reply::Done(text) => {
            state.busy = None;
            state.info(text);
        }
        Reply::Failed(text) => {
            state.busy = None;
            state.error(text);
        }
        Reply::Stale { id, versions, edit } => {
            state.busy = None;
            let edit = match state.popups.last_mut() {
                Some(Popup::Editor(ed)) if edit => {
                    ed.saving = false;
                    Some(ed.text())
                }
                _ => None,
            };
            state.popups.push(Popup::Stale { id, versions, edit });
        }
        Reply::EditSaved(text) => {
            state.busy = None;
            if let Some(Popup::Editor(_)) = state.popups.last() {
                state.popups.pop();
            }
            state.info(text);
        }
        Reply::EditFailed(text) => {
            state.busy = None;
            if let Some(Popup::Editor(ed)) = state.popups.last_mut() {
                ed.saving = false;
                ed.error = Some(format!("not saved: {text}"));
            } else {
                state.error(text);
            }
        }
        Reply::Unlocked(level) => {
            state.busy = None;
            if let Some(Popup::Unlock { .. }) = state.popups.last() {
                state.popups.pop();
            }
            state.info(format!("unlocked: {}", layout::level_name(level)));
        }
        Reply::Shown { generation, result } => graph::update::shown(state, generation, *result),
        Reply::Jumped { generation, hits } => graph::update::jumped(state, generation, hits),
        Reply::Path { generation, result } => graph::update::path_found(state, generation, result),
        Reply::History { generation, result } => graph::update::history(state, generation, result),
        Reply::GraphChanged => {
            graph::update::changed(state, fx);
            projection::update::changed(state, fx);
        }
        Reply::QueryHistory { generation, result } => query::update::history_answer(state, generation, result),
        Reply::SavedList(names) => state.query.saved = names,
        Reply::SavedLoaded(result) => query::update::saved_loaded(state, result, fx),
        Reply::ExposureReport { generation, result } => {
            projection::review_ui::exposure_answer(state, generation, result);
        }
        Reply::AuditList { generation, result } => projection::review_ui::audit_answer(state, generation, result),
        Reply::Replayed { generation, result } => projection::review_ui::replayed(state, generation, result),
        Reply::Previewed { generation, result } => projection::update::shown(state, generation, *result),
        Reply::Start(name) => graph::update::start(state, name, fx),
        Reply::QueryResult { generation, result } => query::update::evaluated(state, generation, *result),
        Reply::Completed { generation, completion } => query::update::completed(state, generation, completion),
        Reply::Clipboard(text) => {
            state.info(format!("copied {} bytes to the clipboard", text.len()));
            fx.push(Effect::Clipboard(text));
        }
        Reply::Written { text, open } => graph::curate_ui::written(state, text, open, fx),
        Reply::WriteFailed(text) => graph::curate_ui::write_failed(state, text),
        Reply::NameChecked { generation, result } => graph::curate_ui::name_checked(state, generation, result),
        Reply::Vocabulary {
            generation,
            types,
            relations,
        } => graph::curate_ui::vocabulary(state, generation, types, relations),
        Reply::EditValues { name, result } => graph::curate_ui::edit_values(state, &name, result),
        Reply::Exposure { generation, result } => {
            if !projection::update::what_if_answer(state, generation, &result) {
                graph::curate_ui::exposure(state, generation, result);
            }
        }
        Reply::Curator { generation, result } => graph::curator::listed(state, generation, result),
        Reply::UnlockFailed(text) => {
            state.busy = None;
            if let Some(Popup::Unlock { error, busy, .. }) = state.popups.last_mut() {
                *busy = false;
                *error = Some(text);
            } else {
                state.error(text);
            }
        }
    }
}
