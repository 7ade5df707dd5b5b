//! What one commit changes: the node versions and edges it writes, the rows
//! it removes, its timeline entries and decisions. Built by the mutations
//! (`write`, `decide`, `bulk`) and carried out by `Store::commit`.

use crate::model::{Edge, EdgeId, Node, NodeId, Tier};

/// The action of a node change that raised its tier: the versions before
/// it were re-sealed under the new tier (their old tier is gone), so undo
/// refuses it rather than guess.
pub(crate) const RAISE_TIER: &str = "raise-tier";

/// One node version to write, with the version and tier it replaces.
pub(crate) struct NodeWrite {
    pub node: Node,
    pub previous: Option<(u64, Tier)>,
}

/// A timeline entry: ids and versions only.
pub(crate) struct Entry {
    pub action: &'static str,
    pub node: Option<NodeId>,
    pub edge: Option<EdgeId>,
    pub before: Option<u64>,
    pub after: Option<u64>,
}

impl Entry {
    /// A node's change from `before` to `after` (`None`: absent).
    pub fn node(action: &'static str, id: NodeId, before: Option<u64>, after: Option<u64>) -> Self {
        Self {
            action,
            node: Some(id),
            edge: None,
            before,
            after,
        }
    }

    /// `current` becoming `next`: `action`, or [`RAISE_TIER`] when the tier rises.
    pub fn written(action: &'static str, current: &Node, next: &Node) -> Self {
        let action = if next.tier > current.tier { RAISE_TIER } else { action };
        Self::node(action, current.id, Some(current.version), Some(next.version))
    }

    /// An edge added or removed.
    pub fn edge(action: &'static str, id: EdgeId) -> Self {
        Self {
            action,
            node: None,
            edge: Some(id),
            before: None,
            after: None,
        }
    }

    /// The undo of commit `seq` (its number in `before`).
    pub fn undo(seq: u64) -> Self {
        Self {
            before: Some(seq),
            ..Self::plain("undo")
        }
    }

    /// A row naming neither (a reject).
    pub fn plain(action: &'static str) -> Self {
        Self {
            action,
            node: None,
            edge: None,
            before: None,
            after: None,
        }
    }
}

/// A commit's timeline entries, as they are written.
pub(crate) enum Entries<'a> {
    Listed(Vec<Entry>),
    /// See [`Plan::batch_entries`].
    Batch {
        nodes: &'a [NodeWrite],
        edges: &'a [Edge],
    },
}

/// A decision row written with (or, for an undo, deleted by) a commit.
pub(crate) struct DecisionRow {
    pub proposal: String,
    pub outcome: &'static str,
    pub sealed: Vec<u8>,
}

/// Everything one commit changes.
#[derive(Default)]
pub(crate) struct Plan {
    pub nodes: Vec<NodeWrite>,
    pub edges: Vec<Edge>,
    pub entries: Vec<Entry>,
    /// A batch's timeline: one `add` per node, then one `link` per edge,
    /// in plan order, made as the rows are written ([`Entries::Batch`])
    /// instead of listed in `entries` beside them (88 bytes a row: half a
    /// gigabyte at a million nodes and five million edges).
    pub batch_entries: bool,
    /// Who the timeline names; `None` means a person at this console or CLI.
    pub actor: Option<String>,
    /// The proposal the commit decides or undoes.
    pub proposal: Option<String>,
    pub decisions: Vec<DecisionRow>,
    /// The commit whose decisions an undo removes (their proposals return
    /// to the queue).
    pub undo_seq: Option<u64>,
    /// Node rows removed (their versions stay, sealed, for history).
    pub removed_nodes: Vec<(NodeId, Tier)>,
    pub removed_edges: Vec<(EdgeId, Tier)>,
    /// Removed edges kept sealed (an unlink), so an undo can put them back.
    pub kept_edges: Vec<Edge>,
    /// Edges put back by an undo: their kept records go.
    pub restored_edges: Vec<EdgeId>,
}
