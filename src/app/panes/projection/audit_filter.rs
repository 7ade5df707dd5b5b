//! The audit browser's in-list filter (`/`, as in the exposure view): only
//! the records whose agent, centre, tier, kind or hash hold what is typed
//! stay listed; `enter` keeps the filter, `esc` clears it. The cursor and
//! the mark are kept as record indices, so `enter` replays the record shown.

use crossterm::event::{KeyCode, KeyEvent};

use super::review::AuditView;
use super::review_ui::{Review, View};
use crate::app::state::AppState;

/// The filter and whether it is being typed.
#[derive(Debug, Default)]
pub struct AuditFilter {
    pub text: String,
    pub typing: bool,
}

/// The indices in `v.rows` the filter keeps, in order.
pub fn visible(v: &AuditView, f: &AuditFilter) -> Vec<usize> {
    let wanted = f.text.trim().to_lowercase();
    v.rows
        .iter()
        .enumerate()
        .filter(|(_, x)| {
            wanted.is_empty()
                || [&x.agent, &x.centre, &x.tier, &x.kind, &x.hash]
                    .iter()
                    .any(|s| s.to_lowercase().contains(&wanted))
        })
        .map(|(i, _)| i)
        .collect()
}

/// A key for the filter line while it is typed, or `esc` clearing a kept
/// filter; false when the key is not the filter's.
pub fn key(state: &mut AppState, k: &KeyEvent) -> bool {
    let r = &mut state.projection.review;
    if r.view != View::Audit || !(r.af.typing || k.code == KeyCode::Esc && !r.af.text.is_empty()) {
        return false;
    }
    match k.code {
        KeyCode::Esc => {
            r.af.text.clear();
            r.af.typing = false;
        }
        KeyCode::Enter => r.af.typing = false,
        _ => {
            let changed = crate::app::text_input::edit_line(&mut r.af.text, k);
            if !changed {
                // Other keys (ctrl-c) are the keymap's.
                return false;
            }
        }
    }
    r.picked = 0;
    true
}

/// The record index under the cursor.
pub fn picked(r: &Review) -> Option<usize> {
    match &r.audit {
        Some(Ok(v)) => visible(v, &r.af).get(r.picked).copied(),
        _ => None,
    }
}

/// The title's part for the filter.
pub fn title(f: &AuditFilter) -> String {
    if f.typing || !f.text.is_empty() {
        format!(" · filter: {}{}", f.text, if f.typing { "▏" } else { "" })
    } else {
        String::new()
    }
}
