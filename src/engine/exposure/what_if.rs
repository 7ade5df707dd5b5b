//! What-if: which projections would change, and by how many tokens, if a
//! node moved to another tier. The node is relabelled in a copy of the
//! catalog (its edges re-tiered as a real change would) and projections are
//! compared before and after.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{Edge, Tier};
use crate::project::{Access, Center, Request, Settings, project};
use crate::store::Catalog;
use crate::traverse::{Filter, subgraph};

/// One projection that would change.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Change {
    /// The centre (a node name, or the query).
    pub center: String,
    /// The tier of the projection.
    pub tier: Tier,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

const UNLIMITED: usize = 1_000_000;
const AGENT_TIERS: [Tier; 3] = [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted];

/// Projections around `query` (or, without one, around every node within
/// `depth` of `node`, at that depth) that differ when `node` moves to `to`.
pub fn what_if(
    c: &Catalog,
    node: &str,
    to: Tier,
    query: Option<&str>,
    depth: u32,
    s: &Settings,
) -> Result<Vec<Change>> {
    let target = c.by_name(node).ok_or_else(|| Error::NotFound(node.to_owned()))?;
    let mut after = c.clone();
    let moved = crate::model::NodeSummary {
        tier: to,
        ..target.clone()
    };
    let tier_of = |id| {
        if id == moved.id {
            Some(to)
        } else {
            c.node(&id).map(|n| n.tier)
        }
    };
    let retiered: Vec<Edge> = c
        .outgoing(&moved.id)
        .chain(c.incoming(&moved.id))
        .filter_map(|e| {
            Some(Edge {
                tier: e.declared_tier.max(tier_of(e.from)?).max(tier_of(e.to)?),
                ..e.clone()
            })
        })
        .collect();
    after.put_node(moved);
    for e in retiered {
        after.put_edge(e);
    }
    let centres: Vec<Center> = match query {
        Some(q) => vec![Center::Query(q.to_owned())],
        None => subgraph(c, node, depth, &Filter::default())?
            .nodes
            .into_iter()
            .map(|(n, _)| Center::Node {
                name: n.name.to_string(),
                depth,
            })
            .collect(),
    };
    let mut changes = Vec::new();
    for centre in centres {
        for tier in AGENT_TIERS {
            let req = Request {
                center: centre.clone(),
                agent: "what-if".into(),
                access: Access::Tier(tier),
                budget: UNLIMITED,
                at: None,
            };
            // Before: an error is real (a bad query). After: the centre itself may
            // have become invisible at this tier, which is a change to nothing.
            let before = project(c, &req, s).map(|p| (p.tokens, p.hash)).or_else(|e| {
                if matches!(e, Error::NotFound(_)) {
                    Ok((0, String::new()))
                } else {
                    Err(e)
                }
            })?;
            let after_p = project(&after, &req, s)
                .map(|p| (p.tokens, p.hash))
                .unwrap_or((0, String::new()));
            if before.1 != after_p.1 {
                let center = match &centre {
                    Center::Node { name, .. } => name.clone(),
                    Center::Query(q) => q.clone(),
                };
                changes.push(Change {
                    center,
                    tier,
                    tokens_before: before.0,
                    tokens_after: after_p.0,
                });
            }
        }
    }
    Ok(changes)
}
