//! A searchable list in a popup: the query line, then rows of
//! `key  description` (a long description wraps under itself, a long
//! footer takes two lines), matched characters stressed, the selected row
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
        let width = usize::from(inner.width);
        // A long footer takes a second line rather than losing its end.
        let footer = wrap_ranges(self.footer, width);
        let footer_h = if footer.len() > 1 && inner.height >= 6 { 2 } else { 1 };
        let list_h = usize::from(inner.height).saturating_sub(1 + footer_h);
        let left_w = self
            .rows
            .iter()
            .map(|r| r.left.chars().count())
            .max()
            .unwrap_or(0)
            .min(24);
        // Long descriptions wrap under themselves, so none loses its end.
        let text_w = width.saturating_sub(left_w + 2).max(1);
        let wrapped: Vec<Vec<(usize, usize)>> = self.rows.iter().map(|r| wrap_ranges(&r.text, text_w)).collect();
        let sel = self.selected.unwrap_or(0).min(self.rows.len().saturating_sub(1));
        // The first row shown: as late as needed for the selected row to fit whole.
        let mut first = sel;
        let mut used = wrapped.get(sel).map_or(0, Vec::len);
        while first > 0 && used + wrapped[first - 1].len() <= list_h {
            first -= 1;
            used += wrapped[first].len();
        }
        let mut y = 0usize;
        for (i, row) in self.rows.iter().enumerate().skip(first) {
            let chars: Vec<char> = row.text.chars().collect();
            for (part, (a, b)) in wrapped[i].iter().enumerate() {
                if y >= list_h {
                    break;
                }
                let left = if part == 0 { row.left.as_str() } else { "" };
                let mut spans = vec![Span::styled(
                    format!("{left:<left_w$}  ", left = clip_left(left, left_w)),
                    self.styles.key,
                )];
                for (ci, ch) in chars.iter().enumerate().take(*b).skip(*a) {
                    let style = if row.matched.contains(&ci) {
                        self.styles.accent
                    } else {
                        self.styles.normal
                    };
                    spans.push(Span::styled(ch.to_string(), style));
                }
                let mut line = Line::from(spans);
                let r = Rect::new(inner.x, inner.y + 1 + u16::try_from(y).unwrap_or(0), inner.width, 1);
                if Some(i) == self.selected {
                    buf.set_style(r, self.styles.selected);
                    line = line.patch_style(self.styles.selected);
                }
                line.render(r, buf);
                y += 1;
            }
            if y >= list_h {
                break;
            }
        }
        if self.rows.is_empty() {
            Line::from(Span::styled("no match", self.styles.dim))
                .render(Rect::new(inner.x, inner.y + 1, inner.width, 1), buf);
        }
        let chars: Vec<char> = self.footer.chars().collect();
        for (k, (a, b)) in footer.iter().take(footer_h).enumerate() {
            let text: String = chars[*a..*b].iter().collect();
            let y = inner.bottom() - u16::try_from(footer_h - k).unwrap_or(1);
            Line::from(Span::styled(text, self.styles.dim)).render(Rect::new(inner.x, y, inner.width, 1), buf);
        }
    }
}

/// `s` cut to `max` characters.
fn clip_left(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// The character ranges of `text` wrapped at `width` columns: at the last
/// space that fits, else mid-word. An empty text is one empty line.
pub(crate) fn wrap_ranges(text: &str, width: usize) -> Vec<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let width = width.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let window = &chars[start..start + width + 1];
        let cut = window.iter().rposition(|c| *c == ' ').filter(|p| *p > 0);
        match cut {
            Some(p) => {
                out.push((start, start + p));
                start += p + 1;
            }
            None => {
                out.push((start, start + width));
                start += width;
            }
        }
    }
    out.push((start, chars.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::{PickRow, Picker, wrap_ranges};
    use crate::widgets::ToneStyles;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    #[test]
    fn the_selected_row_is_shown_whole_however_far_down() {
        let rows: Vec<PickRow> = (0..30)
            .map(|i| PickRow {
                left: format!("k{i}"),
                text: format!("a description long enough to wrap onto a second line, row {i}"),
                matched: Vec::new(),
            })
            .collect();
        let styles = ToneStyles::default();
        let area = Rect::new(0, 0, 40, 12);
        let mut buf = Buffer::empty(area);
        Picker {
            title: "t",
            query: "",
            rows: &rows,
            selected: Some(25),
            footer: "f",
            styles: &styles,
        }
        .render(area, &mut buf);
        let text = crate::widgets::tone::buffer_text(&buf);
        assert!(text.contains("k25 "), "{text}");
        assert!(text.contains("row 25"), "its wrapped end too: {text}");
        assert!(!text.contains("k26 "), "the selected row is the last shown: {text}");
    }

    #[test]
    fn text_wraps_at_spaces_and_keeps_every_character() {
        let text = "Reject the selected proposal with a reason (Queue) — reject";
        let lines = wrap_ranges(text, 20);
        let chars: Vec<char> = text.chars().collect();
        let joined: Vec<String> = lines.iter().map(|(a, b)| chars[*a..*b].iter().collect()).collect();
        assert!(joined.iter().all(|l| l.chars().count() <= 20), "{joined:?}");
        assert_eq!(joined.join(" "), text);
        assert_eq!(wrap_ranges("", 5), vec![(0, 0)]);
        assert_eq!(wrap_ranges("abcdefgh", 3), vec![(0, 3), (3, 6), (6, 8)]);
    }
}
