//! Drawing the Query pane: the editor (highlighted, the error's span
//! underlined, the cursor), the line below it (the error and its
//! suggestions, the flag's help, or the count), the results in the chosen
//! view, and the completion popup under the cursor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthStr as _;

use super::work::{PathRow, ResultsView};
use super::{Mode, QueryPane};
use crate::app::highlight::{json_lines, query_lines};
use crate::app::layout::block;
use crate::app::state::{AppState, Popup};
use crate::widgets::dialog::{Dialog, centered};
use crate::widgets::grouped_list::{GroupedList, Row};
use crate::widgets::picker::{PickRow, Picker};
use crate::widgets::{RichLine, Tone, ToneStyles};

/// The pane's regions in `main`: the editor (3 rows), the line under it,
/// the results.
pub fn areas(main: Rect) -> (Rect, Rect, Rect) {
    let editor = Rect::new(main.x, main.y, main.width, 3.min(main.height));
    let note = Rect::new(
        main.x,
        editor.bottom(),
        main.width,
        1.min(main.height.saturating_sub(3)),
    );
    let results = Rect::new(
        main.x,
        note.bottom(),
        main.width,
        main.height.saturating_sub(editor.height + note.height),
    );
    (editor, note, results)
}

pub(crate) fn query(buf: &mut Buffer, state: &AppState, styles: &ToneStyles, main: Rect) {
    let q = &state.query;
    let (editor_area, note_area, results_area) = areas(main);
    editor(buf, q, styles, editor_area);
    note(buf, state, styles, note_area);
    results(buf, q, styles, results_area);
    if let Some(p) = &q.popup
        && q.editing
    {
        completion(buf, q, p, styles, editor_area, main);
    }
}

fn editor(buf: &mut Buffer, q: &QueryPane, styles: &ToneStyles, area: Rect) {
    let tier = super::update::strip_tier(&q.text()).1;
    let title = match (&tier, q.editing) {
        (Some(t), _) => format!("Query · as tier {t}"),
        (None, true) => "Query (esc: to the results)".to_owned(),
        (None, false) => "Query (i: edit)".to_owned(),
    };
    let b = block(&title, q.editing, styles);
    let inner = b.inner(area);
    b.render(area, buf);
    if inner.height == 0 {
        return;
    }
    let text = q.text();
    let rich = query_lines(std::slice::from_ref(&text)).remove(0);
    let error_span = match &q.results {
        Some(Err(e)) if q.asked == text => Some(e.span),
        _ => None,
    };
    // Scroll sideways so the cursor stays in view.
    let cursor_col = q.editor.cursor().1;
    let width = usize::from(inner.width).max(1);
    let left = (cursor_col + 1).saturating_sub(width);
    let mut spans = Vec::new();
    let (mut col, mut byte) = (0usize, 0usize);
    for (piece, tone) in &rich {
        for ch in piece.chars() {
            let mut style = styles.of(*tone);
            if error_span.is_some_and(|(a, b)| byte >= a && byte < b.max(a + 1)) {
                style = style
                    .add_modifier(Modifier::UNDERLINED | Modifier::BOLD)
                    .patch(styles.error);
            }
            if q.editing && col == cursor_col {
                style = styles.selected;
            }
            if col >= left {
                // Stored or pasted text is shown inert.
                let shown = graphex_engine::hygiene::visible_line(ch.encode_utf8(&mut [0; 4])).into_owned();
                spans.push(Span::styled(shown, style));
            }
            col += 1;
            byte += ch.len_utf8();
        }
    }
    if q.editing && cursor_col >= col {
        spans.push(Span::styled(" ", styles.selected));
    }
    // An error at the very end (a missing word) is marked after the text.
    if error_span.is_some_and(|(a, _)| a >= text.len()) {
        spans.push(Span::styled("⌃", styles.error));
    }
    Line::from(spans).render(inner, buf);
}

fn note(buf: &mut Buffer, state: &AppState, styles: &ToneStyles, area: Rect) {
    let q = &state.query;
    let text = q.text();
    // While a flag's value is being typed, its help says more than the
    // error of the value still missing.
    let typing_at_end = |e: &super::work::ErrorView| e.span.0 >= text.trim_end().len();
    let line: Vec<(String, Tone)> = match (&q.results, &q.signature) {
        (Some(Err(e)), Some(help)) if q.editing && typing_at_end(e) => vec![(help.clone(), Tone::Dim)],
        (Some(Err(e)), _) if q.asked == text => {
            let mut l = vec![(format!("✗ {}", e.message.replace('\n', " ")), Tone::Error)];
            if let Some(first) = e.candidates.first() {
                l.push((format!("  did you mean {first}?"), Tone::Warn));
                l.push(("  ctrl-f applies it".into(), Tone::Key));
            }
            l
        }
        (_, Some(help)) if q.editing => vec![(help.clone(), Tone::Dim)],
        (Some(Ok(r)), _) => vec![(count_words(r), Tone::Ok)],
        _ if q.text().trim().is_empty() => vec![(
            "Type a query: orders-service -> depends-on -> * --depth 2 (tab completes)".into(),
            Tone::Dim,
        )],
        _ => vec![("evaluating…".into(), Tone::Dim)],
    };
    Line::from(
        line.into_iter()
            .map(|(s, t)| Span::styled(s, styles.of(t)))
            .collect::<Vec<_>>(),
    )
    .render(area, buf);
}

fn count_words(r: &ResultsView) -> String {
    format!(
        "✓ {} path{}{}",
        r.total,
        if r.total == 1 { "" } else { "s" },
        if r.truncated {
            format!(", truncated to {} (--limit)", r.paths.len())
        } else {
            String::new()
        }
    )
}

/// A path in one line: `a —uses (0.90)→ b ←owned-by— c`.
pub fn path_line(p: &PathRow) -> RichLine {
    let mut out: RichLine = Vec::new();
    if let Some((name, _)) = p.nodes.first() {
        out.push((name.clone(), Tone::Accent));
    }
    for (step, (name, _)) in p.steps.iter().zip(p.nodes.iter().skip(1)) {
        let conf = if step.confidence < 1.0 {
            format!(" ({:.2})", step.confidence)
        } else {
            String::new()
        };
        let arrow = match (step.bidirectional, step.forward) {
            (true, _) => format!(" ←{}{conf}→ ", step.relation),
            (false, true) => format!(" —{}{conf}→ ", step.relation),
            (false, false) => format!(" ←{}{conf}— ", step.relation),
        };
        out.push((arrow, Tone::Field));
        out.push((name.clone(), Tone::Accent));
    }
    if let Some((_, t)) = p.nodes.last() {
        out.push((format!("  {t}"), Tone::Dim));
    }
    out
}

fn results(buf: &mut Buffer, q: &QueryPane, styles: &ToneStyles, area: Rect) {
    let Some(r) = q.shown() else {
        let b = block("Results", !q.editing, styles);
        b.render(area, buf);
        return;
    };
    let stale = !matches!(q.results, Some(Ok(_)));
    // Where the cursor is among the paths, once the results have the keys.
    let position = if q.editing || r.paths.is_empty() {
        String::new()
    } else {
        format!(" · {}/{}", q.selected.min(r.paths.len() - 1) + 1, r.paths.len())
    };
    let title = format!(
        "Results · {} · {}{}{position} · v: table / tree / JSON",
        q.mode.name(),
        count_words(r).trim_start_matches("✓ "),
        if stale { " · (of the last valid query)" } else { "" }
    );
    let selected = (!q.editing).then_some(q.selected);
    let rows: Vec<Row> = match q.mode {
        Mode::Table => r.paths.iter().map(|p| item(path_line(p))).collect(),
        Mode::Tree => return tree(buf, r, selected, &title, styles, area),
        Mode::Json => json_lines(&r.json).into_iter().map(item).collect(),
    };
    GroupedList {
        rows: &rows,
        selected,
        styles,
        block: Some(block(&title, !q.editing, styles)),
    }
    .render(area, buf);
}

fn item(spans: RichLine) -> Row {
    Row::Item {
        spans,
        marked: false,
        dimmed: false,
    }
}

/// Paths grouped by their first hop (`→ depends-on`), the rest of each path
/// under it; `selected` counts paths, not headers.
fn tree(buf: &mut Buffer, r: &ResultsView, selected: Option<usize>, title: &str, styles: &ToneStyles, area: Rect) {
    let mut order: Vec<String> = Vec::new();
    let key = |p: &PathRow| {
        p.steps.first().map_or_else(
            || "(a node alone)".to_owned(),
            |s| {
                let arrow = if s.bidirectional {
                    "↔"
                } else if s.forward {
                    "→"
                } else {
                    "←"
                };
                format!("{} {arrow} {}", p.nodes[0].0, s.relation)
            },
        )
    };
    for p in &r.paths {
        let k = key(p);
        if !order.contains(&k) {
            order.push(k);
        }
    }
    let mut rows = Vec::new();
    let mut at = None;
    let mut index = 0;
    for k in &order {
        rows.push(Row::Header(k.clone()));
        for p in r.paths.iter().filter(|p| key(p) == *k) {
            if selected == Some(index) {
                at = Some(rows.len());
            }
            index += 1;
            let rest = PathRow {
                nodes: p.nodes[1.min(p.nodes.len())..].to_vec(),
                steps: p.steps.iter().skip(1).cloned().collect(),
            };
            let mut line = vec![("  ".to_owned(), Tone::Dim)];
            line.extend(path_line(&rest));
            rows.push(item(line));
        }
    }
    GroupedList {
        rows: &rows,
        selected: at,
        styles,
        block: Some(block(title, selected.is_some(), styles)),
    }
    .render(area, buf);
}

fn completion(buf: &mut Buffer, q: &QueryPane, p: &super::Popup, styles: &ToneStyles, editor: Rect, main: Rect) {
    let items = &p.completion.items;
    let width = items
        .iter()
        .map(|c| c.text.width() + c.detail.width() + 4)
        .max()
        .unwrap_or(10)
        .clamp(16, 70) as u16;
    let col = u16::try_from(q.editor.cursor().1).unwrap_or(0);
    let x = (editor.x + 1 + col).min(main.right().saturating_sub(width));
    // Under the note line, which keeps showing the flag's help or the error.
    let top = editor.bottom() + 1;
    let h = (items.len() as u16 + 2).min(main.bottom().saturating_sub(top));
    let area = Rect::new(x, top, width.min(main.width), h);
    ratatui::widgets::Clear.render(area, buf);
    let rows: Vec<Row> = items
        .iter()
        .map(|c| {
            let mut spans: RichLine = Vec::new();
            for (i, ch) in c.text.chars().enumerate() {
                let tone = if c.matched.contains(&i) {
                    Tone::Accent
                } else {
                    Tone::Normal
                };
                match spans.last_mut() {
                    Some((s, t)) if *t == tone => s.push(ch),
                    _ => spans.push((ch.to_string(), tone)),
                }
            }
            spans.push((format!("  {}", c.detail), Tone::Dim));
            item(spans)
        })
        .collect();
    GroupedList {
        rows: &rows,
        selected: Some(p.selected),
        styles,
        block: Some(block("tab takes · ↑↓ enter takes · esc", true, styles)),
    }
    .render(area, buf);
}

/// Draws the pane's dialogs; false when `p` is not one of them.
pub(crate) fn popup(buf: &mut Buffer, p: &Popup, styles: &ToneStyles, main: Rect) -> bool {
    if let Popup::QueryHistory {
        input,
        entries,
        selected,
        ..
    } = p
    {
        let (rows, footer): (Vec<PickRow>, &str) = match entries {
            None => (Vec::new(), "reading the history…"),
            Some(Err(e)) => (
                vec![PickRow {
                    left: String::new(),
                    text: e.clone(),
                    matched: Vec::new(),
                }],
                "esc closes",
            ),
            Some(Ok(list)) => (
                super::update::history_matches(list, input)
                    .into_iter()
                    .map(|(text, matched)| PickRow {
                        left: String::new(),
                        text: graphex_engine::hygiene::visible_line(&text).into_owned(),
                        matched,
                    })
                    .collect(),
                "enter loads it into the editor · esc closes",
            ),
        };
        Picker {
            title: "Queries run before (newest first)",
            query: input,
            selected: (!rows.is_empty()).then(|| (*selected).min(rows.len() - 1)),
            rows: &rows,
            footer,
            styles,
        }
        .render(centered(main, 100, main.height.saturating_sub(2)), buf);
        return true;
    }
    let (title, body, input, footer): (&str, Vec<RichLine>, Option<&str>, &str) = match p {
        Popup::SaveQuery { input, error } => {
            let mut body = vec![vec![(
                "Save this query in the store, sealed to the master key; the team gets it with the repository. A name like a node's (letters, digits, -)."
                    .to_owned(),
                Tone::Normal,
            )]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            (
                "Save the query",
                body,
                Some(input.as_str()),
                "enter saves · esc cancels",
            )
        }
        Popup::CopyAs => (
            "Copy the results to the clipboard",
            vec![vec![(
                "j JSON · m Mermaid · d DOT. The terminal copies it (OSC 52, over ssh and tmux too).".into(),
                Tone::Normal,
            )]],
            None,
            "j / m / d · esc cancels",
        ),
        Popup::QueryExport { input, error } => {
            let mut body = vec![vec![(
                "Export the results to a new file: .json, .mmd (Mermaid) or .dot (DOT). It is plain text.".to_owned(),
                Tone::Normal,
            )]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            (
                "Export the results",
                body,
                Some(input.as_str()),
                "enter exports · esc cancels",
            )
        }
        _ => return false,
    };
    let d = Dialog {
        title,
        body: &body,
        input: input.map(|i| (i, false)),
        footer,
        styles,
    };
    crate::app::layout::dialog(buf, main, d);
    true
}
