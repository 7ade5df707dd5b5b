//! A scrollable block of toned lines, wrapped to the width.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use super::tone::{RichLine, ToneStyles};

pub struct RichText<'a> {
    pub lines: &'a [RichLine],
    pub scroll: u16,
    pub styles: &'a ToneStyles,
    pub block: Option<Block<'a>>,
}

impl Widget for RichText<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let lines: Vec<_> = self.lines.iter().map(|l| self.styles.line(l)).collect();
        let mut p = Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((self.scroll, 0));
        if let Some(b) = self.block {
            p = p.block(b);
        }
        p.render(area, buf);
    }
}
