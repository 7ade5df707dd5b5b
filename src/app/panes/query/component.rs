//! The Query pane as the shell sees it: keys, replies and drawing routed
//! to the pane's own modules.

use crossterm::event::KeyEvent;
use graphex_engine::Level;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{update, view};
use crate::app::action::{Action, Pane};
use crate::app::component::{Component, Notice, commands, fixed};
use crate::app::effect::{Effect, request};
use crate::app::layout::Areas;
use crate::app::state::{AppState, Popup};
use crate::app::worker::{Reply, Request};
use crate::widgets::ToneStyles;

/// The Query pane.
pub struct QueryComponent;

impl Component for QueryComponent {
    fn pane(&self) -> Pane {
        Pane::Query
    }

    /// The pane's dialogs' keys; else, while the editor has focus, the
    /// editor takes the keys it knows before the keymap sees them.
    fn key(&self, state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        match state.popups.last() {
            Some(p) if self.owns(p) => {
                update::dialog_key(state, k, fx);
                true
            }
            Some(_) => false,
            None => state.query.editing && update::editor_key(state, k, fx),
        }
    }

    fn action(&self, state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
        update::query_action(state, a, fx);
    }

    fn reply(&self, state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) -> Option<Reply> {
        match r {
            Reply::QueryHistory { generation, result } => update::history_answer(state, generation, result),
            Reply::SavedList(names) => state.query.saved = names,
            Reply::SavedLoaded(result) => update::saved_loaded(state, result, fx),
            Reply::QueryResult { generation, result } => update::evaluated(state, generation, *result),
            Reply::Completed { generation, completion } => update::completed(state, generation, completion),
            other => return Some(other),
        }
        None
    }

    fn notice(&self, state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
        match n {
            // Saved queries are sealed like proposals: listed once readable.
            Notice::Opened(level) if level >= Level::Master => request(fx, Request::SavedQueries),
            Notice::Lock => state.query.wipe(),
            _ => {}
        }
    }

    fn draw(&self, buf: &mut Buffer, state: &AppState, styles: &ToneStyles, areas: &Areas) {
        view::query(buf, state, styles, areas.main);
    }

    fn draw_popup(&self, buf: &mut Buffer, _state: &AppState, popup: &Popup, styles: &ToneStyles, main: Rect) {
        view::popup(buf, popup, styles, main);
    }

    fn hints(&self, state: &AppState) -> Vec<(String, String)> {
        match state.popups.last() {
            Some(Popup::CopyAs) => fixed(&[("j", "JSON"), ("m", "Mermaid"), ("d", "DOT"), ("esc", "cancel")]),
            Some(Popup::QueryExport { .. }) => fixed(&[("enter", "export"), ("esc", "cancel")]),
            Some(Popup::SaveQuery { .. }) => fixed(&[("enter", "save"), ("esc", "cancel")]),
            Some(Popup::QueryHistory { .. }) => fixed(&[
                ("type", "to search"),
                ("↑↓", "choose"),
                ("enter", "load"),
                ("esc", "close"),
            ]),
            // The editor has the keys: its own, not the results'.
            _ if state.query.editing && state.query.popup.is_some() => fixed(&[
                ("tab", "take"),
                ("↑↓", "choose"),
                ("enter", "run"),
                ("ctrl-z", "undo"),
                ("esc", "close list"),
            ]),
            _ if state.query.editing => fixed(&[
                ("enter", "run"),
                ("tab", "complete"),
                ("ctrl-f", "fix"),
                ("ctrl-r", "history"),
                ("ctrl-t", "as tier"),
                ("esc", "results"),
            ]),
            _ => commands(state, self.pane()),
        }
    }
}
