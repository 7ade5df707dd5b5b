//! A list with group headers: headers are not selectable, the selected row
//! is highlighted and kept in view, marked rows carry a marker.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use super::tone::{RichLine, ToneStyles};

/// One row.
#[derive(Clone, Debug, PartialEq)]
pub enum Row {
    Header(String),
    Item {
        spans: RichLine,
        marked: bool,
        dimmed: bool,
    },
}

pub struct GroupedList<'a> {
    pub rows: &'a [Row],
    /// Index into `rows` of the selected item.
    pub selected: Option<usize>,
    pub styles: &'a ToneStyles,
    pub block: Option<Block<'a>>,
}

/// The first row shown so that `selected` sits mid-window of `height` rows
/// (the list never scrolls past its end).
pub fn offset(selected: Option<usize>, height: usize, rows: usize) -> usize {
    let Some(sel) = selected else { return 0 };
    if height == 0 || rows <= height {
        return 0;
    }
    sel.saturating_sub(height / 2).min(rows - height)
}

impl Widget for GroupedList<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let inner = super::framed(self.block, area, buf);
        let height = inner.height as usize;
        let first = offset(self.selected, height, self.rows.len());
        for (i, row) in self.rows.iter().enumerate().skip(first).take(height) {
            let y = inner.y + u16::try_from(i - first).unwrap_or(0);
            let line_area = Rect::new(inner.x, y, inner.width, 1);
            match row {
                Row::Header(text) => {
                    Line::from(Span::styled(text.clone(), self.styles.heading)).render(line_area, buf);
                }
                Row::Item { spans, marked, dimmed } => {
                    let mut line = self.styles.line(spans);
                    line.spans.insert(
                        0,
                        if *marked {
                            Span::styled("● ", self.styles.marked)
                        } else {
                            Span::raw("  ")
                        },
                    );
                    if *dimmed {
                        line = line.patch_style(self.styles.dim);
                    }
                    if Some(i) == self.selected {
                        buf.set_style(line_area, self.styles.selected);
                        line = line.patch_style(self.styles.selected);
                        // Text in the selection's own background colour
                        // (dim text on a dim bar) would vanish: it takes
                        // the terminal's foreground instead.
                        if let Some(bg) = self.styles.selected.bg {
                            for span in &mut line.spans {
                                if span.style.fg == Some(bg) {
                                    span.style.fg = Some(ratatui::style::Color::Reset);
                                }
                            }
                        }
                    }
                    line.render(line_area, buf);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_stays_in_view() {
        assert_eq!(offset(Some(3), 10, 5), 0);
        assert_eq!(offset(Some(0), 4, 20), 0);
        for sel in 0..30 {
            let o = offset(Some(sel), 6, 30);
            assert!(o <= sel && sel < o + 6, "sel {sel} offset {o}");
            assert!(o + 6 <= 30);
        }
    }
}

#[cfg(test)]
mod render_tests {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    use super::{GroupedList, Row};
    use crate::widgets::tone::{Tone, test_styles};

    #[test]
    fn headers_items_marks_and_the_selection() {
        let s = test_styles();
        let item = |t: &str, marked| Row::Item {
            spans: vec![(t.to_owned(), Tone::Accent)],
            marked,
            dimmed: false,
        };
        let rows = [Row::Header("claude · s1".into()), item("one", true), item("two", false)];
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 3));
        GroupedList {
            rows: &rows,
            selected: Some(2),
            styles: &s,
            block: None,
        }
        .render(buf.area, &mut buf);
        let mut want = Buffer::with_lines(["claude · s1 ", "● one       ", "  two       "]);
        want.set_style(Rect::new(0, 0, 11, 1), s.heading);
        want.set_style(Rect::new(0, 1, 2, 1), s.marked);
        want.set_style(Rect::new(2, 1, 3, 1), s.accent);
        want.set_style(Rect::new(0, 2, 12, 1), s.selected);
        want.set_style(Rect::new(2, 2, 3, 1), s.accent.patch(s.selected));
        assert_eq!(buf, want);
    }

    #[test]
    fn dim_text_on_the_selected_row_stays_readable() {
        use ratatui::style::{Color, Style};

        use crate::widgets::tone::ToneStyles;
        let styles = ToneStyles {
            dim: Style::new().fg(Color::DarkGray),
            selected: Style::new().bg(Color::DarkGray),
            ..ToneStyles::default()
        };
        let rows = vec![Row::Item {
            spans: vec![("name ".into(), Tone::Normal), ("relation".into(), Tone::Dim)],
            marked: false,
            dimmed: false,
        }];
        let list = GroupedList {
            rows: &rows,
            selected: Some(0),
            styles: &styles,
            block: None,
        };
        let mut buf = Buffer::empty(Rect::new(0, 0, 20, 1));
        list.render(buf.area, &mut buf);
        let cell = buf.cell((7, 0)).unwrap();
        assert_eq!(cell.symbol(), "r");
        assert_eq!(cell.bg, Color::DarkGray);
        assert_ne!(cell.fg, Color::DarkGray, "the relation is not grey on grey");
    }
}
