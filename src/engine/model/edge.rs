//! Edges: a typed relation between two nodes. An edge is as secret as its most
//! secret end (or more, if declared so).

use serde::{Deserialize, Serialize};

use super::{EdgeId, NodeId, Provenance, Relation, Tier, Timestamp};

/// A relation between two nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub id: EdgeId,
    pub from: NodeId,
    pub relation: Relation,
    pub to: NodeId,
    pub confidence: f64,
    pub weight: f64,
    pub bidirectional: bool,
    /// The tier asked for when the edge was made (at least public).
    pub declared_tier: Tier,
    /// The tier the edge is stored under: max of declared and both ends.
    pub tier: Tier,
    /// Shared: most edges have the same provenance (human), so it is not copied per edge.
    #[serde(default)]
    pub provenance: std::sync::Arc<Provenance>,
    pub created: Timestamp,
}

/// The fields a caller supplies to link two nodes (by name).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewEdge {
    pub from: super::Name,
    pub relation: Relation,
    pub to: super::Name,
    pub tier: Tier,
    pub confidence: f64,
    pub weight: f64,
    pub bidirectional: bool,
    pub provenance: Provenance,
    pub created: Option<Timestamp>,
}

impl NewEdge {
    /// A public, directed, human-made edge with confidence and weight 1.
    pub fn new(from: super::Name, relation: Relation, to: super::Name) -> Self {
        Self {
            from,
            relation,
            to,
            tier: Tier::Public,
            confidence: 1.0,
            weight: 1.0,
            bidirectional: false,
            provenance: Provenance::Human,
            created: None,
        }
    }
}
