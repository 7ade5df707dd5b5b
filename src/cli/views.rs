//! What read commands print: plain serializable views of engine data, with
//! times as RFC 3339 and edge ends as names. One view feeds both the text and
//! the JSON output, so the two never disagree.

use std::collections::BTreeMap;

use graphex_engine::model::{Edge, NodeId, Provenance};
use graphex_engine::store::Catalog;
use graphex_engine::{Node, NodeSummary};
use serde::Serialize;

/// One row of `list`.
#[derive(Debug, Serialize)]
pub struct NodeRow {
    pub name: String,
    #[serde(rename = "type")]
    pub node_type: String,
    pub tier: String,
    pub status: String,
    pub confidence: f64,
    pub version: u64,
    pub updated: String,
    pub description: String,
    /// `project/subgraph` for a node pulled from another project (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub federated_from: Option<String>,
    /// For a proposed node (in a pending proposal, not in the graph): the proposal's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
}

impl NodeRow {
    /// A node a pending proposal would add, shown as proposed.
    pub fn proposed(p: &graphex_engine::proposal::ProposedNode, at: String) -> Self {
        Self {
            name: p.name.clone(),
            node_type: p.node_type.to_string(),
            tier: p.tier.to_string(),
            status: "proposed".to_owned(),
            confidence: 0.0,
            version: 0,
            updated: at,
            description: p.description.clone(),
            federated_from: None,
            proposal: Some(p.proposal.clone()),
        }
    }
}

impl From<&NodeSummary> for NodeRow {
    fn from(n: &NodeSummary) -> Self {
        Self {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            tier: n.tier.to_string(),
            status: n.status.to_string(),
            confidence: n.confidence,
            version: n.version,
            updated: n.updated.to_rfc3339(),
            description: n.description.clone(),
            federated_from: graphex_engine::federation::origin(n).map(str::to_owned),
            proposal: None,
        }
    }
}

/// An edge with its ends named.
#[derive(Debug, Serialize)]
pub struct EdgeView {
    pub from: String,
    pub relation: String,
    pub to: String,
    pub tier: String,
    pub confidence: f64,
    pub weight: f64,
    pub bidirectional: bool,
    pub created: String,
}

impl EdgeView {
    pub fn new(e: &Edge, catalog: &Catalog) -> Self {
        let name = |id: &NodeId| catalog.node(id).map_or_else(|| id.to_string(), |n| n.name.to_string());
        Self {
            from: name(&e.from),
            relation: e.relation.to_string(),
            to: name(&e.to),
            tier: e.tier.to_string(),
            confidence: e.confidence,
            weight: e.weight,
            bidirectional: e.bidirectional,
            created: e.created.to_rfc3339(),
        }
    }
}

/// Everything `show` prints about a node.
#[derive(Debug, Serialize)]
pub struct NodeView {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub node_type: String,
    pub description: String,
    pub body: Option<String>,
    pub properties: BTreeMap<String, String>,
    pub tier: String,
    pub status: String,
    pub status_reason: Option<String>,
    pub confidence: f64,
    pub provenance: Provenance,
    pub created: String,
    pub updated: String,
    pub version: u64,
    /// `project/subgraph` for a node pulled from another project (read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub federated_from: Option<String>,
    pub outgoing: Vec<EdgeView>,
    pub incoming: Vec<EdgeView>,
}

impl NodeView {
    pub fn new(n: Node, catalog: &Catalog) -> Self {
        let mut outgoing: Vec<EdgeView> = catalog.outgoing(&n.id).map(|e| EdgeView::new(e, catalog)).collect();
        let mut incoming: Vec<EdgeView> = catalog.incoming(&n.id).map(|e| EdgeView::new(e, catalog)).collect();
        outgoing.sort_by(|a, b| (&a.relation, &a.to).cmp(&(&b.relation, &b.to)));
        incoming.sort_by(|a, b| (&a.relation, &a.from).cmp(&(&b.relation, &b.from)));
        Self {
            federated_from: n.properties.get(graphex_engine::federation::FEDERATED_FROM).cloned(),
            id: n.id.to_string(),
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            description: n.description,
            body: n.body,
            properties: n.properties.to_map(),
            tier: n.tier.to_string(),
            status: n.status.to_string(),
            status_reason: n.status_reason,
            confidence: n.confidence,
            provenance: n.provenance,
            created: n.created.to_rfc3339(),
            updated: n.updated.to_rfc3339(),
            version: n.version,
            outgoing,
            incoming,
        }
    }
}
