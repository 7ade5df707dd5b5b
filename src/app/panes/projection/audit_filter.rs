//! The audit browser's in-list filter (`/`, as in the exposure view): only
//! the records whose agent, centre, tier, kind or hash hold what is typed
//! stay listed; `enter` keeps the filter, `esc` clears it. The cursor and
//! the mark are kept as record indices, so `enter` replays the record shown.

use crossterm::event::KeyEvent;

use super::review::AuditView;
use super::review_ui::{Review, View};
use crate::app::state::AppState;

/// The filter: the one the lists share.
pub type AuditFilter = crate::app::filter_line::FilterLine;

/// The indices in `v.rows` the filter keeps, in order.
pub fn visible(v: &AuditView, f: &AuditFilter) -> Vec<usize> {
    v.rows
        .iter()
        .enumerate()
        .filter(|(_, x)| f.holds([&x.agent, &x.centre, &x.tier, &x.kind, &x.hash].map(String::as_str)))
        .map(|(i, _)| i)
        .collect()
}

/// A key for the filter line while it is typed, or `esc` clearing a kept
/// filter; false when the key is not the filter's.
pub fn key(state: &mut AppState, k: &KeyEvent) -> bool {
    let r = &mut state.projection.review;
    if r.view != View::Audit || !r.af.key(k) {
        return false;
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
