//! The queue as the shell sees it: keys, clicks, replies and drawing routed
//! to the queue's own modules.

use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};

use super::{dialog_view, dialogs, layout, update, view};
use crate::app::action::{Action, Pane};
use crate::app::component::{Component, Notice, commands, fixed};
use crate::app::effect::{Effect, request};
use crate::app::layout::{Areas, areas};
use crate::app::state::{AppState, Confirmed, Popup};
use crate::app::worker::{Reply, Request};
use crate::widgets::ToneStyles;

/// The proposal queue pane.
pub struct QueueComponent;

impl Component for QueueComponent {
    fn pane(&self) -> Pane {
        Pane::Queue
    }

    fn key(&self, state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        match state.popups.last() {
            Some(p) if self.owns(p) => {
                dialogs::key(state, k, fx);
                true
            }
            _ => false,
        }
    }

    fn paste(&self, state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
        dialogs::paste(state, text, fx);
    }

    fn mouse(&self, state: &mut AppState, m: MouseEvent, fx: &mut Vec<Effect>) {
        if let Some(top) = state.popups.last() {
            // The wheel moves the editor's text; the other dialogs take keys only.
            if let Popup::Editor(_) = top {
                match m.kind {
                    MouseEventKind::ScrollDown => dialogs::editor_move(state, 3),
                    MouseEventKind::ScrollUp => dialogs::editor_move(state, -3),
                    _ => {}
                }
            }
            return;
        }
        let a = areas(state.size);
        let inside = |r: Rect| r.contains(Position::new(m.column, m.row));
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) if inside(a.list) => {
                let rows = layout::queue_rows(state);
                let inner_top = a.list.y + 1;
                let height = usize::from(a.list.height.saturating_sub(2));
                let sel = layout::selected_row(state, &rows);
                let first = crate::widgets::grouped_list::offset(sel, height, rows.len());
                let row = first + usize::from(m.row.saturating_sub(inner_top));
                if let Some(item) = layout::item_at(&rows, row)
                    && state.queue.selected != item
                {
                    state.queue.selected = item;
                    update::selection_changed(state, fx);
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                let act = match (inside(a.card), down) {
                    (true, true) => Action::CardDown,
                    (true, false) => Action::CardUp,
                    (false, true) => Action::Down,
                    (false, false) => Action::Up,
                };
                update::queue_action(state, act, fx);
            }
            _ => {}
        }
    }

    fn action(&self, state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
        update::queue_action(state, a, fx);
    }

    fn confirmed(&self, state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
        dialogs::confirmed(state, then, fx);
    }

    fn edited(&self, state: &mut AppState, result: Result<String, String>, fx: &mut Vec<Effect>) {
        dialogs::edited(state, result, fx);
    }

    fn reply(&self, state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) -> Option<Reply> {
        match r {
            Reply::Sealed {
                pending,
                contradictions,
                contradictions_total,
            } => update::sealed(state, pending, contradictions, contradictions_total),
            Reply::Queue(snapshot) => update::loaded(state, snapshot, fx),
            Reply::Lints(found) => update::lints(state, found),
            Reply::Impact { generation, id, result } => update::impact(state, generation, id, result),
            other => return dialogs::reply(state, other),
        }
        None
    }

    fn notice(&self, state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
        match n {
            Notice::Refresh => request(fx, Request::LoadQueue),
            Notice::Lock => state.queue.wipe(),
            Notice::Opened(_) | Notice::GraphChanged | Notice::Settled => {}
        }
    }

    fn draw(&self, buf: &mut Buffer, state: &AppState, styles: &ToneStyles, areas: &Areas) {
        view::queue(buf, state, styles, areas.list, areas.card);
    }

    fn draw_popup(&self, buf: &mut Buffer, _state: &AppState, popup: &Popup, styles: &ToneStyles, main: Rect) {
        dialog_view::popup(buf, popup, styles, main);
    }

    fn hints(&self, state: &AppState) -> Vec<(String, String)> {
        match state.popups.last() {
            Some(Popup::Editor(_)) => fixed(&[
                ("ctrl-s", "accept the edit"),
                ("esc", "cancel"),
                ("ctrl-e", "$EDITOR"),
                ("ctrl-z", "undo"),
                ("ctrl-y", "redo"),
                ("ctrl-q", "quit"),
            ]),
            Some(Popup::Stale { edit, .. }) => {
                let mut h = fixed(&[("f", "accept anyway")]);
                if edit.is_none() {
                    h.push(("e".into(), "edit".into()));
                }
                h.push(("esc".into(), "cancel".into()));
                h
            }
            Some(Popup::Merge(_)) => fixed(&[("a", "accept the merge"), ("e", "edit it first"), ("esc", "back")]),
            Some(Popup::ChangesComment { .. }) => {
                fixed(&[("tab", "whole / one change"), ("enter", "send"), ("esc", "cancel")])
            }
            Some(Popup::KeepReason { .. }) => fixed(&[("enter", "continue"), ("esc", "cancel")]),
            Some(Popup::Reason { .. }) => fixed(&[
                ("↑↓", "earlier reasons and suggestions"),
                ("enter", "confirm"),
                ("esc", "cancel"),
            ]),
            _ if state.queue.current_contradiction().is_some() => super::resolve::hints(state),
            _ => {
                // A contradiction's keys are offered on a contradiction only.
                let own: Vec<&str> = crate::app::action::ALL
                    .iter()
                    .filter(|i| super::resolve::resolves(i.action))
                    .map(|i| i.hint)
                    .collect();
                let mut h = commands(state, self.pane());
                h.retain(|(_, hint)| !own.contains(&hint.as_str()));
                // Merge leads on a near-duplicate, and is offered nowhere else.
                let merge = Action::MergeDuplicate.info().hint;
                let at = h.iter().position(|(_, hint)| hint == merge);
                if let Some(m) = at.map(|i| h.remove(i))
                    && state
                        .queue
                        .current()
                        .is_some_and(|i| super::near_duplicate_of(i).is_some())
                {
                    h.insert(0, m);
                }
                // Locked: what can run, led by the key that unlocks.
                if state.level.unwrap_or(graphex_engine::Level::Locked) < graphex_engine::Level::Master {
                    let decides: Vec<&str> = [
                        Action::Accept,
                        Action::Reject,
                        Action::Edit,
                        Action::RequestChanges,
                        Action::AcceptSelection,
                        Action::RejectSelection,
                        Action::ToggleSelect,
                        Action::PreviewImpact,
                    ]
                    .iter()
                    .map(|a| a.info().hint)
                    .collect();
                    h.retain(|(_, hint)| !decides.contains(&hint.as_str()));
                    let mut unlock = crate::app::component::keyed(state, &[(Action::Unlock, "unlock")]);
                    unlock.append(&mut h);
                    h = unlock;
                }
                h
            }
        }
    }
}
