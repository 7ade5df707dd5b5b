//! The tier diff: two tiers' projections compared through the console's
//! one diff (`widgets::line_diff`), and its `n`, `N` and `c`.

use super::PAIRS;
use super::ProjectionPane;
use crate::app::state::AppState;
use crate::widgets::line_diff::DiffPlace;
pub use crate::widgets::line_diff::{Diff, at, diff, diff_lines};

/// The tier diff the pane shows, or why there is none.
pub fn current(p: &ProjectionPane) -> Result<Diff, &'static str> {
    folded(p, p.changes_only)
}

/// The tier diff, with unchanged runs folded or not.
fn folded(p: &ProjectionPane, changes_only: bool) -> Result<Diff, &'static str> {
    let Some(d) = p.diff else {
        return Err("n, N and c move through the tier diff: d shows it");
    };
    let Some(Ok(v)) = &p.shown else {
        return Err("nothing projected yet");
    };
    let (a, b) = PAIRS[d % PAIRS.len()];
    let (ta, tb) = (&v.tiers[a], &v.tiers[b]);
    if ta.sealed || tb.sealed {
        return Err("a tier above this unlock level cannot be compared");
    }
    Ok(diff(
        &ta.text,
        &tb.text,
        "the two tiers receive the same text",
        changes_only,
    ))
}

/// The pane's place in the diff.
fn place(p: &ProjectionPane) -> DiffPlace {
    DiffPlace {
        scroll: p.scroll,
        changes_only: p.changes_only,
    }
}

/// `n` / `N`: the next or previous change, shown from a line above it.
pub fn next_change(state: &mut AppState, forward: bool) {
    let d = match current(&state.projection) {
        Ok(d) => d,
        Err(e) => return state.error(e),
    };
    let mut at = place(&state.projection);
    match at.step(&d, forward) {
        Ok(()) => state.projection.scroll = at.scroll,
        Err(_) if d.changes.is_empty() => state.info("no change between these two tiers"),
        Err(why) => state.info(why),
    }
}

/// `c`: changes only, or every line; the change at the top stays there.
pub fn toggle_changes_only(state: &mut AppState) {
    if let Err(e) = current(&state.projection) {
        return state.error(e);
    }
    let mut at = place(&state.projection);
    let p = &state.projection;
    at.toggle(|changes_only| folded(p, changes_only).unwrap_or_default());
    state.projection.scroll = at.scroll;
    state.projection.changes_only = at.changes_only;
}
