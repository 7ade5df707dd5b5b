//! Highlighted lines of code with a cursor and vertical scrolling, as an
//! editor draws them; line numbers in the gutter.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::tone::{RichLine, ToneStyles};

pub struct CodeView<'a> {
    pub lines: &'a [RichLine],
    /// (row, column in chars).
    pub cursor: (usize, usize),
    /// The first line shown.
    pub top: usize,
    pub styles: &'a ToneStyles,
}

/// The first line to show so the cursor row is in a window of `height`.
pub fn scroll_to(top: usize, cursor_row: usize, height: usize) -> usize {
    if height == 0 {
        return cursor_row;
    }
    if cursor_row < top {
        cursor_row
    } else if cursor_row >= top + height {
        cursor_row + 1 - height
    } else {
        top
    }
}

impl Widget for CodeView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let gutter = self.lines.len().max(1).to_string().len() + 1;
        // Long lines scroll sideways together so the cursor stays in view.
        let text_w = usize::from(area.width).saturating_sub(gutter).max(1);
        let left = (self.cursor.1 + 1).saturating_sub(text_w);
        for (row, y) in (self.top..).zip(area.y..area.bottom()) {
            let r = Rect::new(area.x, y, area.width, 1);
            let Some(spans) = self.lines.get(row) else {
                break;
            };
            let mut out = vec![Span::styled(
                format!("{:>w$} ", row + 1, w = gutter - 1),
                self.styles.dim,
            )];
            let mut col = 0usize;
            for (text, tone) in spans {
                for ch in text.chars() {
                    let mut style = self.styles.of(*tone);
                    if (row, col) == self.cursor {
                        style = self.styles.selected;
                    }
                    if col >= left {
                        out.push(Span::styled(ch.to_string(), style));
                    }
                    col += 1;
                }
            }
            if row == self.cursor.0 && self.cursor.1 >= col {
                out.push(Span::styled(" ", self.styles.selected));
            }
            Line::from(out).render(r, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    use super::CodeView;
    use crate::widgets::tone::{Tone, test_styles};

    #[test]
    fn the_cursor_is_shown_and_long_lines_scroll_to_it() {
        let s = test_styles();
        let lines = vec![
            vec![("abcdefghij".to_owned(), Tone::Normal)],
            vec![("xy".to_owned(), Tone::Normal)],
        ];
        let mut buf = Buffer::empty(Rect::new(0, 0, 8, 2));
        CodeView {
            lines: &lines,
            cursor: (0, 9),
            top: 0,
            styles: &s,
        }
        .render(buf.area, &mut buf);
        let mut want = Buffer::with_lines(["1 efghij", "2       "]);
        want.set_style(Rect::new(0, 0, 2, 2), s.dim);
        want.set_style(Rect::new(7, 0, 1, 1), s.selected);
        assert_eq!(buf, want);
    }
}
