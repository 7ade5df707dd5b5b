//! A centred dialog: title, body lines, an optional input line (masked for
//! passphrases) with its cursor, and a footer of keys.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use super::tone::{RichLine, ToneStyles};

pub struct Dialog<'a> {
    pub title: &'a str,
    pub body: &'a [RichLine],
    /// The input's text and whether to mask it.
    pub input: Option<(&'a str, bool)>,
    pub footer: &'a str,
    pub styles: &'a ToneStyles,
}

/// A rectangle of at most `w`×`h` centred in `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

impl Dialog<'_> {
    /// The body as drawn at `inner` columns: each line wrapped at spaces
    /// here, so the height asked for is the height drawn and the input
    /// line is never pushed under the footer.
    fn rows(&self, inner: u16) -> Vec<RichLine> {
        let inner = usize::from(inner.max(1));
        self.body
            .iter()
            .flat_map(|l| super::rich_text::wrap(l, inner))
            .collect()
    }

    /// The height this dialog wants at `width`.
    pub fn height(&self, width: u16) -> u16 {
        let body = self.rows(width.saturating_sub(2)).len();
        u16::try_from(body + usize::from(self.input.is_some()) * 2 + 3).unwrap_or(u16::MAX)
    }
}

/// Clears `area`, draws a dialog's frame titled `title`, and returns the
/// rectangle inside it.
pub fn frame(area: Rect, buf: &mut Buffer, title: &str, styles: &ToneStyles) -> Rect {
    Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(styles.border_focused)
        .title(Span::styled(format!(" {title} "), styles.heading));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

impl Widget for Dialog<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let inner = frame(area, buf, self.title, self.styles);
        let mut lines: Vec<Line> = self.rows(inner.width).iter().map(|l| self.styles.line(l)).collect();
        if let Some((text, masked)) = self.input {
            lines.push(Line::raw(""));
            let shown = if masked {
                "•".repeat(text.chars().count())
            } else {
                text.to_owned()
            };
            lines.push(Line::from(vec![
                Span::styled("> ", self.styles.accent),
                Span::raw(shown),
                Span::styled(" ", self.styles.selected),
            ]));
        }
        let footer_h = u16::from(inner.height > 1);
        Paragraph::new(lines).render(Rect::new(inner.x, inner.y, inner.width, inner.height - footer_h), buf);
        if footer_h == 1 {
            Line::from(Span::styled(self.footer.to_owned(), self.styles.dim))
                .render(Rect::new(inner.x, inner.bottom() - 1, inner.width, 1), buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::tone::{Tone, test_styles};

    #[test]
    fn a_masked_input_never_shows_the_passphrase() {
        let s = test_styles();
        let body = vec![vec![("Passphrase".to_owned(), Tone::Normal)]];
        let d = Dialog {
            title: "Unlock",
            body: &body,
            input: Some(("hunter2", true)),
            footer: "esc",
            styles: &s,
        };
        let area = Rect::new(0, 0, 20, d.height(20));
        let mut buf = Buffer::empty(area);
        d.render(area, &mut buf);
        let mut want = Buffer::with_lines([
            "╭ Unlock ──────────╮",
            "│Passphrase        │",
            "│                  │",
            "│> •••••••         │",
            "│esc               │",
            "╰──────────────────╯",
        ]);
        want.set_style(Rect::new(0, 0, 20, 6), s.border_focused);
        want.set_style(Rect::new(1, 1, 18, 4), ratatui::style::Style::reset());
        want.set_style(Rect::new(1, 0, 8, 1), s.heading);
        want.set_style(Rect::new(1, 3, 2, 1), s.accent);
        want.set_style(Rect::new(10, 3, 1, 1), s.selected);
        want.set_style(Rect::new(1, 4, 3, 1), s.dim);
        assert_eq!(buf, want);
    }

    /// Words wrapped at spaces take more rows than characters over width:
    /// the height counts the rows drawn, so the input line always shows.
    #[test]
    fn the_input_shows_below_a_body_wrapped_at_spaces() {
        let s = test_styles();
        // 16 columns inside: four words of 9 are 39 characters (3 rows by
        // count) but 4 rows wrapped at spaces, one word each.
        let body = vec![vec![(
            "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd".to_owned(),
            Tone::Normal,
        )]];
        let d = Dialog {
            title: "T",
            body: &body,
            input: Some(("typed", false)),
            footer: "esc",
            styles: &s,
        };
        let area = Rect::new(0, 0, 18, d.height(18));
        let mut buf = Buffer::empty(area);
        d.render(area, &mut buf);
        let text = crate::widgets::tone::buffer_text(&buf);
        assert!(text.contains("> typed"), "{text}");
        assert!(text.contains("ddddddddd"), "{text}");
    }
}
