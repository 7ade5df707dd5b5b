//! One folder per pane: its state, its share of `update` (keys to state
//! and effects) and its view. The shell around them (the loop, keymap,
//! palette, dialogs, worker and the tabs' layout) keeps only what every
//! pane shares.

pub mod graph;
pub mod projection;
pub mod query;
pub mod queue;
#[cfg(test)]
pub(crate) mod testkit;
