//! The spec's "Proposed" state: a node a pending proposal would add exists
//! nowhere in the graph yet, but people can see it as proposed (with the
//! proposal it comes from). It is never walked, queried or projected.

use super::{Change, ScanResult};
use crate::model::{NodeType, Tier};

/// A node a pending proposal would add.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProposedNode {
    pub name: String,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    pub tier: Tier,
    pub description: String,
    /// The proposal's id (its first 12 hex digits are how it is named).
    pub proposal: String,
    pub agent: String,
}

/// Every node the pending proposals in `scan` would add, oldest proposal first.
pub fn proposed_nodes(scan: &ScanResult) -> Vec<ProposedNode> {
    scan.pending
        .iter()
        .flat_map(|p| {
            p.proposal.submission.changes.iter().filter_map(move |c| match c {
                Change::AddNode {
                    name,
                    node_type,
                    description,
                    tier,
                    ..
                } => Some(ProposedNode {
                    name: name.to_string(),
                    node_type: node_type.clone(),
                    tier: *tier,
                    description: description.clone(),
                    proposal: p.id.as_str().to_owned(),
                    agent: p.proposal.submission.agent.clone(),
                }),
                _ => None,
            })
        })
        .collect()
}
