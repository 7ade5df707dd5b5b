//! The pure heart of the console: `update(state, msg) -> effects`. No I/O:
//! requests to the engine are returned as effects, replies come back as
//! messages. Dialogs on the popup stack see keys before the panes (the
//! shell's own in `dialog_keys`, a pane's in that pane); everything else
//! for a pane goes through its [`Component`](super::component::Component).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use graphex_engine::Level;
use zeroize::Zeroizing;

use super::action::{Action, Pane, Scope};
use super::component::Notice;
use super::dialog_keys::{paste, popup_key};
use super::layout;
use super::panes;
use super::quit::quit_asked;
use super::state::{AppState, Confirmed, Popup};
use super::worker::{Reply, Request};

pub(crate) use super::effect::request;
pub use super::effect::{Effect, Msg};

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
        // The external editor's text, for the dialog that handed it over.
        Msg::Edited(r) => {
            if let Some(owner) = state.popups.last().and_then(panes::owner) {
                owner.edited(state, r, &mut fx);
            }
        }
    }
    route(state, &mut fx);
    notify(state, Notice::Settled, &mut fx);
    route(state, &mut fx);
    fx
}

/// Opens each place a pane asked for (`Effect::Go`), where it stood among
/// the effects: the opened pane's own effects take its place, in order.
fn route(state: &mut AppState, fx: &mut Vec<Effect>) {
    let mut i = 0;
    while i < fx.len() {
        if !matches!(fx[i], Effect::Go(_)) {
            i += 1;
            continue;
        }
        let Effect::Go(place) = fx.remove(i) else {
            continue;
        };
        let mut opened = Vec::new();
        panes::of(place.pane()).go(state, place, &mut opened);
        fx.splice(i..i, opened);
    }
}

/// Tells every pane, in `Pane::ALL` order.
fn notify(state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
    for c in panes::ALL {
        c.notice(state, n, fx);
    }
}

fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    if !state.popups.is_empty() {
        popup_key(state, k, fx);
        return;
    }
    if panes::of(state.pane).key(state, k, fx) {
        return;
    }
    if let Some(a) = state.keymap.action(state.pane, &k) {
        action(state, a, fx);
    }
}

pub(super) fn confirmed(state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
    match then.pane() {
        Some(p) => panes::of(p).confirmed(state, then, fx),
        None => {
            state.quit = true;
            fx.push(Effect::Quit);
        }
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
        Action::Help => {
            // The keys of the view in focus first: what its hint bar offers.
            let focus = super::view::hints(state);
            state.popups.push(Popup::Help {
                filter: String::new(),
                selected: 0,
                focus,
            });
        }
        Action::Messages => state.popups.push(Popup::Messages { scroll: 0 }),
        Action::Palette => state.popups.push(Popup::Palette {
            input: String::new(),
            selected: 0,
            preview: None,
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
            notify(state, Notice::Lock, fx);
            state.busy = Some("locking".into());
            state.info("locked: decrypted content wiped from memory and the screen");
            request(fx, Request::Lock);
            fx.push(Effect::ClearScreen);
        }
        Action::Undo => {
            if state.needs_master() && state.not_busy() {
                state.busy = Some("undoing".into());
                request(fx, Request::Undo);
            }
        }
        Action::Redo => {
            if state.needs_master() && state.not_busy() {
                state.busy = Some("redoing".into());
                request(fx, Request::Redo);
            }
        }
        Action::Refresh => notify(state, Notice::Refresh, fx),
        _ => panes::of(state.pane).action(state, a, fx),
    }
}

fn mouse(state: &mut AppState, m: MouseEvent, fx: &mut Vec<Effect>) {
    if !state.mouse {
        return;
    }
    if let Some(top) = state.popups.last() {
        if let Some(owner) = panes::owner(top) {
            owner.mouse(state, m, fx);
            return;
        }
        // The wheel moves a list's choice; the shell's other dialogs take
        // keys only.
        let code = match m.kind {
            MouseEventKind::ScrollDown => KeyCode::Down,
            MouseEventKind::ScrollUp => KeyCode::Up,
            _ => return,
        };
        if let Popup::Help { .. } | Popup::Palette { .. } = top {
            popup_key(state, KeyEvent::new(code, KeyModifiers::NONE), fx);
        }
        return;
    }
    let tabs = layout::areas(state.size).tabs;
    if m.kind == MouseEventKind::Down(MouseButton::Left)
        && tabs.contains(ratatui::layout::Position::new(m.column, m.row))
    {
        if let Some(i) = crate::widgets::bars::TabBar::hit(&super::view::tab_titles(state), m.column) {
            state.pane = Pane::ALL[i];
        }
        return;
    }
    panes::of(state.pane).mouse(state, m, fx);
}

fn reply(state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) {
    match r {
        Reply::Opened { level, root } => {
            state.level = Some(level);
            state.rolled_back = None;
            state.store = root;
            state.busy = None;
            // Unlocked or reopened: the panes are drawn from what this level reads.
            notify(state, Notice::Opened(level), fx);
        }
        Reply::RolledBack(text) => {
            state.error(text.clone());
            state.rolled_back = Some(text);
        }
        Reply::OpenFailed(e) => {
            state.busy = None;
            state.error(e);
        }
        Reply::Done(text) => {
            state.busy = None;
            state.info(text);
        }
        Reply::Failed(text) => {
            state.busy = None;
            state.error(text);
        }
        Reply::Unlocked(level) => {
            state.busy = None;
            if let Some(Popup::Unlock { .. }) = state.popups.last() {
                state.popups.pop();
            }
            state.info(format!("unlocked: {}", layout::level_name(level)));
        }
        Reply::GraphChanged => notify(state, Notice::GraphChanged, fx),
        Reply::Clipboard(text) => {
            state.info(format!("copied {} bytes to the clipboard", text.len()));
            fx.push(Effect::Clipboard(text));
        }
        Reply::UnlockFailed(text) => {
            state.busy = None;
            if let Some(Popup::Unlock { error, busy, .. }) = state.popups.last_mut() {
                *busy = false;
                *error = Some(text);
            } else {
                state.error(text);
            }
        }
        // The rest are addressed to a pane; each takes its own and hands
        // the others on. One no pane takes is stale and dropped.
        mut other => {
            for c in panes::ALL {
                match c.reply(state, other, fx) {
                    Some(r) => other = r,
                    None => return,
                }
            }
        }
    }
}
