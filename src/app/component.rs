//! The one interface between the shell and a pane (after helix's and
//! gitui's `Component`): the shell routes keys, pastes, clicks, actions,
//! worker replies, drawing and hints through it, and never names what is
//! inside a pane. A pane owns the dialogs it opens: their keys, drawing and
//! hints come back to it through the same calls.
//!
//! The state stays one `AppState` (a pane's work often touches the popup
//! stack, the status line or another pane's state), so the methods take it
//! whole; the implementors are unit types that carry no state themselves.

use crossterm::event::{KeyEvent, MouseEvent};
use graphex_engine::Level;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::action::{ALL, Action, Pane, Scope};
use super::effect::{Effect, Go};
use super::layout::Areas;
use super::state::{AppState, Confirmed, Popup};
use super::worker::Reply;
use crate::widgets::ToneStyles;

/// Something every pane may want to know, sent to each in `Pane::ALL`
/// order (so their requests keep one order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The store opened, or was reopened at another level.
    Opened(Level),
    /// The graph changed under the panes (a write, an accept, a poll).
    GraphChanged,
    /// The user asked for everything to be read again.
    Refresh,
    /// Locking: decrypted content leaves each pane's state now.
    Lock,
    /// A message has been applied; a pane that loads lazily may ask now.
    Settled,
}

/// A pane, as the shell sees it.
pub trait Component: Sync {
    /// The tab this component is.
    fn pane(&self) -> Pane;

    /// Whether `popup` is one of this pane's dialogs; its keys, pastes,
    /// clicks, drawing and hints then come here.
    fn owns(&self, popup: &Popup) -> bool {
        popup.pane() == Some(self.pane())
    }

    /// A key: for the dialog on top when this pane owns it, else for the
    /// focused pane before the keymap (true when taken; an untaken key
    /// goes to the keymap).
    fn key(&self, state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        let _ = (state, k, fx);
        false
    }

    /// Pasted text, for the dialog on top when this pane owns it.
    fn paste(&self, state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
        let _ = (state, text, fx);
    }

    /// A click or the wheel: for the dialog on top when this pane owns it,
    /// else for the focused pane (the tab bar's clicks are the shell's).
    fn mouse(&self, state: &mut AppState, m: MouseEvent, fx: &mut Vec<Effect>) {
        let _ = (state, m, fx);
    }

    /// An action of this pane's scope (from a key, the palette or help).
    fn action(&self, state: &mut AppState, a: Action, fx: &mut Vec<Effect>);

    /// A line typed into the palette that this pane reads (`graph NAME`);
    /// true when it was this pane's.
    fn command(&self, state: &mut AppState, line: &str, fx: &mut Vec<Effect>) -> bool {
        let _ = (state, line, fx);
        false
    }

    /// A line being typed into the palette: when this pane reads it, it
    /// asks for what the line would do (the node `graph NAME` opens) and
    /// returns true; the answer comes back as a reply to this pane.
    fn preview(&self, state: &mut AppState, line: &str, fx: &mut Vec<Effect>) -> bool {
        let _ = (state, line, fx);
        false
    }

    /// Opens `place`, which another pane asked for (`Effect::Go`); the shell
    /// sends it to the pane that `Go::pane` names.
    fn go(&self, state: &mut AppState, place: Go, fx: &mut Vec<Effect>) {
        let _ = (state, place, fx);
    }

    /// What a confirmation this pane asked for leads to, once confirmed.
    fn confirmed(&self, state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
        let _ = (state, then, fx);
    }

    /// A worker reply: this pane takes the ones addressed to it and hands
    /// the others back.
    fn reply(&self, state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) -> Option<Reply>;

    /// The text an external editor left (or why there is none), for this
    /// pane's dialog on top that handed it over (`Effect::ExternalEdit`).
    fn edited(&self, state: &mut AppState, result: Result<String, String>, fx: &mut Vec<Effect>) {
        let _ = (state, result, fx);
    }

    /// See [`Notice`].
    fn notice(&self, state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
        let _ = (state, n, fx);
    }

    /// Draws the pane in its areas.
    fn draw(&self, buf: &mut Buffer, state: &AppState, styles: &ToneStyles, areas: &Areas);

    /// Draws `popup`, one of this pane's dialogs, over `main`.
    fn draw_popup(&self, buf: &mut Buffer, state: &AppState, popup: &Popup, styles: &ToneStyles, main: Rect) {
        let _ = (buf, state, popup, styles, main);
    }

    /// The hint bar's keys: those of this pane's dialog on top, else the
    /// pane's commands (the shell adds the global ones after them).
    fn hints(&self, state: &AppState) -> Vec<(String, String)> {
        commands(state, self.pane())
    }
}

/// A pane's commands for the hint bar, generated from the action table and
/// the keymap: one key per hint, the first bound.
pub fn commands(state: &AppState, pane: Pane) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for info in ALL.iter().filter(|i| i.scope == Scope::Pane(pane)) {
        if !seen.insert(info.hint) {
            continue;
        }
        if let Some(k) = state.keymap.keys_of(info.action).first() {
            out.push((k.clone(), info.hint.to_owned()));
        }
    }
    out
}

/// Hints for a view's own keys, each as the keymap binds it (an action
/// left unbound is left out).
pub fn keyed(state: &AppState, pairs: &[(Action, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter_map(|(a, label)| Some((state.keymap.keys_of(*a).first()?.clone(), (*label).to_owned())))
        .collect()
}

/// Fixed hints, as the dialogs list them.
pub fn fixed(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, l)| ((*k).to_owned(), (*l).to_owned())).collect()
}
