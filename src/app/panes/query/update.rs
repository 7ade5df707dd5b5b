//! The Query pane's keys. While the editor has focus, keys edit the query
//! (`tab`/`enter` take a completion, `ctrl-f` applies the error's
//! suggestion, `ctrl-t` cycles "as tier", `esc` leaves for the results);
//! every change asks the worker for results and completions, the newest
//! winning. On the results, the `[query]` keymap applies.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::lookup::matcher::Matcher;

use super::work::{Completion, ErrorView, Format, ResultsView};
use super::{Mode, Popup as Completions};
use crate::app::action::{Action, Pane};
use crate::app::effect::{Effect, Go, go, request};
use crate::app::state::{AppState, Popup};
use crate::app::worker::Request;

/// The tiers "as tier" cycles through (none: the session's own view).
const TIERS: [Option<&str>; 4] = [None, Some("public"), Some("agent-readable"), Some("agent-restricted")];

/// A key while the editor has focus; false when the key is not the
/// editor's (the palette, help, quitting, changing panes).
pub fn editor_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    let q = &mut state.query;
    match k.code {
        KeyCode::Esc if q.popup.is_some() => q.popup = None,
        KeyCode::Esc => q.editing = false,
        KeyCode::Tab if q.popup.as_ref().is_some_and(|p| !p.completion.items.is_empty()) => {
            take_candidate(state, fx);
        }
        KeyCode::Enter
            if q.popup
                .as_ref()
                .is_some_and(|p| p.chosen && !p.completion.items.is_empty()) =>
        {
            take_candidate(state, fx);
        }
        KeyCode::Tab => {
            q.tab_asked = true;
            ask_completion(state, fx);
        }
        KeyCode::Enter => {
            q.before_completion = None;
            q.popup = None;
            q.editing = false;
            q.selected = 0;
            let text = q.text();
            if !text.trim().is_empty() && state.level >= Some(graphex_engine::Level::Master) {
                request(fx, Request::RecordQuery { text });
            }
        }
        KeyCode::Up if q.popup.is_some() => {
            if let Some(p) = q.popup.as_mut() {
                p.selected = p.selected.saturating_sub(1);
                p.chosen = true;
            }
        }
        KeyCode::Down if q.popup.is_some() => {
            if let Some(p) = q.popup.as_mut() {
                p.selected = (p.selected + 1).min(p.completion.items.len().saturating_sub(1));
                p.chosen = true;
            }
        }
        KeyCode::Char('f') if ctrl => apply_fix(state, fx),
        KeyCode::Char('r') if ctrl => open_history(state, fx),
        // As in every text field here: ctrl-u clears; ctrl-z / ctrl-y undo, redo.
        KeyCode::Char('u') if ctrl => {
            q.set_text("");
            changed(state, fx);
        }
        KeyCode::Char('z') if ctrl && q.before_completion.is_some() => {
            if let Some((text, cursor)) = q.before_completion.take() {
                q.set_text(&text);
                q.set_cursor(cursor);
            }
            changed(state, fx);
        }
        KeyCode::Char('z' | 'y') if ctrl => {
            if k.code == KeyCode::Char('z') {
                q.editor.undo();
            } else {
                q.editor.redo();
            }
            changed(state, fx);
        }
        KeyCode::Char('t') if ctrl => cycle_tier(state, fx),
        KeyCode::Char('c' | 'p' | 'q') if ctrl => return false,
        KeyCode::BackTab | KeyCode::F(_) => return false,
        KeyCode::Char(_) if alt => return false,
        // One line: a query has no line breaks.
        KeyCode::Char('m' | 'j') if ctrl => {}
        _ => {
            let before = q.text();
            let cursor = q.editor.cursor();
            q.editor.input(k);
            if q.text() != before {
                q.before_completion = None;
                changed(state, fx);
            } else if q.editor.cursor() != cursor && q.popup.is_some() {
                ask_completion(state, fx);
            }
        }
    }
    true
}

/// The text changed: results and completions are asked for again.
pub fn changed(state: &mut AppState, fx: &mut Vec<Effect>) {
    // Completion first: the worker answers in order, and a half-typed name's
    // evaluation (an error with its "did you mean" search) takes longer.
    ask_completion(state, fx);
    evaluate(state, fx);
}

/// Asks for the results of the text as it is (an empty text clears them).
pub fn evaluate(state: &mut AppState, fx: &mut Vec<Effect>) {
    let text = state.query.text();
    if text.trim().is_empty() {
        state.query.results = None;
        state.query.asked.clear();
        return;
    }
    let generation = state.next_generation();
    let q = &mut state.query;
    q.generation = generation;
    q.asked.clone_from(&text);
    request(fx, Request::RunQuery { generation, text });
}

fn ask_completion(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    let q = &mut state.query;
    q.completion_generation = generation;
    let (text, cursor) = (q.text(), q.cursor_byte());
    request(
        fx,
        Request::Complete {
            generation,
            text,
            cursor,
        },
    );
}

/// The worker's results, if still wanted.
pub fn evaluated(state: &mut AppState, generation: u64, result: Result<ResultsView, ErrorView>) {
    let q = &mut state.query;
    if generation != q.generation {
        return;
    }
    if let Ok(r) = &result {
        q.last_good = Some(r.clone());
        q.selected = q.selected.min(r.paths.len().saturating_sub(1));
    }
    q.results = Some(result);
}

/// The worker's completions, if still wanted: shown while there is
/// something to offer for a word being typed.
pub fn completed(state: &mut AppState, generation: u64, completion: Completion) {
    let q = &mut state.query;
    if generation != q.completion_generation {
        return;
    }
    q.signature.clone_from(&completion.signature);
    let typed = {
        let (a, b) = completion.replace;
        q.text().get(a..b).unwrap_or_default().to_owned()
    };
    // Nothing to offer, or exactly what is typed already: no popup.
    let only_itself = completion.items.len() == 1 && completion.items[0].text == typed;
    // Asked for with `tab`: the first candidate is the choice `enter` takes.
    let chosen = std::mem::take(&mut q.tab_asked);
    q.popup = (!completion.items.is_empty() && !only_itself).then_some(Completions {
        completion,
        selected: 0,
        chosen,
    });
}

/// Replaces the word under the cursor with the chosen candidate.
fn take_candidate(state: &mut AppState, fx: &mut Vec<Effect>) {
    let q = &mut state.query;
    let Some(p) = q.popup.take() else { return };
    let Some(c) = p.completion.items.get(p.selected) else {
        return;
    };
    let text = q.text();
    let (a, b) = p.completion.replace;
    let (a, b) = (a.min(text.len()), b.min(text.len()));
    let mut next = format!("{}{}", &text[..a], c.text);
    let tail = &text[b..];
    if !tail.starts_with(' ') {
        next.push(' ');
    }
    let cursor_chars = next.chars().count();
    next.push_str(tail);
    let cursor_before = text[..q.cursor_byte().min(text.len())].chars().count();
    q.set_text(&next);
    q.set_cursor(cursor_chars);
    changed(state, fx);
    state.query.before_completion = Some((text, cursor_before));
}

/// `ctrl-f`: the error's first suggestion replaces the faulty span.
fn apply_fix(state: &mut AppState, fx: &mut Vec<Effect>) {
    let q = &mut state.query;
    let Some(Err(e)) = &q.results else {
        state.info("nothing to fix");
        return;
    };
    let Some(fix) = e.candidates.first().cloned() else {
        state.error("no suggestion for this error");
        return;
    };
    let text = q.asked.clone();
    let (a, b) = (e.span.0.min(text.len()), e.span.1.min(text.len()));
    let next = format!("{}{fix}{}", &text[..a], &text[b..]);
    q.set_text(&next);
    q.popup = None;
    evaluate(state, fx);
    state.info(format!("applied: {fix}"));
}

/// `ctrl-t` / `T`: cycles the `--tier` flag, to see what a tier matches.
fn cycle_tier(state: &mut AppState, fx: &mut Vec<Effect>) {
    let q = &mut state.query;
    let text = q.text();
    let (without, current) = strip_tier(&text);
    let i = TIERS.iter().position(|t| *t == current.as_deref()).unwrap_or(0);
    let next = TIERS[(i + 1) % TIERS.len()];
    let text = match next {
        Some(t) => format!("{} --tier {t}", without.trim_end()),
        None => without.trim_end().to_owned(),
    };
    q.set_text(&text);
    state.info(match next {
        Some(t) => format!("as tier {t}: what a {t} reader would match"),
        None => "as your own level".to_owned(),
    });
    evaluate(state, fx);
}

/// The text without its `--tier VALUE`, and that value.
pub fn strip_tier(text: &str) -> (String, Option<String>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.iter().position(|w| *w == "--tier") {
        Some(i) => {
            let value = words.get(i + 1).map(|v| (*v).to_owned());
            let rest: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i && *j != i + 1)
                .map(|(_, w)| *w)
                .collect();
            (rest.join(" "), value)
        }
        None => (text.to_owned(), None),
    }
}

/// Loads `text` into the pane and evaluates it (the palette's `:q NAME`,
/// the history).
pub fn load(state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
    state.pane = Pane::Query;
    state.query.set_text(text);
    state.query.editing = true;
    state.query.popup = None;
    evaluate(state, fx);
}

/// Keys on the results (the `[query]` and `[lists]` keymaps).
pub fn query_action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    let n = state.query.shown().map_or(0, |r| rows(state.query.mode, r));
    let page = usize::from(crate::app::layout::list_height(state.size)).max(1);
    let q = &mut state.query;
    match a {
        Action::Up => q.selected = q.selected.saturating_sub(1),
        Action::Down => q.selected = (q.selected + 1).min(n.saturating_sub(1)),
        Action::PageUp => q.selected = q.selected.saturating_sub(page),
        Action::PageDown => q.selected = (q.selected + page).min(n.saturating_sub(1)),
        Action::Top => q.selected = 0,
        Action::Bottom => q.selected = n.saturating_sub(1),
        Action::CardUp => q.scroll = q.scroll.saturating_sub(3),
        Action::CardDown => q.scroll = q.scroll.saturating_add(3),
        Action::EditQuery => q.editing = true,
        Action::CycleView => {
            q.mode = q.mode.next();
            q.selected = 0;
            q.scroll = 0;
        }
        Action::AsTier => cycle_tier(state, fx),
        Action::ProjectQuery => {
            if q.asked.is_empty() {
                state.error("no query to project: type one first");
            } else {
                let text = q.asked.clone();
                go(fx, Go::Project(crate::app::subject::Subject::Query(text)));
            }
        }
        Action::OpenResult => {
            let name = q
                .shown()
                .and_then(|r| r.paths.get(q.selected))
                .and_then(|p| p.nodes.last())
                .map(|(n, _)| n.clone());
            match name {
                Some(name) => go(fx, Go::Node(name)),
                None => state.error("no result selected"),
            }
        }
        Action::QueryHistory => open_history(state, fx),
        Action::SaveQuery => {
            if q.asked.is_empty() {
                state.error("no query to save: type one first");
            } else if state.level < Some(graphex_engine::Level::Master) {
                state.error("saved queries are sealed to the master key: press U to unlock");
            } else {
                state.popups.push(Popup::SaveQuery {
                    input: String::new(),
                    error: None,
                });
            }
        }
        Action::ExportResults => {
            if q.asked.is_empty() {
                state.error("no query to export: type one first");
            } else {
                state.popups.push(Popup::QueryExport {
                    input: "results.json".into(),
                    error: None,
                });
            }
        }
        Action::CopyResults => {
            if q.asked.is_empty() {
                state.error("no query to copy: type one first");
            } else {
                state.popups.push(Popup::CopyAs);
            }
        }
        _ => {}
    }
}

/// The rows `mode` shows for `r` (what `j`/`k` move through).
pub fn rows(mode: Mode, r: &ResultsView) -> usize {
    match mode {
        Mode::Table | Mode::Tree => r.paths.len(),
        Mode::Json => r.json.len(),
    }
}

/// `ctrl-r`: the history search, filled when the worker answers.
fn open_history(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    state.popups.push(Popup::QueryHistory {
        input: String::new(),
        entries: None,
        selected: 0,
        generation,
    });
    request(fx, Request::QueryHistory { generation });
}

/// The history entries matching `input` by the one matcher, best first,
/// the newer first among equals (all, newest first, when nothing is
/// typed), with the matched characters.
pub fn history_matches(entries: &[String], input: &str) -> Vec<(String, Vec<usize>)> {
    let m = Matcher::new(input);
    let mut scored: Vec<(i64, usize, String, Vec<usize>)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| m.hit(e).map(|h| (h.score, i, e.clone(), h.indices)))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, e, idx)| (e, idx)).collect()
}

/// The worker's history, if the search still waits for it.
pub fn history_answer(state: &mut AppState, generation: u64, result: Result<Vec<String>, String>) {
    if let Some(Popup::QueryHistory {
        entries, generation: g, ..
    }) = state.popups.last_mut()
        && *g == generation
    {
        *entries = Some(result);
    }
}

/// A saved query, loaded into the editor.
pub fn saved_loaded(state: &mut AppState, result: Result<(String, String), String>, fx: &mut Vec<Effect>) {
    match result {
        Ok((name, text)) => {
            load(state, &text, fx);
            state.info(format!("loaded the saved query {name}"));
        }
        Err(e) => state.error(e),
    }
}

/// Keys of the pane's dialogs: the export's file name, the copy format,
/// the history search and the name to save under.
pub fn dialog_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    let text = state.query.asked.clone();
    match state.popups.last_mut() {
        Some(Popup::QueryHistory {
            input,
            entries,
            selected,
            ..
        }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected += 1,
            KeyCode::Enter => {
                let chosen = match entries {
                    Some(Ok(list)) => history_matches(list, input).get(*selected).map(|(e, _)| e.clone()),
                    _ => None,
                };
                state.popups.pop();
                if let Some(q) = chosen {
                    load(state, &q, fx);
                }
            }
            _ => {
                if crate::app::text_input::edit_line(input, &k) {
                    *selected = 0;
                }
            }
        },
        Some(Popup::SaveQuery { input, error }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter => match graphex_engine::model::Name::new(input.trim()) {
                Err(e) => *error = Some(format!("name: {e}")),
                Ok(name) => {
                    state.popups.pop();
                    request(
                        fx,
                        Request::SaveQuery {
                            name: name.to_string(),
                            text,
                        },
                    );
                }
            },
            _ => {
                if crate::app::text_input::edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        Some(Popup::CopyAs) => {
            let format = match k.code {
                KeyCode::Char('j') => Some(Format::Json),
                KeyCode::Char('m') => Some(Format::Mermaid),
                KeyCode::Char('d') => Some(Format::Dot),
                KeyCode::Esc => None,
                _ => return,
            };
            state.popups.pop();
            if let Some(format) = format {
                request(fx, Request::CopyQuery { text, format });
            }
        }
        Some(Popup::QueryExport { input, error }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter => {
                let file = std::path::PathBuf::from(input.trim());
                match Format::of(&file) {
                    Err(e) => *error = Some(e),
                    Ok(_) => {
                        state.popups.pop();
                        request(fx, Request::ExportQuery { text, file });
                    }
                }
            }
            _ => {
                if crate::app::text_input::edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        _ => {}
    }
}
