//! Resolving a contradiction from the queue: the keys on a selected one
//! (keep the left, keep the right, mark both disputed), the reason a keep
//! asks for, and the confirmation each decision takes before the worker
//! writes it. Below the master level the contradiction is read-only.

use crossterm::event::{KeyCode, KeyEvent};
use graphex_engine::Level;

use super::contradiction::{ContradictionItem, Resolution, keep_reason};
use crate::app::action::Action;
use crate::app::effect::{Effect, Go, go, request};
use crate::app::state::{AppState, Confirmed, Popup};
use crate::app::text_input::edit_line;
use crate::app::worker::Request;

/// Whether `a` is one of the keys that resolve a contradiction.
pub fn resolves(a: Action) -> bool {
    matches!(a, Action::KeepLeft | Action::KeepRight | Action::MarkDisputed)
}

/// What the hint line offers on a contradiction.
pub fn hints(state: &AppState) -> Vec<(String, String)> {
    use crate::app::component::keyed;
    if state.level.unwrap_or(Level::Locked) < Level::Master {
        let mut h = keyed(state, &[(Action::Unlock, "unlock to resolve (read-only here)")]);
        h.extend(keyed(state, &[(Action::OpenNode, "open node")]));
        return h;
    }
    keyed(
        state,
        &[
            (Action::KeepLeft, "keep left"),
            (Action::KeepRight, "keep right"),
            (Action::MarkDisputed, "both disputed"),
            (Action::OpenNode, "open node"),
        ],
    )
}

/// A queue action with contradiction `c` selected.
pub fn action(state: &mut AppState, a: Action, c: &ContradictionItem, fx: &mut Vec<Effect>) {
    if !resolves(a) {
        match a {
            Action::OpenNode => go(fx, Go::Node(c.left.name.clone())),
            _ => state.error(
                "a contradiction is selected, not a proposal: keep one (the other is deprecated) or mark both \
                 disputed; the hint line has the keys",
            ),
        }
        return;
    }
    if state.level.unwrap_or(Level::Locked) < Level::Master {
        state.error("resolving a contradiction takes the master level: press U to unlock (it is shown read-only)");
        return;
    }
    if !state.not_busy() {
        return;
    }
    let (l, r) = (c.left.name.clone(), c.right.name.clone());
    match a {
        Action::KeepLeft | Action::KeepRight => {
            let (kept, deprecated) = if a == Action::KeepLeft {
                (&c.left, &c.right)
            } else {
                (&c.right, &c.left)
            };
            state.popups.push(Popup::KeepReason {
                input: keep_reason(kept, deprecated),
                kept: kept.name.clone(),
                deprecated: deprecated.name.clone(),
                error: None,
            });
        }
        _ => state.popups.push(Popup::Confirm {
            text: format!(
                "Mark {l} and {r} disputed? Both stay active and projections keep flagging them; the contradiction \
                 leaves the queue. Two updates, one per node (u undoes one at a time). y marks both, n cancels."
            ),
            then: Confirmed::Resolve(Box::new(Resolution::Dispute { names: [l, r] })),
        }),
    }
}

/// A key in the keep dialog: the reason, then the confirmation.
pub fn reason_key(state: &mut AppState, k: KeyEvent) {
    let Some(Popup::KeepReason {
        kept,
        deprecated,
        input,
        error,
    }) = state.popups.last_mut()
    else {
        return;
    };
    match k.code {
        KeyCode::Esc => {
            state.popups.pop();
        }
        KeyCode::Enter if input.trim().is_empty() => {
            *error = Some("a reason is required: it is stored with the deprecated node, and agents read it".into());
        }
        KeyCode::Enter => {
            let (kept, deprecated, reason) = (
                std::mem::take(kept),
                std::mem::take(deprecated),
                input.trim().to_owned(),
            );
            state.popups.pop();
            state.popups.push(Popup::Confirm {
                text: format!(
                    "Keep {kept} and deprecate {deprecated} with the reason \"{}\"? One commit (u undoes it). y \
                     deprecates it, n keeps both.",
                    graphex_engine::hygiene::visible_line(&reason)
                ),
                then: Confirmed::Resolve(Box::new(Resolution::Keep {
                    kept,
                    deprecated,
                    reason,
                })),
            });
        }
        _ => {
            if edit_line(input, &k) {
                *error = None;
            }
        }
    }
}

/// A confirmed resolution goes to the worker.
pub fn confirmed(state: &mut AppState, r: Resolution, fx: &mut Vec<Effect>) {
    state.busy = Some(r.doing());
    request(fx, Request::Resolve(Box::new(r)));
}
