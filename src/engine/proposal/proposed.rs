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

/// A node a pending proposal would add and link to `centre`: how it would
/// hang off it (the relation, and whether the edge leaves the centre).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProposedLink {
    pub node: ProposedNode,
    pub relation: String,
    /// The edge would go from the centre to the node.
    pub outgoing: bool,
}

/// The nodes pending proposals would add with an edge to or from `centre`
/// (a suggested edge of the new node, or an `add_edge` of the same
/// proposal), oldest proposal first, each once per edge.
pub fn proposed_around(scan: &ScanResult, centre: &str) -> Vec<ProposedLink> {
    let mut out = Vec::new();
    for p in &scan.pending {
        let changes = &p.proposal.submission.changes;
        let added: Vec<ProposedNode> = proposed_nodes(&ScanResult {
            pending: vec![p.clone()],
            ..ScanResult::default()
        });
        let edges = changes.iter().flat_map(|c| match c {
            Change::AddNode { suggested_edges, .. } => suggested_edges.clone(),
            Change::AddEdge { from, relation, to, .. } => vec![(from.clone(), relation.clone(), to.clone())],
            _ => Vec::new(),
        });
        for (from, relation, to) in edges {
            let (other, outgoing) = if from.as_str() == centre {
                (to.as_str(), true)
            } else if to.as_str() == centre {
                (from.as_str(), false)
            } else {
                continue;
            };
            if let Some(node) = added.iter().find(|n| n.name == other) {
                out.push(ProposedLink {
                    node: node.clone(),
                    relation: relation.to_string(),
                    outgoing,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::proposed_around;
    use crate::Level;
    use crate::proposal::tests::{graph, propose, retry_queue};
    use crate::store::tests::open_at;

    #[test]
    fn a_proposed_node_hangs_off_the_nodes_its_edges_name() {
        let (_d, root) = graph();
        propose(&mut open_at(&root, Level::Agent), retry_queue());
        let scan = open_at(&root, Level::Master).pending().unwrap();
        // retry-queue -> depends-on -> api-gateway; orders-service -> depends-on -> retry-queue.
        let at = |centre: &str| -> Vec<(String, String, bool)> {
            proposed_around(&scan, centre)
                .into_iter()
                .map(|l| (l.node.name, l.relation, l.outgoing))
                .collect()
        };
        assert_eq!(at("api-gateway"), [("retry-queue".into(), "depends-on".into(), false)]);
        assert_eq!(
            at("orders-service"),
            [("retry-queue".into(), "depends-on".into(), true)]
        );
        assert!(at("payroll").is_empty());
        assert!(proposed_around(&scan, "retry-queue").is_empty(), "not around itself");
    }
}
