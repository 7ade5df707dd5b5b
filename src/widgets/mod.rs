//! Reusable ratatui widgets fed plain view models; they never import app or
//! engine types.

pub mod bars;
pub mod code_view;
pub mod dialog;
pub mod grouped_list;
pub mod picker;
pub mod rich_text;
pub mod tone;
pub mod word_diff;

pub use tone::{RichLine, Tone, ToneStyles};
