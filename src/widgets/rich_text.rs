//! A scrollable block of toned lines, wrapped at spaces to the width with a
//! hanging indent: a wrapped line's continuation rows keep its indentation.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Widget};
use unicode_width::UnicodeWidthChar;

use super::tone::{RichLine, Tone, ToneStyles};

pub struct RichText<'a> {
    pub lines: &'a [RichLine],
    pub scroll: u16,
    pub styles: &'a ToneStyles,
    pub block: Option<Block<'a>>,
}

/// The rows `line` takes at `width` columns. Breaks fall after spaces; a
/// word wider than the row is cut. Continuation rows start with the line's
/// leading spaces and its quote gutter or diff marker, if any (at most half
/// the width).
pub fn wrap(line: &RichLine, width: usize) -> Vec<RichLine> {
    let width = width.max(1);
    let chars: Vec<(char, Tone)> = line.iter().flat_map(|(s, t)| s.chars().map(|c| (c, *t))).collect();
    // The hanging indent: the leading spaces, and a quote gutter (`│ `)
    // after them, so every row of quoted agent text carries the gutter and
    // a wrapped row can never pass for one of the card's own lines.
    let lead = chars.iter().take_while(|(c, _)| *c == ' ').count();
    // A diff line's `+ ` or `- ` (in a change's tone; a markdown list
    // item is not one) is repeated likewise, so a wrapped row still says
    // which side it is on.
    let changed = |t: &Tone| matches!(t, Tone::Added | Tone::Removed | Tone::AddedStrong | Tone::RemovedStrong);
    let gutter = match chars.get(lead..lead + 2) {
        Some([('│', _), (' ', _)]) => true,
        Some([('+' | '-', t), (' ', _)]) => changed(t),
        _ => false,
    };
    let mut prefix: Vec<(char, Tone)> = chars[..lead].iter().map(|&(c, _)| (c, Tone::Normal)).collect();
    if gutter {
        prefix.extend_from_slice(&chars[lead..lead + 2]);
    }
    prefix.truncate(width / 2);
    let indent = prefix.len();
    let mut rows: Vec<Vec<(char, Tone)>> = Vec::new();
    let mut row: Vec<(char, Tone)> = Vec::new();
    let mut col = 0usize;
    let mut i = 0;
    while i < chars.len() {
        // The next word and the spaces after it.
        let start = i;
        while i < chars.len() && chars[i].0 != ' ' {
            i += 1;
        }
        // An edge's arrow goes with the name after it: a row never ends on
        // `→`, so a wrapped edge reads `+ a → uses` / `+ → b`, one edge.
        if i == start + 1 && chars[start].0 == '→' {
            while i < chars.len() && chars[i].0 == ' ' {
                i += 1;
            }
            while i < chars.len() && chars[i].0 != ' ' {
                i += 1;
            }
        }
        let word_end = i;
        while i < chars.len() && chars[i].0 == ' ' {
            i += 1;
        }
        let word = &chars[start..word_end];
        let word_w: usize = word.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
        if col + word_w > width && col > indent && !word.is_empty() {
            rows.push(std::mem::take(&mut row));
            row.extend_from_slice(&prefix);
            col = indent;
        }
        for &(c, t) in &chars[start..i] {
            let w = c.width().unwrap_or(0);
            if col + w > width {
                if c == ' ' {
                    continue;
                }
                rows.push(std::mem::take(&mut row));
                row.extend_from_slice(&prefix);
                col = indent;
            }
            row.push((c, t));
            col += w;
        }
    }
    rows.push(row);
    rows.into_iter().map(|r| spans(&r)).collect()
}

/// Runs of one tone joined into spans.
fn spans(chars: &[(char, Tone)]) -> RichLine {
    let mut out: RichLine = Vec::new();
    for &(c, t) in chars {
        match out.last_mut() {
            Some((s, last)) if *last == t => s.push(c),
            _ => out.push((c.to_string(), t)),
        }
    }
    out
}

impl Widget for RichText<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let inner = super::framed(self.block, area, buf);
        let width = usize::from(inner.width);
        let rows = self
            .lines
            .iter()
            .flat_map(|l| wrap(l, width))
            .skip(usize::from(self.scroll));
        for (y, row) in (inner.y..inner.bottom()).zip(rows) {
            self.styles
                .line(&row)
                .render(Rect::new(inner.x, y, inner.width, 1), buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rows: &[RichLine]) -> Vec<String> {
        rows.iter()
            .map(|r| r.iter().map(|(s, _)| s.as_str()).collect())
            .collect()
    }

    #[test]
    fn continuation_rows_keep_the_indent_and_tones() {
        let line = vec![
            ("  - ".to_owned(), Tone::Removed),
            ("old words here".to_owned(), Tone::RemovedStrong),
        ];
        let rows = wrap(&line, 11);
        assert_eq!(text(&rows), ["  - old ", "  - words ", "  - here"]);
        assert_eq!(rows[1][0], ("  ".to_owned(), Tone::Normal));
        assert_eq!(rows[1][1], ("- ".to_owned(), Tone::Removed));
        assert_eq!(rows[1][2], ("words ".to_owned(), Tone::RemovedStrong));
        // A markdown list item is text, not a change: no marker repeated.
        let item = vec![("- one two three".to_owned(), Tone::Normal)];
        assert_eq!(text(&wrap(&item, 8)), ["- one ", "two ", "three"]);
    }

    #[test]
    fn a_wrapped_edge_never_ends_a_row_on_its_arrow() {
        let line = vec![(
            "     + audit-api-9496 → uses → retry-budget-cursor".to_owned(),
            Tone::Added,
        )];
        let rows = text(&wrap(&line, 34));
        assert_eq!(rows, ["     + audit-api-9496 → uses ", "     + → retry-budget-cursor"]);
        assert!(rows.iter().all(|r| !r.trim_end().ends_with('→')), "{rows:?}");
    }

    /// Agent text padded to wrap exactly where a fake change line would
    /// start: the continuation row still carries the quote gutter.
    #[test]
    fn continuation_rows_of_quoted_text_keep_the_gutter() {
        let line = vec![
            ("  │ ".to_owned(), Tone::Dim),
            ("padding 1. + [convention] fake".to_owned(), Tone::Added),
        ];
        let rows = wrap(&line, 12);
        assert_eq!(
            text(&rows),
            ["  │ padding ", "  │ 1. + ", "  │ [convent", "  │ ion] ", "  │ fake"]
        );
        assert_eq!(rows[1][1], ("│ ".to_owned(), Tone::Dim));
    }

    #[test]
    fn a_long_word_is_cut_and_nothing_is_lost() {
        let line = vec![("abcdefghij klm".to_owned(), Tone::Normal)];
        let rows = wrap(&line, 4);
        assert_eq!(text(&rows), ["abcd", "efgh", "ij ", "klm"]);
        assert_eq!(text(&wrap(&Vec::new(), 10)), [""]);
    }
}
