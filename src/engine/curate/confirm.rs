//! Confirming a node: a curator says it still holds. The node gets a new
//! version whose `confirmed` property is the instant (RFC 3339), so its
//! history and the timeline say who confirmed it and when, the curator's
//! stale flag clears, and its recency in projections is whole again (the
//! recency term runs from a node's newest version; see
//! `project::weights`).

use crate::error::Result;
use crate::model::{NodePatch, NodeSummary, Timestamp};
use crate::store::Store;

/// The property a confirmation sets.
pub const CONFIRMED: &str = "confirmed";

impl Store {
    /// Confirms the node `name` (master level): a new version, `confirmed`
    /// set to now.
    pub fn confirm(&mut self, name: &str) -> Result<NodeSummary> {
        let mut patch = NodePatch::default();
        patch.properties.insert(CONFIRMED.into(), Timestamp::now().to_rfc3339());
        self.update_node(name, &patch)
    }
}
