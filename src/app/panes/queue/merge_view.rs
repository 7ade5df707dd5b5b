//! The merge of a near-duplicate, shown before it is accepted: what became
//! of the new node, the rewritten changes drawn as the card draws changes
//! (an update's fields against the existing node, words stressed), and the
//! rewritten proposal's lints.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::data::MergeView;
use crate::app::layout::dialog;
use crate::widgets::dialog::Dialog;
use crate::widgets::{RichLine, Tone, ToneStyles};

pub fn lines(m: &MergeView) -> Vec<RichLine> {
    let mut body: Vec<RichLine> = vec![vec![(
        format!(
            "Change {} of {} adds {}, very close to the existing {}. Merged, it updates {} instead: its fields \
             where they differ, its edges as {}'s. The type and tier of {} stay.",
            m.change, m.short, m.added, m.existing, m.existing, m.existing, m.existing
        ),
        Tone::Normal,
    )]];
    body.push(Vec::new());
    body.push(vec![(format!("Changes ({})", m.changes.len()), Tone::Heading)]);
    for (i, c) in m.changes.iter().enumerate() {
        super::card::change(&mut body, i + 1, c);
    }
    body.push(Vec::new());
    if m.lints.is_empty() {
        body.push(vec![("Lints: none".into(), Tone::Ok)]);
    } else {
        body.push(vec![("Lints".into(), Tone::Warn)]);
        for (code, text) in &m.lints {
            body.push(vec![
                (format!("  {code}: "), Tone::Warn),
                (text.lines().next().unwrap_or_default().to_owned(), Tone::Normal),
            ]);
        }
    }
    body
}

pub fn draw(buf: &mut Buffer, m: &MergeView, styles: &ToneStyles, main: Rect) {
    let body = lines(m);
    let title = format!("Merge into {}", m.existing);
    dialog(
        buf,
        main,
        Dialog {
            title: &title,
            body: &body,
            input: None,
            footer: "a accepts the merge · e edits it first · esc back",
            styles,
        },
    );
}
