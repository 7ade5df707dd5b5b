//! Drawing the queue's dialogs: the reject reason, the stale base and the
//! proposal editor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::app::highlight::json_lines;
use crate::app::layout::{block, dialog, editor_area};
use crate::app::state::{Editor, Popup};
use crate::widgets::code_view::CodeView;
use crate::widgets::dialog::Dialog;
use crate::widgets::{RichLine, Tone, ToneStyles};

/// Draws `p` if it is one of the queue's dialogs.
pub fn popup(buf: &mut Buffer, p: &Popup, styles: &ToneStyles, main: Rect) {
    match p {
        Popup::Reason { ids, input, error } => {
            let body: Vec<RichLine> = vec![vec![(
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
            prompt(
                buf,
                main,
                styles,
                "Reject",
                body,
                (input, error.as_deref()),
                "enter rejects · ↑ suggestions · esc cancels",
            );
        }
        Popup::ChangesComment {
            id,
            changes,
            change,
            input,
            error,
        } => {
            let on = match change {
                Some(c) => format!("change {c} of {changes}"),
                None => "the whole proposal".to_owned(),
            };
            let body: Vec<RichLine> = vec![
                vec![(
                    format!(
                        "What should change in {}? The agent reads this comment and answers with a revision; do not name anything it may not see.",
                        id.get(..12).unwrap_or(id)
                    ),
                    Tone::Normal,
                )],
                vec![
                    ("On: ".into(), Tone::Dim),
                    (on, Tone::Accent),
                    ("  (tab: another)".into(), Tone::Dim),
                ],
            ];
            prompt(
                buf,
                main,
                styles,
                "Ask for changes",
                body,
                (input, error.as_deref()),
                "enter sends · tab whole / change · ↑ suggestions · esc cancels",
            );
        }
        Popup::Stale {
            versions,
            three,
            edit,
            flags,
            ..
        } => {
            let mut body: Vec<RichLine> = vec![vec![(
                "A node this proposal touches changed since the agent saw it.".into(),
                Tone::Warn,
            )]];
            if !flags.is_empty() {
                body.push(vec![(
                    format!("Also flagged: {}. f accepts it with these too.", flags.join(", ")),
                    Tone::Warn,
                )]);
            }
            body.push(Vec::new());
            if three.is_empty() {
                body.extend(versions.lines().map(|l| vec![(l.to_owned(), Tone::Normal)]));
            } else {
                // The dialog's inside: 72 columns at most, less its borders.
                let width = usize::from(72.min(main.width.saturating_sub(4)).saturating_sub(2));
                body.extend(super::three_way_view::lines(three, width));
            }
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
        Popup::KeepReason {
            kept,
            deprecated,
            input,
            error,
        } => {
            let body: Vec<RichLine> = vec![vec![(
                format!(
                    "Why deprecate {deprecated}, keeping {kept}? The reason is stored with {deprecated}; agents read \
                     it with the node. Confirmed next."
                ),
                Tone::Normal,
            )]];
            prompt(
                buf,
                main,
                styles,
                &format!("Keep {kept}"),
                body,
                (input, error.as_deref()),
                "enter continues · esc cancels",
            );
        }
        Popup::Editor(ed) => editor(buf, ed, styles, main),
        Popup::Merge(m) => super::merge_view::draw(buf, m, styles, main),
        _ => {}
    }
}

/// A dialog asking for one line of text: `body`, the line typed with the
/// problem with it if any, and what the keys do.
fn prompt(
    buf: &mut Buffer,
    main: Rect,
    styles: &ToneStyles,
    title: &str,
    mut body: Vec<RichLine>,
    (input, error): (&str, Option<&str>),
    footer: &str,
) {
    if let Some(e) = error {
        body.push(vec![(e.to_owned(), Tone::Error)]);
    }
    dialog(
        buf,
        main,
        Dialog {
            title,
            body: &body,
            input: Some((input, false)),
            footer,
            styles,
        },
    );
}

fn editor(buf: &mut Buffer, ed: &Editor, styles: &ToneStyles, main: Rect) {
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
