//! Drawing the curation dialogs: the node form (fields, the checks made as
//! you type, the review of an edit), the relation picker and the prompts.
//! Text from the store is escaped as it is drawn: a field holding a
//! control character shows its escape, never the character.

use graphex_engine::hygiene::visible_line;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::curate_ui::relation_rows;
use super::form::{Field, NodeForm};
use crate::app::layout::block;
use crate::app::state::{AppState, Popup};
use crate::widgets::dialog::{Dialog, centered};
use crate::widgets::picker::{PickRow, Picker};
use crate::widgets::rich_text::RichText;
use crate::widgets::word_diff::word_diff;
use crate::widgets::{RichLine, Tone, ToneStyles};

/// Draws `p` if it is a curation dialog.
pub(crate) fn popup(buf: &mut Buffer, state: &AppState, p: &Popup, styles: &ToneStyles, main: Rect) -> bool {
    match p {
        Popup::NodeForm(f) => form(buf, f, styles, main),
        Popup::Relation {
            from,
            input,
            selected,
            incoming,
        } => {
            let rows: Vec<PickRow> = relation_rows(state, input)
                .into_iter()
                .map(|(r, n, matched)| PickRow {
                    left: format!("{n}"),
                    text: r,
                    matched,
                })
                .collect();
            let title = if *incoming {
                format!("Link … → RELATION → {from}: incoming (tab: outgoing)")
            } else {
                format!("Link {from} → RELATION → …: outgoing (tab: incoming)")
            };
            Picker {
                title: &title,
                query: input,
                selected: (!rows.is_empty()).then_some((*selected).min(rows.len().saturating_sub(1))),
                rows: &rows,
                footer: "type or choose a relation · tab turns the edge around · enter takes it, then choose the other end · esc cancels",
                styles,
            }
            .render(centered(main, 72, main.height.saturating_sub(4)), buf);
        }
        Popup::Prompt {
            title,
            text,
            input,
            error,
            ..
        } => {
            let mut body: Vec<RichLine> = vec![vec![(text.clone(), Tone::Normal)]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            let d = Dialog {
                title,
                body: &body,
                input: Some((input.as_str(), false)),
                footer: "enter confirms · esc cancels",
                styles,
            };
            crate::app::layout::dialog(buf, main, d);
        }
        _ => return false,
    }
    true
}

fn form(buf: &mut Buffer, f: &NodeForm, styles: &ToneStyles, main: Rect) {
    let area = centered(main, main.width.saturating_sub(4).min(100), main.height);
    ratatui::widgets::Clear.render(area, buf);
    let title = match (f.is_edit(), f.review.is_some()) {
        (true, false) => format!("Edit {}", f.values.name),
        (true, true) => format!("Edit {} · review", f.values.name),
        (false, false) => "New node".to_owned(),
        (false, true) => "New node · review".to_owned(),
    };
    let mut lines: Vec<RichLine> = Vec::new();
    let values = f.current();
    // While the change is reviewed, the review has the box: the fields it
    // changes are in it, and the rest would push it off a small terminal.
    let fields = if f.review.is_some() { &[][..] } else { &Field::ALL[..] };
    for &field in fields {
        let focused = f.focus == field;
        let marker = if focused { "▸ " } else { "  " };
        let label = (
            format!("{marker}{:<12}", field.label()),
            if focused { Tone::Accent } else { Tone::Dim },
        );
        let value = match field {
            Field::Type => format!("{}   (←/→ or type)", values.node_type),
            Field::Name => values.name.clone(),
            Field::Description => values.description.clone(),
            Field::Tier => format!("{}   (←/→)", values.tier.map(|t| t.to_string()).unwrap_or_default()),
            Field::Properties => values.properties.clone(),
            Field::Body => format!("{} line(s)", f.body.lines().len()),
        };
        let cursor = if focused && !matches!(field, Field::Tier | Field::Body) {
            "▏"
        } else {
            ""
        };
        lines.push(vec![label, (format!("{}{cursor}", visible_line(&value)), Tone::Normal)]);
        if field == Field::Name && !f.is_edit() {
            match &f.name_check {
                Some(Ok(())) => lines.push(vec![("              ✓ free".into(), Tone::Ok)]),
                Some(Err(e)) => lines.push(vec![(format!("              ✗ {e}"), Tone::Error)]),
                None if !values.name.trim().is_empty() => {
                    lines.push(vec![("              checking…".into(), Tone::Dim)])
                }
                None => {}
            }
        }
        if field == Field::Properties && focused {
            lines.push(vec![("              key=value; key2=value2".into(), Tone::Dim)]);
        }
    }
    if f.focus == Field::Body && f.review.is_none() {
        lines.push(Vec::new());
        let row = f.body.cursor().0;
        for (i, l) in f.body.lines().iter().enumerate() {
            let gutter = if i == row { "▸│ " } else { " │ " };
            lines.push(vec![
                (gutter.into(), Tone::Dim),
                (visible_line(l).into_owned(), Tone::Normal),
            ]);
        }
    }
    if let Some(review) = &f.review {
        lines.push(vec![("Review".into(), Tone::Heading)]);
        for (field, before, after) in f.diff() {
            lines.push(vec![(format!("{field}:"), Tone::Field)]);
            let (old, new) = word_diff(&visible_line(&before), &visible_line(&after));
            let mut minus = vec![("  - ".to_owned(), Tone::Removed)];
            minus.extend(old);
            let mut plus = vec![("  + ".to_owned(), Tone::Added)];
            plus.extend(new);
            lines.push(minus);
            lines.push(plus);
        }
        lines.extend(review.iter().map(|l| vec![(l.clone(), Tone::Warn)]));
    }
    if let Some(e) = &f.error {
        lines.push(Vec::new());
        lines.push(vec![(e.replace('\n', " "), Tone::Error)]);
    }
    if f.saving {
        lines.push(vec![("saving…".into(), Tone::Warn)]);
    }
    if f.review.is_none() {
        lines.push(Vec::new());
        lines.push(vec![("tab next field · ctrl-s save · esc cancel".into(), Tone::Dim)]);
    }
    RichText {
        lines: &lines,
        scroll: 0,
        styles,
        block: Some(block(&title, true, styles)),
    }
    .render(area, buf);
}
