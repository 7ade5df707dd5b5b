//! Drawing: the whole screen from `&AppState`, nothing changed.

use graphex_engine::Level;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use super::action::{ALL, Pane, Scope};
use super::highlight::json_lines;
use super::layout::{self, areas, level_name, too_small};
use super::palette;
use super::state::{AppState, Editor, Popup};
use crate::widgets::bars::{HintBar, StatusBar, TabBar};
use crate::widgets::code_view::CodeView;
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
    let titles = layout::tab_titles(state);
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
    match state.pane {
        Pane::Queue => super::panes::queue::view::queue(buf, state, styles, a.list, a.card),
        Pane::Graph => super::panes::graph::view::graph(buf, state, styles, a.main),
        Pane::Query => super::panes::query::view::query(buf, state, styles, a.main),
        Pane::Projection => super::panes::projection::view::projection(buf, state, styles, a.main),
    }
    status(buf, state, styles, a.status);
    HintBar {
        hints: &hints(state),
        pinned: 2,
        styles,
    }
    .render(a.hints, buf);
    for p in &state.popups {
        popup(frame, state, p, styles, a.main);
    }
}

pub(crate) fn block<'a>(title: &'a str, focused: bool, styles: &ToneStyles) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(if focused { styles.border_focused } else { styles.border })
        .title(Span::styled(format!(" {title} "), styles.heading))
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
    let fixed = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, l)| ((*k).to_owned(), (*l).to_owned())).collect();
    match state.popups.last() {
        Some(Popup::Editor(_)) => {
            return fixed(&[
                ("ctrl-s", "accept the edit"),
                ("esc", "cancel"),
                ("ctrl-z", "undo"),
                ("ctrl-y", "redo"),
                ("ctrl-q", "quit"),
            ]);
        }
        Some(Popup::Help { .. } | Popup::Palette { .. } | Popup::Jump(_)) => {
            return fixed(&[
                ("type", "to search"),
                ("↑↓", "choose"),
                ("enter", "run"),
                ("esc", "close"),
            ]);
        }
        Some(Popup::Facets(_)) => {
            return fixed(&[
                ("space", "pick"),
                ("enter", "apply"),
                ("backspace", "all"),
                ("esc", "cancel"),
            ]);
        }
        Some(Popup::Export { .. }) => return fixed(&[("enter", "export"), ("esc", "cancel")]),
        Some(Popup::AsOf { .. }) => return fixed(&[("enter", "show"), ("esc", "cancel")]),
        Some(Popup::NodeForm(_)) => {
            return fixed(&[
                ("tab", "next field"),
                ("←→", "choose"),
                ("ctrl-s", "save"),
                ("esc", "cancel"),
            ]);
        }
        Some(Popup::CopyAs) => return fixed(&[("j", "JSON"), ("m", "Mermaid"), ("d", "DOT"), ("esc", "cancel")]),
        Some(Popup::QueryExport { .. }) => return fixed(&[("enter", "export"), ("esc", "cancel")]),
        Some(Popup::SaveQuery { .. }) => return fixed(&[("enter", "save"), ("esc", "cancel")]),
        Some(Popup::AgentId { .. }) => return fixed(&[("enter", "set"), ("esc", "cancel")]),
        Some(Popup::QueryHistory { .. }) => {
            return fixed(&[
                ("type", "to search"),
                ("↑↓", "choose"),
                ("enter", "load"),
                ("esc", "close"),
            ]);
        }
        Some(Popup::Curator(_)) => {
            return fixed(&[
                ("←→", "type"),
                ("s", "sort"),
                ("o", "order"),
                ("m", "mentions"),
                ("enter", "open / link"),
                ("esc", "close"),
            ]);
        }
        Some(Popup::Relation { .. } | Popup::Prompt { .. }) => {
            return fixed(&[("enter", "confirm"), ("esc", "cancel")]);
        }
        Some(Popup::History(_)) => {
            return fixed(&[
                ("↑↓", "version"),
                ("space", "compare from here"),
                ("pgup/pgdn", "scroll"),
                ("esc", "close"),
            ]);
        }
        Some(Popup::Confirm { .. }) => return fixed(&[("y", "yes"), ("n", "no")]),
        Some(Popup::Stale { edit, .. }) => {
            let mut h: Vec<(String, String)> = fixed(&[("f", "accept anyway")]);
            if edit.is_none() {
                h.push(("e".into(), "edit".into()));
            }
            h.push(("esc".into(), "cancel".into()));
            return h;
        }
        Some(Popup::Unlock { .. } | Popup::Reason { .. }) => return fixed(&[("enter", "confirm"), ("esc", "cancel")]),
        None => {}
    }
    let mut out = Vec::new();
    let wanted = |scope: Scope| scope == Scope::Pane(state.pane);
    let mut seen = std::collections::HashSet::new();
    for info in ALL.iter().filter(|i| wanted(i.scope)) {
        if !seen.insert(info.hint) {
            continue;
        }
        if let Some(k) = state.keymap.keys_of(info.action).first() {
            out.push((k.clone(), info.hint.to_owned()));
        }
    }
    for a in [
        super::action::Action::NextPane,
        super::action::Action::Unlock,
        super::action::Action::Lock,
        super::action::Action::Palette,
        super::action::Action::Help,
        super::action::Action::Quit,
    ] {
        if let Some(k) = state.keymap.keys_of(a).first() {
            out.push((k.clone(), a.info().hint.to_owned()));
        }
    }
    out
}

fn popup(frame: &mut Frame, state: &AppState, p: &Popup, styles: &ToneStyles, main: Rect) {
    let buf = frame.buffer_mut();
    if super::panes::graph::view::popup(buf, state, p, styles, main)
        || super::panes::query::view::popup(buf, p, styles, main)
        || super::panes::projection::view::popup(buf, p, styles, main)
    {
        return;
    }
    match p {
        Popup::Help { filter, selected } => {
            let rows: Vec<_> = palette::help_rows(&state.keymap, filter)
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
        Popup::Palette { input, selected } => {
            let saved = palette::saved_rows(&state.query.saved, input);
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
        Popup::Reason { ids, input, error } => {
            let mut body: Vec<RichLine> = vec![vec![(
                format!(
                    "Why reject {}? The proposing agent reads this reason back; do not name anything it may not see.",
                    if ids.len() == 1 {
                        "this proposal".to_owned()
                    } else {
                        format!("these {} proposals", ids.len())
                    }
                ),
                Tone::Normal,
            )]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            dialog(
                buf,
                main,
                Dialog {
                    title: "Reject",
                    body: &body,
                    input: Some((input.as_str(), false)),
                    footer: "enter rejects · esc cancels",
                    styles,
                },
            );
        }
        Popup::Confirm { text, .. } => {
            let body = vec![vec![(text.clone(), Tone::Normal)]];
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
        Popup::Stale { versions, edit, .. } => {
            let mut body: Vec<RichLine> = vec![
                vec![(
                    "A node this proposal touches changed since the agent saw it.".into(),
                    Tone::Warn,
                )],
                Vec::new(),
            ];
            body.extend(versions.lines().map(|l| vec![(l.to_owned(), Tone::Normal)]));
            dialog(
                buf,
                main,
                Dialog {
                    title: "Stale base",
                    body: &body,
                    input: None,
                    footer: if edit.is_some() {
                        "f accept anyway · esc back to the edit"
                    } else {
                        "f accept anyway · e edit · esc cancel"
                    },
                    styles,
                },
            );
        }
        Popup::Editor(ed) => editor(frame, ed, styles, main),
        // The Graph pane's dialogs are drawn above.
        _ => {}
    }
}

/// Draws `d` centred in `main`, 72 columns at most, as tall as it needs.
pub(crate) fn dialog(buf: &mut ratatui::buffer::Buffer, main: Rect, d: Dialog) {
    let w = 72.min(main.width.saturating_sub(4));
    let h = d.height(w).min(main.height);
    d.render(centered(main, w, h), buf);
}

/// The editor's rectangle and the height of its text.
pub fn editor_area(main: Rect) -> (Rect, u16) {
    (main, main.height.saturating_sub(3))
}

fn editor(frame: &mut Frame, ed: &Editor, styles: &ToneStyles, main: Rect) {
    let buf = frame.buffer_mut();
    let (area, text_h) = editor_area(main);
    ratatui::widgets::Clear.render(area, buf);
    let title = format!("Edit {}{}", ed.short, if ed.modified() { " (modified)" } else { "" });
    let b = block(&title, true, styles);
    let inner = b.inner(area);
    b.render(area, buf);
    let lines = json_lines(ed.area.lines());
    let cursor = ed.area.cursor();
    CodeView {
        lines: &lines,
        cursor: (cursor.0, cursor.1),
        top: ed.top,
        styles,
    }
    .render(Rect::new(inner.x, inner.y, inner.width, text_h), buf);
    let status: Vec<(String, Tone)> = match (&ed.error, &ed.validation, ed.saving) {
        (_, _, true) => vec![("accepting…".into(), Tone::Warn)],
        (Some(e), _, _) => vec![(e.replace('\n', " "), Tone::Error)],
        (None, Some(Ok(n)), _) => vec![(format!("✓ valid: {n} change(s); ctrl-s accepts this edit"), Tone::Ok)],
        (None, Some(Err(e)), _) => vec![("✗ ".into(), Tone::Error), (e.replace('\n', " "), Tone::Error)],
        (None, None, _) => vec![("checking…".into(), Tone::Dim)],
    };
    Paragraph::new(Line::from(
        status
            .into_iter()
            .map(|(s, t)| Span::styled(s, styles.of(t)))
            .collect::<Vec<_>>(),
    ))
    .render(
        Rect::new(inner.x, inner.bottom().saturating_sub(1), inner.width, 1),
        buf,
    );
}
