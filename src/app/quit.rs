//! Quitting, asked from the shell (`q`, Ctrl-C) and from a pane's dialog
//! (the proposal editor's Ctrl-Q) alike, so the question about a lost edit
//! is asked the same way everywhere.

use super::effect::Effect;
use super::state::{AppState, Confirmed, Popup};

/// Quits at once, unless an edit would be lost, when it asks first; asked
/// again at that question (a second Ctrl-C), it quits. Ctrl-C reaches
/// here from any dialog.
pub(crate) fn quit_asked(state: &mut AppState, fx: &mut Vec<Effect>) {
    let asking = matches!(
        state.popups.last(),
        Some(Popup::Confirm {
            then: Confirmed::Quit,
            ..
        })
    );
    if state.unsaved_edit() && !asking {
        state.popups.push(Popup::Confirm {
            text: "Quit and lose this edit?".into(),
            then: Confirmed::Quit,
        });
    } else {
        state.quit = true;
        fx.push(Effect::Quit);
    }
}
