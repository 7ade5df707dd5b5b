//! Keys and pastes that dialogs receive: the help and palette pickers,
//! unlock, reject reason, confirmation, stale base and the proposal editor.
//! Part of the pure `update`: no I/O, effects returned.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::age_secret::SecretString;
use ratatui_textarea::CursorMove;
use zeroize::Zeroizing;

use super::action::{Action, Scope};
use super::layout;
use super::palette;
use super::panes::queue::update::open_editor;
use super::state::{AppState, Confirmed, Popup};
use super::update::{Effect, action, confirmed, request};
use super::worker::Request;

/// A key typed into a text field: returns whether the text changed.
pub(crate) fn edit_line(text: &mut String, k: &KeyEvent) -> bool {
    match k.code {
        KeyCode::Char(c) if !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
            text.push(c);
            true
        }
        KeyCode::Backspace => text.pop().is_some(),
        KeyCode::Char('u') if k.modifiers.contains(KeyModifiers::CONTROL) => {
            text.clear();
            true
        }
        _ => false,
    }
}

fn is_ctrl(k: &KeyEvent, c: char) -> bool {
    k.code == KeyCode::Char(c) && k.modifiers.contains(KeyModifiers::CONTROL)
}

/// Quits at once, unless an edit would be lost, when it asks first; asked
/// again at that question (a second Ctrl-C), it quits. Ctrl-C reaches
/// here from any dialog.
pub(super) fn quit_asked(state: &mut AppState, fx: &mut Vec<Effect>) {
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

/// Runs an action chosen in the palette or help: one of another pane goes
/// to that pane first.
fn run_chosen(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    if let Scope::Pane(p) = a.info().scope {
        state.pane = p;
    }
    action(state, a, fx);
}

pub(super) fn popup_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    if is_ctrl(&k, 'c') {
        quit_asked(state, fx);
        return;
    }
    let Some(top) = state.popups.last_mut() else { return };
    if top.pane() == Some(crate::app::action::Pane::Projection) {
        crate::app::panes::projection::update::dialog_key(state, k, fx);
        return;
    }
    if top.pane() == Some(crate::app::action::Pane::Query) {
        crate::app::panes::query::update::dialog_key(state, k, fx);
        return;
    }
    if crate::app::panes::graph::update::owns(top) {
        crate::app::panes::graph::dialogs::key(state, k, fx);
        return;
    }
    match top {
        Popup::Help { filter, selected } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => {
                let n = palette::help_rows(&state.keymap, filter).len();
                *selected = (*selected + 1).min(n.saturating_sub(1));
            }
            KeyCode::Enter => {
                let chosen = palette::help_rows(&state.keymap, filter)
                    .get(*selected)
                    .map(|m| m.action);
                match chosen {
                    Some(Some(a)) => {
                        state.popups.pop();
                        run_chosen(state, a, fx);
                    }
                    Some(None) => state.info("that key works inside its dialog"),
                    None => {}
                }
            }
            _ => {
                if edit_line(filter, &k) {
                    *selected = 0;
                }
            }
        },
        Popup::Palette { input, selected } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => {
                let n = palette::saved_rows(&state.query.saved, input)
                    .map_or_else(|| palette::matches(input, state.pane).len(), |r| r.len());
                *selected = (*selected + 1).min(n.saturating_sub(1));
            }
            KeyCode::Enter => {
                if let Some(rows) = palette::saved_rows(&state.query.saved, input) {
                    let typed = input.strip_prefix("q ").unwrap_or_default().trim().to_owned();
                    let name = rows.get(*selected).map_or(typed, |r| r.text.clone());
                    state.popups.pop();
                    if name.is_empty() {
                        state.error("no saved query here (save one with s in the Query pane)");
                    } else {
                        request(fx, Request::LoadSaved { name });
                    }
                    return;
                }
                if let Some(name) = palette::graph_command(input) {
                    state.popups.pop();
                    crate::app::panes::graph::update::open(state, &name, fx);
                    return;
                }
                let chosen = palette::matches(input, state.pane)
                    .get(*selected)
                    .and_then(|m| m.action);
                state.popups.pop();
                if let Some(a) = chosen {
                    run_chosen(state, a, fx);
                }
            }
            _ => {
                if edit_line(input, &k) {
                    *selected = 0;
                }
            }
        },
        Popup::Unlock {
            human,
            input,
            error,
            busy,
        } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            _ if *busy => {}
            KeyCode::Enter if input.is_empty() => *error = Some("type the passphrase, or esc to cancel".into()),
            KeyCode::Enter => {
                let passphrase = SecretString::from(input.as_str().to_owned());
                *input = Zeroizing::new(String::new());
                *busy = true;
                *error = None;
                let human = *human;
                state.busy = Some(if human {
                    "unlocking human-only".into()
                } else {
                    "unlocking master".into()
                });
                request(fx, Request::Unlock { human, passphrase });
            }
            _ => {
                let mut s = Zeroizing::new(input.as_str().to_owned());
                if edit_line(&mut s, &k) {
                    *input = s;
                }
            }
        },
        Popup::Reason { ids, input, error } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter if input.trim().is_empty() => {
                *error = Some("a reason is required: the agent reads it back".into());
            }
            KeyCode::Enter => {
                let (ids, reason) = (std::mem::take(ids), input.trim().to_owned());
                state.popups.pop();
                if ids.len() > 1 {
                    state.popups.push(Popup::Confirm {
                        text: format!("Reject {} proposals with the reason \"{reason}\"?", ids.len()),
                        then: Confirmed::RejectMany(ids, reason),
                    });
                } else {
                    state.busy = Some("rejecting".into());
                    request(fx, Request::Reject { ids, reason });
                }
            }
            _ => {
                if edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        Popup::Confirm { then, .. } => match k.code {
            KeyCode::Char('y' | 'Y') | KeyCode::Enter => {
                let then = then.clone();
                state.popups.pop();
                confirmed(state, then, fx);
            }
            KeyCode::Char('n' | 'N') | KeyCode::Esc => {
                state.popups.pop();
            }
            _ => {}
        },
        Popup::Stale { id, edit, .. } => match k.code {
            KeyCode::Char('f') => {
                let (id, edit) = (id.clone(), edit.take());
                state.popups.pop();
                state.busy = Some("accepting".into());
                match edit {
                    Some(text) => request(fx, Request::AcceptEdit { id, text, force: true }),
                    None => request(fx, Request::Accept { id, force: true }),
                }
            }
            KeyCode::Char('e') if edit.is_none() => {
                state.popups.pop();
                open_editor(state, fx);
            }
            KeyCode::Esc | KeyCode::Char('q') => {
                state.popups.pop();
            }
            _ => {}
        },
        Popup::Editor(ed) if !ed.saving => editor_key(state, k, fx),
        // A saving editor waits; the Graph pane's dialogs took the key above.
        _ => {}
    }
}

/// The editor's text height on the current screen.
fn editor_height(state: &AppState) -> usize {
    usize::from(super::view::editor_area(layout::areas(state.size).main).1).max(1)
}

/// Moves the editor's cursor `rows` lines (down when positive) and keeps it
/// in view. The console draws the text itself, so the text area's own
/// page keys, which scroll a viewport it never rendered, are not used.
pub(super) fn editor_move(state: &mut AppState, rows: isize) {
    let height = editor_height(state);
    let Some(Popup::Editor(ed)) = state.popups.last_mut() else {
        return;
    };
    let step = if rows > 0 { CursorMove::Down } else { CursorMove::Up };
    for _ in 0..rows.unsigned_abs() {
        ed.area.move_cursor(step);
    }
    ed.top = crate::widgets::code_view::scroll_to(ed.top, ed.area.cursor().0, height);
}

fn editor_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    let page = isize::try_from(editor_height(state)).unwrap_or(1);
    match k.code {
        KeyCode::PageDown => return editor_move(state, page),
        KeyCode::Char('v') if ctrl => return editor_move(state, page),
        KeyCode::PageUp => return editor_move(state, -page),
        KeyCode::Char('v') if alt => return editor_move(state, -page),
        KeyCode::Char('q') if ctrl => return quit_asked(state, fx),
        _ => {}
    }
    let height = editor_height(state);
    let Some(Popup::Editor(ed)) = state.popups.last_mut() else {
        return;
    };
    match k.code {
        KeyCode::Char('s') if ctrl => match &ed.validation {
            Some(Err(e)) => ed.error = Some(format!("not saved: {e}")),
            _ => {
                ed.saving = true;
                ed.error = None;
                let (id, text) = (ed.id.clone(), ed.text());
                state.busy = Some("accepting the edit".into());
                request(fx, Request::AcceptEdit { id, text, force: false });
            }
        },
        KeyCode::Esc => {
            if ed.modified() {
                state.popups.push(Popup::Confirm {
                    text: "Discard this edit? The proposal stays in the queue unchanged.".into(),
                    then: Confirmed::DiscardEdit,
                });
            } else {
                state.popups.pop();
            }
        }
        _ => {
            let before_text = ed.text();
            if ctrl && k.code == KeyCode::Char('z') {
                ed.area.undo();
            } else if ctrl && k.code == KeyCode::Char('y') {
                ed.area.redo();
            } else {
                ed.area.input(k);
            }
            ed.top = crate::widgets::code_view::scroll_to(ed.top, ed.area.cursor().0, height);
            if ed.text() != before_text {
                validate(state, fx);
            }
        }
    }
}

pub(super) fn validate(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    if let Some(Popup::Editor(ed)) = state.popups.last_mut() {
        ed.generation = generation;
        ed.error = None;
        request(
            fx,
            Request::Validate {
                generation,
                text: ed.text(),
            },
        );
    }
}

pub(super) fn paste(state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
    if crate::app::panes::graph::dialogs::paste(state, text, fx) {
        return;
    }
    match state.popups.last_mut() {
        Some(Popup::Editor(ed)) => {
            ed.area.insert_str(text);
            validate(state, fx);
        }
        Some(Popup::Reason { input, .. }) => {
            input.push_str(&text.replace(['\n', '\r'], " "));
        }
        Some(
            Popup::Palette { input, selected }
            | Popup::Help {
                filter: input,
                selected,
            },
        ) => {
            input.push_str(&text.replace(['\n', '\r'], " "));
            *selected = 0;
        }
        Some(Popup::Unlock { input, .. }) => {
            let mut s = Zeroizing::new(input.as_str().to_owned());
            s.push_str(text.trim_end_matches(['\n', '\r']));
            *input = s;
        }
        _ => {}
    }
}
