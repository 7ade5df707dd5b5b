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
                    out.push(Span::styled(ch.to_string(), style));
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
