//! A revision range in the Projection pane (`graphex diff --console
//! main...HEAD`): when the store opens, the worker reads the range's base
//! from git; the pane then shows a changed node before and after the
//! range, tier by tier, with the keys it has for a proposal's before and
//! after (`d` the tier diff, `n`/`N`, `c`); `/` chooses another node, shown
//! the same way.

use super::RangeAsked;
use super::work::Subject;
use crate::app::effect::{Effect, request};
use crate::app::state::AppState;
use crate::app::worker::Request;

/// Asks the worker for the range's base, once per open of the store.
pub fn ask(state: &mut AppState, fx: &mut Vec<Effect>) {
    if let Some(RangeAsked {
        rev,
        label,
        open: false,
    }) = &state.projection.range
    {
        request(
            fx,
            Request::OpenRange {
                rev: rev.clone(),
                label: label.clone(),
            },
        );
    }
}

/// The base is open: the first changed node, before and after.
pub fn opened(state: &mut AppState, label: &str, result: Result<Vec<String>, String>, fx: &mut Vec<Effect>) {
    let changed = match result {
        Ok(c) => c,
        Err(e) => return state.error(e),
    };
    let Some(r) = state.projection.range.as_mut().filter(|r| r.label == label) else {
        return;
    };
    r.open = true;
    let Some(first) = changed.first().cloned() else {
        state.info(format!("nothing this level reads changed in {label}"));
        return;
    };
    const NAMED: usize = 6;
    let mut names = changed.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
    if changed.len() > NAMED {
        names.push_str(&format!(", … {} more", changed.len() - NAMED));
    }
    super::update::open(
        state,
        Subject::Range {
            centre: first,
            label: label.to_owned(),
        },
        fx,
    );
    state.info(format!(
        "{label}: {} node(s) changed ({names}); / shows another before and after",
        changed.len()
    ));
}
