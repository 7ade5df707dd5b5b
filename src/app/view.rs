//! Drawing: the whole screen from `&AppState`, nothing changed.

use graphex_engine::Level;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::action::Pane;
use super::component::fixed;
use super::layout::{self, areas, dialog, level_name, too_small};
use super::palette;
use super::panes;
use super::state::{AppState, Popup};
use crate::widgets::bars::{HintBar, StatusBar, TabBar};
use crate::widgets::dialog::{Dialog, centered};
use crate::widgets::picker::Picker;
use crate::widgets::{RichLine, Tone, ToneStyles};
use unicode_width::UnicodeWidthStr as _;

/// Draws the console.
pub fn draw(frame: &mut Frame, state: &AppState, styles: &ToneStyles) {
    let size = (frame.area().width, frame.area().height);
    let buf = frame.buffer_mut();
    if too_small(size) {
        let text = format!(
            "The terminal is too small: {}×{}. The console needs at least {}×{}. q quits.",
            size.0,
            size.1,
            layout::MIN_SIZE.0,
            layout::MIN_SIZE.1
        );
        Paragraph::new(text).wrap(Wrap { trim: true }).render(buf.area, buf);
        return;
    }
    let a = areas(size);
    let titles = tab_titles(state);
    let focused = Pane::ALL.iter().position(|p| *p == state.pane).unwrap_or(0);
    // The level's long name when the tabs leave room for it, else one word.
    let tabs_end = TabBar::ranges(&titles).last().map_or(0, |r| r.1);
    let long = level_note(state, true);
    let note = if usize::from(tabs_end) + long.0.width() + 2 <= usize::from(a.tabs.width) {
        long
    } else {
        level_note(state, false)
    };
    TabBar {
        titles: &titles,
        focused,
        right: &[note],
        styles,
    }
    .render(a.tabs, buf);
    panes::of(state.pane).draw(buf, state, styles, &a);
    status(buf, state, styles, a.status);
    HintBar {
        hints: &hints(state),
        pinned: 2,
        styles,
    }
    .render(a.hints, buf);
    for p in &state.popups {
        match panes::owner(p) {
            Some(owner) => owner.draw_popup(frame.buffer_mut(), state, p, styles, a.main),
            None => popup(frame.buffer_mut(), state, p, styles, a.main),
        }
    }
}

/// The tabs' titles, the queue's with its counts (proposals, then
/// contradictions marked `≠`); the mouse hit-tests them.
pub(crate) fn tab_titles(state: &AppState) -> Vec<String> {
    let contradictions = state.queue.contradiction_count();
    Pane::ALL
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Pane::Queue if contradictions > 0 && state.pending > 0 => {
                format!("{} {} ({} · {contradictions}≠)", i + 1, p.title(), state.pending)
            }
            Pane::Queue if contradictions > 0 => format!("{} {} ({contradictions}≠)", i + 1, p.title()),
            Pane::Queue if state.pending > 0 => format!("{} {} ({})", i + 1, p.title(), state.pending),
            _ => format!("{} {}", i + 1, p.title()),
        })
        .collect()
}

/// The unlock level, in words (`long`) or one word.
fn level_note(state: &AppState, long: bool) -> (String, Tone) {
    if state.rolled_back.is_some() {
        let text = if long {
            "⚠ ROLLED BACK: read-only"
        } else {
            "⚠ ROLLED BACK"
        };
        return (text.to_owned(), Tone::Error);
    }
    match state.level {
        None => ("opening…".to_owned(), Tone::Dim),
        Some(l) => {
            let icon = if l >= Level::Master { "🔓" } else { "🔒" };
            let name = if long { level_name(l) } else { layout::level_word(l) };
            (
                format!("{icon} {name}"),
                if l >= Level::Master { Tone::Accent } else { Tone::Warn },
            )
        }
    }
}

fn status(buf: &mut ratatui::buffer::Buffer, state: &AppState, styles: &ToneStyles, area: Rect) {
    let level = |long: bool| level_note(state, long);
    let mut segs = vec![
        (state.store.clone(), Tone::Dim),
        level(true),
        (format!("{} pending", state.pending), Tone::Normal),
    ];
    match state.queue.contradiction_count() {
        0 => {}
        1 => segs.push(("1 contradiction".to_owned(), Tone::Warn)),
        n => segs.push((format!("{n} contradictions"), Tone::Warn)),
    }
    if !state.queue.skipped.is_empty() {
        segs.push((format!("{} skipped", state.queue.skipped.len()), Tone::Dim));
    }
    if let Some(b) = &state.busy {
        segs.push((format!("{b}…"), Tone::Warn));
    } else if let Some((m, tone)) = &state.message {
        segs.push((m.replace(['\n', '\r'], " "), *tone));
    }
    // The message matters most: the level's long name, then the store path
    // (from the left) give way.
    let width = usize::from(area.width);
    let used = |segs: &[(String, Tone)]| segs.iter().map(|(t, _)| t.width() + 3).sum::<usize>();
    if used(&segs) > width {
        segs[1] = level(false);
    }
    let others = used(&segs[1..]);
    let room = width.saturating_sub(others).max(12);
    if segs[0].0.width() > room {
        let chars: Vec<char> = segs[0].0.chars().collect();
        let tail: String = chars[chars.len().saturating_sub(room - 1)..].iter().collect();
        segs[0].0 = format!("…{tail}");
    }
    StatusBar {
        segments: &segs,
        styles,
    }
    .render(area, buf);
}

/// The hint bar: the focused dialog's keys, or the pane's commands then a
/// few global ones, generated from the action table and the keymap.
pub fn hints(state: &AppState) -> Vec<(String, String)> {
    if let Some(p) = state.popups.last() {
        return match panes::owner(p) {
            Some(owner) => owner.hints(state),
            None => dialog_hints(p),
        };
    }
    let mut out = panes::of(state.pane).hints(state);
    // Typing into the query editor or the rings' filter: letters are text
    // there, so the global letter keys are not offered.
    let typing = match state.pane {
        super::action::Pane::Query => state.query.editing,
        super::action::Pane::Graph => state.graph.filter.typing,
        _ => false,
    };
    if typing {
        return out;
    }
    for a in [
        super::action::Action::NextPane,
        super::action::Action::Unlock,
        super::action::Action::Lock,
        super::action::Action::Palette,
        super::action::Action::Help,
        super::action::Action::Quit,
    ] {
        // Nothing to lock when nothing is unlocked.
        let locked = state.level.unwrap_or(graphex_engine::Level::Locked) == graphex_engine::Level::Locked;
        if a == super::action::Action::Lock && locked {
            continue;
        }
        if let Some(k) = state.keymap.keys_of(a).first() {
            // Once: a pane may lead with one (a locked queue, `U unlock`).
            let hint = (k.clone(), a.info().hint.to_owned());
            if !out.contains(&hint) {
                out.push(hint);
            }
        }
    }
    out
}

/// The keys of the shell's own dialogs.
fn dialog_hints(p: &Popup) -> Vec<(String, String)> {
    match p {
        Popup::Help { .. } | Popup::Palette { .. } => fixed(&[
            ("type", "to search"),
            ("↑↓", "choose"),
            ("enter", "run"),
            ("esc", "close"),
        ]),
        Popup::Confirm { .. } => fixed(&[("y", "yes"), ("n", "no")]),
        Popup::Messages { .. } => fixed(&[("↑↓", "scroll"), ("esc", "close")]),
        _ => fixed(&[("enter", "confirm"), ("esc", "cancel")]),
    }
}

/// Draws one of the shell's own dialogs.
fn popup(buf: &mut ratatui::buffer::Buffer, state: &AppState, p: &Popup, styles: &ToneStyles, main: Rect) {
    match p {
        Popup::Messages { scroll } => {
            let lines: Vec<RichLine> = if state.messages.is_empty() {
                vec![vec![("no message yet".to_owned(), Tone::Dim)]]
            } else {
                state
                    .messages
                    .iter()
                    .enumerate()
                    .map(|(i, (m, t))| {
                        let at = state.message_times.get(i).cloned().unwrap_or_default();
                        vec![(format!("{at}  "), Tone::Dim), (m.clone(), *t)]
                    })
                    .collect()
            };
            let area = centered(main, 100, main.height.saturating_sub(2));
            ratatui::widgets::Clear.render(area, buf);
            crate::widgets::rich_text::RichText {
                lines: &lines,
                scroll: *scroll,
                styles,
                block: Some(super::layout::block(
                    "Messages (newest last) · esc closes",
                    true,
                    styles,
                )),
            }
            .render(area, buf);
        }
        Popup::Help {
            filter,
            selected,
            focus,
        } => {
            let rows: Vec<_> = palette::help_rows(&state.keymap, filter, state.pane, focus)
                .into_iter()
                .map(|m| m.row)
                .collect();
            let area = centered(main, 100, main.height.saturating_sub(2));
            Picker {
                title: "Keys (type to search)",
                query: filter,
                selected: Some((*selected).min(rows.len().saturating_sub(1))),
                rows: &rows,
                footer: "enter runs · esc closes · keys: assets/keymap.toml, [graphex.console.keys] in config.toml",
                styles,
            }
            .render(area, buf);
        }
        Popup::Palette {
            input,
            selected,
            preview,
        } => {
            let saved = match preview {
                Some(p) => Some(vec![p.row.clone()]),
                None => palette::saved_rows(&state.query.saved, input),
            };
            let rows: Vec<_> = saved.unwrap_or_else(|| {
                palette::matches(input, state.pane)
                    .into_iter()
                    .map(|m| {
                        let mut r = m.row;
                        r.left = m
                            .action
                            .and_then(|a| state.keymap.keys_of(a).first().cloned())
                            .unwrap_or_default();
                        r
                    })
                    .collect()
            });
            let area = centered(main, 90, 16.min(main.height));
            Picker {
                title: "Run an action",
                query: input,
                selected: Some((*selected).min(rows.len().saturating_sub(1))),
                rows: &rows,
                footer: "enter runs · esc closes",
                styles,
            }
            .render(area, buf);
        }
        Popup::Unlock {
            human,
            input,
            error,
            busy,
        } => {
            let mut body: Vec<RichLine> = vec![vec![(
                if *human {
                    "The human-only passphrase opens the human-only tier (with the master).".to_owned()
                } else {
                    "The master passphrase opens everything but human-only.".to_owned()
                },
                Tone::Normal,
            )]];
            if *busy {
                body.push(vec![(
                    "Unlocking… (the passphrase KDF is slow on purpose)".into(),
                    Tone::Warn,
                )]);
            }
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            dialog(
                buf,
                main,
                Dialog {
                    title: if *human { "Unlock human-only" } else { "Unlock master" },
                    body: &body,
                    input: Some((input.as_str(), true)),
                    footer: "enter unlocks · esc cancels",
                    styles,
                },
            );
        }
        Popup::Confirm { text, .. } => {
            // One body line per line of the question (a batch lists each proposal).
            let body: Vec<_> = text.lines().map(|l| vec![(l.to_owned(), Tone::Normal)]).collect();
            dialog(
                buf,
                main,
                Dialog {
                    title: "Confirm",
                    body: &body,
                    input: None,
                    footer: "y yes · n no",
                    styles,
                },
            );
        }
        // The panes' dialogs are drawn by their panes.
        _ => {}
    }
}
