//! The Projection pane as the shell sees it: keys, replies and drawing
//! routed to the pane's own modules.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{exposure, review_ui, update, view};
use crate::app::action::{Action, Pane};
use crate::app::component::{Component, Notice, commands, fixed, keyed};
use crate::app::effect::{Effect, Go};
use crate::app::layout::Areas;
use crate::app::state::{AppState, Popup};
use crate::app::worker::Reply;
use crate::widgets::ToneStyles;

/// The Projection pane.
pub struct ProjectionComponent;

impl Component for ProjectionComponent {
    fn pane(&self) -> Pane {
        Pane::Projection
    }

    fn go(&self, state: &mut AppState, place: Go, fx: &mut Vec<Effect>) {
        if let Go::Project(subject) = place {
            update::open(state, subject, fx);
        }
    }

    fn key(&self, state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        match state.popups.last() {
            Some(p) if self.owns(p) => {
                update::dialog_key(state, k, fx);
                true
            }
            Some(_) => false,
            None => exposure::key(state, &k) || super::audit_filter::key(state, &k),
        }
    }

    fn action(&self, state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
        update::projection_action(state, a, fx);
    }

    fn reply(&self, state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) -> Option<Reply> {
        match r {
            Reply::ExposureReport { generation, result } => review_ui::exposure_answer(state, generation, result),
            Reply::AuditList { generation, result } => review_ui::audit_answer(state, generation, result),
            Reply::Replayed { generation, result } => review_ui::replayed(state, generation, result),
            Reply::Previewed { generation, result } => update::shown(state, generation, *result),
            Reply::RangeOpened { label, result } => super::range::opened(state, &label, result, fx),
            // The Graph pane's form asks for exposures too: only the
            // what-if's own answer is this pane's.
            Reply::Exposure { generation, result } => {
                if !update::what_if_answer(state, generation, &result) {
                    return Some(Reply::Exposure { generation, result });
                }
            }
            other => return Some(other),
        }
        None
    }

    fn notice(&self, state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
        match n {
            Notice::Opened(_) => {
                super::range::ask(state, fx);
                update::changed(state, fx);
            }
            Notice::GraphChanged => update::changed(state, fx),
            Notice::Lock => state.projection.wipe(),
            Notice::Settled if state.projection.stale && state.pane == Pane::Projection => update::changed(state, fx),
            Notice::Refresh | Notice::Settled => {}
        }
    }

    fn draw(&self, buf: &mut Buffer, state: &AppState, styles: &ToneStyles, areas: &Areas) {
        view::projection(buf, state, styles, areas.main);
    }

    fn draw_popup(&self, buf: &mut Buffer, _state: &AppState, popup: &Popup, styles: &ToneStyles, main: Rect) {
        view::popup(buf, popup, styles, main);
    }

    fn hints(&self, state: &AppState) -> Vec<(String, String)> {
        match state.popups.last() {
            Some(Popup::AgentId { .. }) => fixed(&[("enter", "set"), ("esc", "cancel")]),
            _ => match state.projection.review.view {
                review_ui::View::Exposure => exposure::hints(state),
                review_ui::View::Audit if state.projection.review.af.typing => {
                    fixed(&[("type", "to filter"), ("enter", "keep"), ("esc", "clear")])
                }
                review_ui::View::Audit if review_ui::comparing(&state.projection.review) => keyed(
                    state,
                    &[
                        (Action::NextChange, "next change"),
                        (Action::PrevChange, "prev change"),
                        (
                            Action::ChangesOnly,
                            if state.projection.review.replay_folded {
                                "every line"
                            } else {
                                "changes only"
                            },
                        ),
                        (Action::CardDown, "diff ↓"),
                        (Action::CardUp, "diff ↑"),
                        (Action::ReviewOpen, "replay / diff"),
                        (Action::AuditMark, "mark"),
                        (Action::ShowAudit, "back"),
                    ],
                ),
                review_ui::View::Audit if state.projection.review.replay.is_some() => keyed(
                    state,
                    &[
                        (Action::CardDown, "replay ↓"),
                        (Action::CardUp, "replay ↑"),
                        (Action::ReviewOpen, "replay / diff"),
                        (Action::AuditMark, "mark"),
                        (Action::ChooseSubject, "filter"),
                        (Action::NextTier, "scroll →"),
                        (Action::ShowAudit, "back"),
                    ],
                ),
                review_ui::View::Audit => keyed(
                    state,
                    &[
                        (Action::ChooseSubject, "filter"),
                        (Action::NextTier, "scroll →"),
                        (Action::PrevTier, "scroll ←"),
                        (Action::ReviewOpen, "replay / diff"),
                        (Action::AuditMark, "mark"),
                        (Action::AuditAgent, "agent"),
                        (Action::AuditSince, "since"),
                        (Action::ShowAudit, "back"),
                    ],
                ),
                review_ui::View::Previews if state.projection.diff.is_some() => keyed(
                    state,
                    &[
                        (Action::NextChange, "next change"),
                        (Action::PrevChange, "prev change"),
                        (
                            Action::ChangesOnly,
                            if state.projection.changes_only {
                                "every line"
                            } else {
                                "changes only"
                            },
                        ),
                        (Action::CycleTierDiff, "diff pair"),
                        (Action::ToggleTierDiff, "back"),
                    ],
                ),
                // The previews: every key but the diff's own.
                review_ui::View::Previews => commands(state, self.pane())
                    .into_iter()
                    .filter(|(_, hint)| {
                        ![Action::NextChange, Action::PrevChange, Action::ChangesOnly]
                            .iter()
                            .any(|a| a.info().hint == hint)
                    })
                    .collect(),
            },
        }
    }
}
