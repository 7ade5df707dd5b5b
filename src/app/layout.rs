//! Where things are on screen, shared by drawing and mouse hit-testing,
//! and the frames every pane draws in (a bordered block, a centred
//! dialog). A leaf: it knows no state, so the shell and the panes both
//! build on it without importing each other.

use graphex_engine::Level;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType, Widget as _};

use crate::widgets::ToneStyles;
use crate::widgets::dialog::{Dialog, centered};

/// The smallest size the console draws at; below it, a notice.
pub const MIN_SIZE: (u16, u16) = (60, 20);

/// The screen's regions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Areas {
    pub tabs: Rect,
    pub main: Rect,
    pub list: Rect,
    pub card: Rect,
    pub status: Rect,
    pub hints: Rect,
}

pub fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1
}

pub fn areas(size: (u16, u16)) -> Areas {
    let (w, h) = size;
    if too_small(size) {
        return Areas::default();
    }
    let main = Rect::new(0, 1, w, h - 3);
    let list_w = (w * 2 / 5).clamp(30, 60);
    Areas {
        tabs: Rect::new(0, 0, w, 1),
        main,
        list: Rect::new(0, main.y, list_w, main.height),
        card: Rect::new(list_w, main.y, w - list_w, main.height),
        status: Rect::new(0, h - 2, w, 1),
        hints: Rect::new(0, h - 1, w, 1),
    }
}

/// Rows of proposals visible in the list.
pub fn list_height(size: (u16, u16)) -> u16 {
    areas(size).list.height.saturating_sub(2)
}

/// The editor's rectangle and the height of its text.
pub fn editor_area(main: Rect) -> (Rect, u16) {
    (main, main.height.saturating_sub(3))
}

pub(crate) fn block<'a>(title: &'a str, focused: bool, styles: &ToneStyles) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(if focused { styles.border_focused } else { styles.border })
        .title(Span::styled(format!(" {title} "), styles.heading))
}

/// Draws `d` centred in `main`, 72 columns at most, as tall as it needs.
pub(crate) fn dialog(buf: &mut ratatui::buffer::Buffer, main: Rect, d: Dialog) {
    let w = 72.min(main.width.saturating_sub(4));
    let h = d.height(w).min(main.height);
    d.render(centered(main, w, h), buf);
}

/// The level's one-word name, for narrow screens.
pub fn level_word(l: Level) -> &'static str {
    level_name(l).split(':').next().unwrap_or_default()
}

pub fn level_name(l: Level) -> &'static str {
    match l {
        Level::Locked => "locked: public only",
        Level::Agent => "agent: public + agent-readable",
        Level::Master => "master: all but human-only",
        Level::Human => "human: every tier",
    }
}

/// How long ago, in words.
pub fn age(now_ms: i64, then_ms: i64) -> String {
    let secs = now_ms.saturating_sub(then_ms).max(0) / 1000;
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m", secs / 60),
        3600..86400 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86400),
    }
}
