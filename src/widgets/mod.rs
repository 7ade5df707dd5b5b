//! Reusable ratatui widgets fed plain view models; they never import app or
//! engine types (the engine's text hygiene aside: every line a widget
//! compares is escaped the one way).

pub mod bars;
pub mod clip;
pub mod code_view;
pub mod columns;
pub mod dialog;
pub mod grouped_list;
pub mod line_diff;
pub mod picker;
pub mod rich_text;
pub mod tone;
pub mod word_diff;

pub use tone::{RichLine, Tone, ToneStyles};

/// Draws `block` (if any) over `area` and returns the area inside it.
fn framed(
    block: Option<ratatui::widgets::Block<'_>>,
    area: ratatui::layout::Rect,
    buf: &mut ratatui::buffer::Buffer,
) -> ratatui::layout::Rect {
    use ratatui::widgets::Widget as _;
    match block {
        Some(b) => {
            let inner = b.inner(area);
            b.render(area, buf);
            inner
        }
        None => area,
    }
}
