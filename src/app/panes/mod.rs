//! One folder per pane: its state, its share of `update` (keys to state
//! and effects), its dialogs and its view, behind one
//! [`Component`](super::component::Component) each. The shell around them
//! (the loop, keymap, palette, its own dialogs, worker and the tabs'
//! layout) keeps only what every pane shares, and reaches a pane only
//! through the components listed here.

pub mod graph;
pub mod projection;
pub mod query;
pub mod queue;
#[cfg(test)]
pub(crate) mod testkit;

use super::action::Pane;
use super::component::Component;
use super::state::Popup;

/// Every pane, in `Pane::ALL` order: notices and replies go round in it.
pub const ALL: [&dyn Component; 4] = [
    &queue::component::QueueComponent,
    &graph::component::GraphComponent,
    &query::component::QueryComponent,
    &projection::component::ProjectionComponent,
];

/// The component of `pane`.
pub fn of(pane: Pane) -> &'static dyn Component {
    match pane {
        Pane::Queue => &queue::component::QueueComponent,
        Pane::Graph => &graph::component::GraphComponent,
        Pane::Query => &query::component::QueryComponent,
        Pane::Projection => &projection::component::ProjectionComponent,
    }
}

/// The pane that owns the dialog `popup`, if it is not the shell's own.
pub fn owner(popup: &Popup) -> Option<&'static dyn Component> {
    ALL.into_iter().find(|c| c.owns(popup))
}
