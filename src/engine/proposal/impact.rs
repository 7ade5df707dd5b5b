//! Impact preview: which agent tiers' projections would change, and by how
//! many tokens, if a proposal were accepted. The proposal is planned as a
//! forced accept (nothing written), applied to a copy of the catalog, and
//! the projections around every node it touches are compared per tier.
//! CPU-heavy in proportion to the touched nodes' neighbourhoods.

use serde::Serialize;

use crate::Store;
use crate::error::{Error, Result};
use crate::model::{NodeSummary, Tier};
use crate::project::{Access, Center, Request, Settings, project};
use crate::proposal::{ProposalId, StoredProposal};
use crate::store::Catalog;

/// How one tier's projections would change.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TierImpact {
    pub tier: Tier,
    /// Touched nodes whose projection at this tier differs.
    pub centres_changed: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

impl TierImpact {
    /// Tokens gained (positive) or lost (negative).
    pub fn delta(&self) -> i64 {
        i64::try_from(self.tokens_after).unwrap_or(i64::MAX) - i64::try_from(self.tokens_before).unwrap_or(i64::MAX)
    }
}

const UNLIMITED: usize = 1_000_000;
/// The tiers an agent can ever receive.
pub const AGENT_TIERS: [Tier; 3] = [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted];
/// Depth of the neighbourhood projected around each touched node.
const DEPTH: u32 = 1;

/// The catalog as it would be once `p` is accepted (nothing is written),
/// and the names of the nodes it touches, sorted.
pub fn after_accept(store: &Store, id: &ProposalId, p: &StoredProposal) -> Result<(Catalog, Vec<String>)> {
    let (nodes, edges, removed) = store.preview_accept(id, p)?;
    let mut after: Catalog = store.catalog().clone();
    let mut centres: Vec<String> = Vec::new();
    for n in &nodes {
        centres.push(n.name.to_string());
        after.put_node(NodeSummary::from(n));
    }
    for e in edges {
        for end in [e.from, e.to] {
            if let Some(n) = after.node(&end) {
                centres.push(n.name.to_string());
            }
        }
        after.put_edge(e);
    }
    for e in removed {
        for end in [e.from, e.to] {
            if let Some(n) = after.node(&end) {
                centres.push(n.name.to_string());
            }
        }
        after.drop_edge(&e.id);
    }
    centres.sort();
    centres.dedup();
    Ok((after, centres))
}

/// The per-tier impact of accepting `p`, one entry per agent tier.
pub fn impact(store: &Store, id: &ProposalId, p: &StoredProposal, s: &Settings) -> Result<Vec<TierImpact>> {
    let (after, centres) = after_accept(store, id, p)?;
    AGENT_TIERS
        .iter()
        .map(|tier| tier_impact(store.catalog(), &after, &centres, *tier, s))
        .collect()
}

/// How `tier`'s projections around each of `centres` (depth 1, no budget
/// limit) differ from the graph `before` to the graph `after`: the centres
/// whose text changed, and their tokens on each side.
pub fn tier_impact(
    before: &Catalog,
    after: &Catalog,
    centres: &[String],
    tier: Tier,
    s: &Settings,
) -> Result<TierImpact> {
    let mut t = TierImpact {
        tier,
        centres_changed: 0,
        tokens_before: 0,
        tokens_after: 0,
    };
    for name in centres {
        let req = Request {
            center: Center::Node {
                name: name.clone(),
                depth: DEPTH,
            },
            agent: "impact-preview".into(),
            access: Access::Tier(tier),
            budget: UNLIMITED,
            at: None,
        };
        let tokens = |c: &Catalog| match project(c, &req, s) {
            Ok(p) => Ok((p.tokens, p.hash)),
            // A centre this tier cannot see, or one no longer active,
            // projects to nothing.
            Err(Error::NotFound(_) | Error::NotProjected { .. }) => Ok((0, String::new())),
            Err(e) => Err(e),
        };
        let (b, a) = (tokens(before)?, tokens(after)?);
        if b.1 != a.1 {
            t.centres_changed += 1;
            t.tokens_before += b.0;
            t.tokens_after += a.0;
        }
    }
    Ok(t)
}
