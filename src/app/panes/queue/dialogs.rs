//! The queue's dialogs: the reject reason, the stale-base question and the
//! proposal editor. Their keys, pastes and the worker's answers about an
//! edit (validation, saving, a stale base) are here, with the decisions
//! they confirm.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::CursorMove;

use super::update::open_editor;
use crate::app::effect::{Effect, request};
use crate::app::layout;
use crate::app::quit::quit_asked;
use crate::app::state::{AppState, Confirmed, Editor, Popup};
use crate::app::text_input::edit_line;
use crate::app::worker::{Reply, Request};

/// `↑` (older) or `↓` (back towards what was typed) through `candidates`,
/// into `input`.
fn recall(at: &mut Option<usize>, candidates: &[String], up: bool, input: &mut String) {
    let next = match (up, *at) {
        (true, None) => Some(0),
        (true, Some(i)) => Some((i + 1).min(candidates.len().saturating_sub(1))),
        (false, Some(0) | None) => None,
        (false, Some(i)) => Some(i - 1),
    };
    let next = next.filter(|i| *i < candidates.len());
    *input = next.map(|i| candidates[i].clone()).unwrap_or_default();
    *at = next;
}

/// A key for the queue's dialog on top of the stack.
pub fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(top) = state.popups.last_mut() else { return };
    if let Popup::KeepReason { .. } = top {
        return super::resolve::reason_key(state, k);
    }
    match top {
        Popup::Reason { ids, input, error } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
                state.queue.reason_recall = None;
            }
            KeyCode::Enter if input.trim().is_empty() => {
                *error = Some("a reason is required: the agent reads it back".into());
            }
            KeyCode::Up | KeyCode::Down => {
                let candidates = super::reason_candidates(&state.queue, ids);
                recall(
                    &mut state.queue.reason_recall,
                    &candidates,
                    k.code == KeyCode::Up,
                    input,
                );
                *error = None;
            }
            KeyCode::Enter => {
                let (ids, reason) = (std::mem::take(ids), input.trim().to_owned());
                state.popups.pop();
                state.queue.reason_recall = None;
                state.queue.reasons.retain(|r| *r != reason);
                state.queue.reasons.push(reason.clone());
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
        Popup::ChangesComment {
            id,
            changes,
            change,
            input,
            error,
        } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            // Whole proposal, then change 1 to n, then the whole again.
            KeyCode::Tab => {
                *change = match *change {
                    None if *changes > 0 => Some(1),
                    Some(c) if c < *changes => Some(c + 1),
                    _ => None,
                };
            }
            KeyCode::Enter if input.trim().is_empty() => {
                *error = Some("say what should change: the agent reads this comment".into());
            }
            // The same suggestions as a rejection's: what the lints found,
            // then reasons given before.
            KeyCode::Up | KeyCode::Down => {
                let candidates = super::reason_candidates(&state.queue, std::slice::from_ref(id));
                recall(
                    &mut state.queue.reason_recall,
                    &candidates,
                    k.code == KeyCode::Up,
                    input,
                );
                *error = None;
            }
            KeyCode::Enter => {
                let (id, comment, change) = (std::mem::take(id), input.trim().to_owned(), *change);
                state.queue.reason_recall = None;
                state.popups.pop();
                state.busy = Some("asking for changes".into());
                request(fx, Request::RequestChanges { id, comment, change });
            }
            _ => {
                if edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        Popup::Merge(m) => match k.code {
            KeyCode::Char('a' | 'y') | KeyCode::Enter => {
                let (id, text) = (m.id.clone(), m.text.clone());
                state.popups.pop();
                state.busy = Some("accepting the merge".into());
                request(fx, Request::AcceptEdit { id, text, force: false });
            }
            KeyCode::Char('e') => {
                let ed = Editor::new(m.id.clone(), m.short.clone(), &m.text);
                state.popups.pop();
                state.popups.push(Popup::Editor(Box::new(ed)));
                validate(state, fx);
            }
            KeyCode::Esc | KeyCode::Char('q') => {
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
        // A saving editor waits.
        Popup::Editor(ed) if !ed.saving => editor_key(state, k, fx),
        _ => {}
    }
}

/// The editor's text height on the current screen.
fn editor_height(state: &AppState) -> usize {
    usize::from(layout::editor_area(layout::areas(state.size).main).1).max(1)
}

/// Moves the editor's cursor `rows` lines (down when positive) and keeps it
/// in view. The console draws the text itself, so the text area's own
/// page keys, which scroll a viewport it never rendered, are not used.
pub fn editor_move(state: &mut AppState, rows: isize) {
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
        // The whole text to $VISUAL / $EDITOR, and back.
        KeyCode::Char('e') if ctrl => {
            let name = format!("proposal-{}.json", ed.short);
            fx.push(Effect::ExternalEdit { name, text: ed.text() });
        }
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
            let hand_off = ed.handed.take().filter(|(_, after)| *after == before_text);
            if ctrl
                && k.code == KeyCode::Char('z')
                && let Some((before, _)) = hand_off
            {
                // The whole hand-off, in one step.
                replace_text(&mut ed.area, &before);
            } else if ctrl && k.code == KeyCode::Char('z') {
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

/// The text the external editor left replaces the editor's (one step
/// `ctrl-z` can take back), and is checked; a failed hand-off is said in
/// the editor and changes nothing.
pub fn edited(state: &mut AppState, result: Result<String, String>, fx: &mut Vec<Effect>) {
    let Some(Popup::Editor(ed)) = state.popups.last_mut() else {
        // The editor closed meanwhile (a lock): the text is dropped.
        return;
    };
    match result {
        Ok(text) if text == ed.text() => state.info("the external editor left the text unchanged"),
        Ok(text) => {
            let before = ed.text();
            replace_text(&mut ed.area, text.trim_end_matches('\n'));
            ed.handed = Some((before, ed.text()));
            ed.to_error = true;
            validate(state, fx);
        }
        Err(e) => ed.error = Some(e),
    }
}

/// Puts `text` in place of everything in `area` (undoable in its history).
fn replace_text(area: &mut ratatui_textarea::TextArea<'static>, text: &str) {
    area.select_all();
    area.cut();
    area.insert_str(text);
}

/// Asks the worker to check the editor's text (the newest check wins).
pub fn validate(state: &mut AppState, fx: &mut Vec<Effect>) {
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

/// Pastes into the queue's dialog on top.
pub fn paste(state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
    match state.popups.last_mut() {
        Some(Popup::Editor(ed)) => {
            ed.area.insert_str(text);
            validate(state, fx);
        }
        Some(Popup::Reason { input, .. } | Popup::ChangesComment { input, .. } | Popup::KeepReason { input, .. }) => {
            input.push_str(&text.replace(['\n', '\r'], " "));
        }
        _ => {}
    }
}

/// The worker's answers about an edit or a decision on a stale base;
/// others are handed back.
pub fn reply(state: &mut AppState, r: Reply) -> Option<Reply> {
    match r {
        Reply::MergeDraft(v) => {
            state.busy = None;
            state.popups.push(Popup::Merge(v));
        }
        Reply::Validated { generation, result } => {
            let height = editor_height(state);
            if let Some(Popup::Editor(ed)) = state.popups.last_mut()
                && ed.generation == generation
            {
                if ed.to_error
                    && let Err(e) = &result
                    && let Some(line) = crate::shared::external_edit::error_line(e)
                {
                    // Back from the external editor with a mistake: the cursor goes to it.
                    ed.area
                        .move_cursor(CursorMove::Jump(u16::try_from(line - 1).unwrap_or(u16::MAX), 0));
                    ed.top = crate::widgets::code_view::scroll_to(ed.top, ed.area.cursor().0, height);
                }
                ed.to_error = false;
                ed.validation = Some(result);
            }
        }
        Reply::Stale {
            id,
            versions,
            three,
            edit,
        } => {
            state.busy = None;
            let edit = match state.popups.last_mut() {
                Some(Popup::Editor(ed)) if edit => {
                    ed.saving = false;
                    Some(ed.text())
                }
                _ => None,
            };
            let flags = state
                .queue
                .items
                .iter()
                .find(|i| i.id == id)
                .map(|i| {
                    super::update::flags(i)
                        .into_iter()
                        .filter(|f| *f != "stale")
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            state.popups.push(Popup::Stale {
                id,
                versions,
                three,
                edit,
                flags,
            });
        }
        Reply::EditSaved(text) => {
            state.busy = None;
            if let Some(Popup::Editor(_)) = state.popups.last() {
                state.popups.pop();
            }
            state.info(text);
        }
        Reply::EditFailed(text) => {
            state.busy = None;
            if let Some(Popup::Editor(ed)) = state.popups.last_mut() {
                ed.saving = false;
                ed.error = Some(format!("not saved: {text}"));
            } else {
                state.error(text);
            }
        }
        other => return Some(other),
    }
    None
}

/// Carries out a decision the reviewer confirmed.
pub fn confirmed(state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
    match then {
        Confirmed::Accept(id) => {
            let short = state.queue.items.iter().find(|i| i.id == id).map(|i| i.short.clone());
            state.busy = Some(format!("accepting {}", short.unwrap_or_default()));
            request(fx, Request::Accept { id, force: false });
        }
        Confirmed::AcceptMany(ids) => {
            state.busy = Some(format!("accepting {} proposals", ids.len()));
            clear_marks(state, &ids);
            request(fx, Request::AcceptMany { ids });
        }
        Confirmed::RejectMany(ids, reason) => {
            state.busy = Some(format!("rejecting {} proposals", ids.len()));
            clear_marks(state, &ids);
            request(fx, Request::Reject { ids, reason });
        }
        Confirmed::Resolve(r) => super::resolve::confirmed(state, *r, fx),
        Confirmed::DiscardEdit => {
            if let Some(Popup::Editor(_)) = state.popups.last() {
                state.popups.pop();
            }
            state.info("edit discarded");
        }
        _ => {}
    }
}

fn clear_marks(state: &mut AppState, ids: &[String]) {
    for id in ids {
        state.queue.marked.remove(id);
    }
}
