//! What one agent tier gains and loses between two states: the nodes it
//! receives (active, at or below the tier), the relations between them,
//! and the tokens of the projections around the changed nodes.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::{Status, Tier};
use crate::proposal::TierImpact;
use crate::store::Catalog;

/// One agent tier's exposure delta.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TierExposure {
    pub tier: Tier,
    pub nodes_gained: Vec<String>,
    pub nodes_lost: Vec<String>,
    pub relations_gained: usize,
    pub relations_lost: usize,
    /// Changed nodes whose projection at this tier differs.
    pub centres_changed: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

/// The nodes `tier` receives from `c`, by name.
fn received(c: &Catalog, tier: Tier) -> BTreeSet<String> {
    c.nodes()
        .filter(|n| n.tier <= tier && n.status == Status::Active)
        .map(|n| n.name.to_string())
        .collect()
}

/// The relations `tier` receives from `c`: both ends received, the edge at
/// or below the tier.
fn relations(c: &Catalog, tier: Tier, nodes: &BTreeSet<String>) -> BTreeSet<(String, String, String)> {
    c.edges()
        .filter(|e| e.tier <= tier)
        .filter_map(|e| {
            let (f, t) = (c.node(&e.from)?, c.node(&e.to)?);
            let key = (f.name.to_string(), e.relation.to_string(), t.name.to_string());
            (nodes.contains(&key.0) && nodes.contains(&key.2)).then_some(key)
        })
        .collect()
}

pub(super) fn of_tier(a: &Catalog, b: &Catalog, tier: Tier, tokens: TierImpact) -> TierExposure {
    let (x, y) = (received(a, tier), received(b, tier));
    let (rx, ry) = (relations(a, tier, &x), relations(b, tier, &y));
    TierExposure {
        tier,
        nodes_gained: y.difference(&x).cloned().collect(),
        nodes_lost: x.difference(&y).cloned().collect(),
        relations_gained: ry.difference(&rx).count(),
        relations_lost: rx.difference(&ry).count(),
        centres_changed: tokens.centres_changed,
        tokens_before: tokens.tokens_before,
        tokens_after: tokens.tokens_after,
    }
}
