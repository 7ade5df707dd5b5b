//! One-line bars: the tab bar (with hit-testing for clicks), the status bar
//! and the hint bar of key bindings.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::tone::{Tone, ToneStyles};

/// Tabs, the focused one stressed, and a right-aligned note.
pub struct TabBar<'a> {
    pub titles: &'a [String],
    pub focused: usize,
    pub right: &'a [(String, Tone)],
    pub styles: &'a ToneStyles,
}

const TAB_GAP: u16 = 1;

impl TabBar<'_> {
    /// The x ranges of the tabs, for mouse clicks.
    pub fn ranges(titles: &[String]) -> Vec<(u16, u16)> {
        let mut x = 0u16;
        titles
            .iter()
            .map(|t| {
                let w = u16::try_from(t.chars().count() + 2).unwrap_or(u16::MAX);
                let r = (x, x.saturating_add(w));
                x = x.saturating_add(w + TAB_GAP);
                r
            })
            .collect()
    }

    /// The tab at column `x`, if any.
    pub fn hit(titles: &[String], x: u16) -> Option<usize> {
        Self::ranges(titles).iter().position(|(a, b)| (*a..*b).contains(&x))
    }
}

impl Widget for TabBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut spans = Vec::new();
        for (i, t) in self.titles.iter().enumerate() {
            let style = if i == self.focused {
                self.styles.selected
            } else {
                self.styles.dim
            };
            spans.push(Span::styled(format!(" {t} "), style));
            spans.push(Span::raw(" ".repeat(TAB_GAP as usize)));
        }
        // The note on the right wins: the tabs are cut before it.
        let right = self.styles.line(self.right);
        let w = u16::try_from(right.width()).unwrap_or(u16::MAX).min(area.width);
        let tabs = Rect::new(area.x, area.y, area.width.saturating_sub(w + 1), 1);
        Line::from(spans).render(tabs, buf);
        right.render(Rect::new(area.right().saturating_sub(w), area.y, w, 1), buf);
    }
}

/// `key label · key label ...`, cut to the width.
pub struct HintBar<'a> {
    pub hints: &'a [(String, String)],
    /// How many hints at the end are always shown (help, quit): when the
    /// line is too narrow, hints before them are dropped from the right and
    /// a `…` marks the cut.
    pub pinned: usize,
    pub styles: &'a ToneStyles,
}

impl HintBar<'_> {
    fn spans(&self, shown: &[&(String, String)], cut: bool) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        let pinned_from = shown.len().saturating_sub(self.pinned);
        for (i, (key, label)) in shown.iter().enumerate() {
            if i > 0 {
                let sep = if cut && i == pinned_from { " … " } else { " · " };
                spans.push(Span::styled(sep, self.styles.dim));
            }
            spans.push(Span::styled(key.clone(), self.styles.key));
            spans.push(Span::raw(" "));
            spans.push(Span::raw(label.clone()));
        }
        spans
    }
}

impl Widget for HintBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pinned = self.pinned.min(self.hints.len());
        let (free, tail) = self.hints.split_at(self.hints.len() - pinned);
        let mut keep = free.len();
        loop {
            let shown: Vec<&(String, String)> = free[..keep].iter().chain(tail).collect();
            let line = Line::from(self.spans(&shown, keep < free.len()));
            if line.width() <= usize::from(area.width) || keep == 0 {
                line.render(area, buf);
                return;
            }
            keep -= 1;
        }
    }
}

/// Toned segments separated by bars, the last one (the message) filling.
pub struct StatusBar<'a> {
    pub segments: &'a [(String, Tone)],
    pub styles: &'a ToneStyles,
}

impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut spans = Vec::new();
        for (i, (text, tone)) in self.segments.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" │ ", self.styles.dim));
            }
            spans.push(Span::styled(text.clone(), self.styles.of(*tone)));
        }
        Line::from(spans).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;

    use super::HintBar;
    use crate::widgets::tone::test_styles;

    fn hints(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, l)| ((*k).into(), (*l).into())).collect()
    }

    fn render(width: u16, h: &[(String, String)]) -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, width, 1));
        HintBar {
            hints: h,
            pinned: 2,
            styles: &test_styles(),
        }
        .render(buf.area, &mut buf);
        buf
    }

    #[test]
    fn hints_show_keys_in_the_key_style() {
        let s = test_styles();
        let h = hints(&[("a", "accept"), ("?", "help"), ("q", "quit")]);
        let mut want = Buffer::with_lines(["a accept · ? help · q quit  "]);
        for x in [0, 11, 20] {
            want.set_style(Rect::new(x, 0, 1, 1), s.key);
        }
        for x in [8, 17] {
            want.set_style(Rect::new(x, 0, 3, 1), s.dim);
        }
        assert_eq!(render(28, &h), want);
    }

    #[test]
    fn a_narrow_bar_drops_hints_but_keeps_help_and_quit() {
        let h = hints(&[
            ("a", "accept"),
            ("r", "reject"),
            ("e", "edit"),
            ("?", "help"),
            ("q", "quit"),
        ]);
        let buf = render(30, &h);
        let text: String = (0..30).map(|x| buf[(x, 0)].symbol().to_owned()).collect();
        assert_eq!(text.trim_end(), "a accept … ? help · q quit");
    }
}
