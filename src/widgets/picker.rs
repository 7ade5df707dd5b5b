//! A searchable list in a popup: the query line, then rows of
//! `key  description`, matched characters stressed, the selected row
//! highlighted. Used by help and the command palette.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::tone::ToneStyles;

/// One row: the left column, the text, and which chars of the text matched.
#[derive(Clone, Debug, PartialEq)]
pub struct PickRow {
    pub left: String,
    pub text: String,
    pub matched: Vec<usize>,
}

pub struct Picker<'a> {
    pub title: &'a str,
    pub query: &'a str,
    pub rows: &'a [PickRow],
    pub selected: Option<usize>,
    pub footer: &'a str,
    pub styles: &'a ToneStyles,
}

impl Widget for Picker<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let inner = super::dialog::frame(area, buf, self.title, self.styles);
        if inner.height < 3 {
            return;
        }
        Line::from(vec![
            Span::styled("> ", self.styles.accent),
            Span::raw(self.query.to_owned()),
            Span::styled(" ", self.styles.selected),
        ])
        .render(Rect::new(inner.x, inner.y, inner.width, 1), buf);
        let list_h = (inner.height - 2) as usize;
        let sel = self.selected.unwrap_or(0);
        let first = sel.saturating_sub(list_h.saturating_sub(1));
        let left_w = self
            .rows
            .iter()
            .map(|r| r.left.chars().count())
            .max()
            .unwrap_or(0)
            .min(24);
        for (i, row) in self.rows.iter().enumerate().skip(first).take(list_h) {
            let y = inner.y + 1 + u16::try_from(i - first).unwrap_or(0);
            let mut spans = vec![Span::styled(format!("{:<left_w$}  ", row.left), self.styles.key)];
            for (ci, ch) in row.text.chars().enumerate() {
                let style = if row.matched.contains(&ci) {
                    self.styles.accent
                } else {
                    self.styles.normal
                };
                spans.push(Span::styled(ch.to_string(), style));
            }
            let mut line = Line::from(spans);
            let r = Rect::new(inner.x, y, inner.width, 1);
            if Some(i) == self.selected {
                buf.set_style(r, self.styles.selected);
                line = line.patch_style(self.styles.selected);
            }
            line.render(r, buf);
        }
        if self.rows.is_empty() {
            Line::from(Span::styled("no match", self.styles.dim))
                .render(Rect::new(inner.x, inner.y + 1, inner.width, 1), buf);
        }
        Line::from(Span::styled(self.footer.to_owned(), self.styles.dim))
            .render(Rect::new(inner.x, inner.bottom() - 1, inner.width, 1), buf);
    }
}
