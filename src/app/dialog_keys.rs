//! Keys and pastes that the shell's own dialogs receive: the help and
//! palette pickers, unlock and confirmation. A pane's dialogs are routed to
//! that pane's component, never named here. Part of the pure `update`: no
//! I/O, effects returned.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::age_secret::SecretString;
use zeroize::Zeroizing;

use super::action::{Action, Scope};
use super::palette;
use super::panes;
use super::quit::quit_asked;
use super::state::{AppState, Popup};
use super::text_input::edit_line;
use super::update::{Effect, action, confirmed, request};
use super::worker::Request;

fn is_ctrl(k: &KeyEvent, c: char) -> bool {
    k.code == KeyCode::Char(c) && k.modifiers.contains(KeyModifiers::CONTROL)
}

/// Runs an action chosen in the palette or help: one of another pane goes
/// to that pane first.
fn run_chosen(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    if let Scope::Pane(p) = a.info().scope {
        // A decision is made on what is on screen: from another pane, the
        // palette shows the card and the decision waits for its key.
        if p != state.pane && a.decides() {
            state.pane = p;
            let key = state
                .keymap
                .keys_of(a)
                .first()
                .cloned()
                .unwrap_or_else(|| a.info().name.to_owned());
            state.info(format!("the card is on screen: press {key} to {}", a.info().hint));
            return;
        }
        state.pane = p;
    }
    action(state, a, fx);
}

pub(super) fn popup_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    if is_ctrl(&k, 'c') {
        quit_asked(state, fx);
        return;
    }
    let Some(top) = state.popups.last() else { return };
    if let Some(owner) = panes::owner(top) {
        owner.key(state, k, fx);
        return;
    }
    let Some(top) = state.popups.last_mut() else { return };
    match top {
        Popup::Messages { scroll } => match k.code {
            KeyCode::Esc | KeyCode::Char('q' | 'M') => {
                state.popups.pop();
            }
            KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            _ => {}
        },
        Popup::Help {
            filter,
            selected,
            focus,
        } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => {
                let n = palette::help_rows(&state.keymap, filter, state.pane, focus).len();
                *selected = (*selected + 1).min(n.saturating_sub(1));
            }
            KeyCode::Enter => {
                let chosen = palette::help_rows(&state.keymap, filter, state.pane, focus)
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
        Popup::Palette {
            input,
            selected,
            preview,
        } => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => {
                let n = match (preview, palette::saved_rows(&state.query.saved, input)) {
                    (Some(_), _) => 1,
                    (None, Some(rows)) => rows.len(),
                    (None, None) => palette::matches(input, state.pane).len(),
                };
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
                // A previewed line runs as shown (`graph` the best match).
                let line = preview
                    .as_ref()
                    .and_then(|p| p.run.clone())
                    .unwrap_or_else(|| input.clone());
                let chosen = palette::matches(input, state.pane)
                    .get(*selected)
                    .and_then(|m| m.action);
                state.popups.pop();
                // A command line a pane reads (`graph NAME`) comes before
                // the actions matched.
                if panes::ALL.into_iter().any(|c| c.command(state, &line, fx)) {
                    return;
                }
                if let Some(a) = chosen {
                    run_chosen(state, a, fx);
                }
            }
            _ => {
                if edit_line(input, &k) {
                    *selected = 0;
                    preview_line(state, fx);
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
        // The panes' dialogs took the key above.
        _ => {}
    }
}

/// The palette's line changed: the pane that reads it (if one does) asks
/// for what it would do; any earlier preview is dropped.
fn preview_line(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(Popup::Palette { input, preview, .. }) = state.popups.last_mut() else {
        return;
    };
    *preview = None;
    let line = input.clone();
    for c in panes::ALL {
        if c.preview(state, &line, fx) {
            return;
        }
    }
}

pub(super) fn paste(state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
    if let Some(owner) = state.popups.last().and_then(panes::owner) {
        owner.paste(state, text, fx);
        return;
    }
    match state.popups.last_mut() {
        Some(
            Popup::Palette { input, selected, .. }
            | Popup::Help {
                filter: input,
                selected,
                ..
            },
        ) => {
            input.push_str(&text.replace(['\n', '\r'], " "));
            *selected = 0;
            preview_line(state, fx);
        }
        Some(Popup::Unlock { input, .. }) => {
            let mut s = Zeroizing::new(input.as_str().to_owned());
            s.push_str(text.trim_end_matches(['\n', '\r']));
            *input = s;
        }
        _ => {}
    }
}
