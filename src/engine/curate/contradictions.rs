//! Contradictions (Cortex): two active nodes joined by a `contradicts` edge
//! are a conflict to resolve. A curator keeps one (deprecates the other,
//! which ends the conflict: deprecated nodes are not projected), or marks
//! both disputed (the property `disputed = true` on each: acknowledged, no
//! longer waiting for review). Until one is deprecated, projections flag
//! both as disputed.

use serde::Serialize;

use crate::model::{NodeSummary, Status, Tier};
use crate::store::Catalog;

/// The property that marks a node's contradiction as acknowledged.
pub const DISPUTED: &str = "disputed";

/// A pair of active nodes that contradict each other.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contradiction {
    /// The node the `contradicts` edge leaves.
    pub from: String,
    pub to: String,
    /// Both marked disputed: acknowledged, no longer to review.
    pub acknowledged: bool,
}

fn disputed(n: &NodeSummary) -> bool {
    n.properties.get(DISPUTED).is_some_and(|v| v == "true")
}

/// Every contradiction among the active nodes and edges this catalog holds
/// at or below `max`, by name.
pub fn contradictions(c: &Catalog, max: Tier) -> Vec<Contradiction> {
    let mut out: Vec<Contradiction> = c
        .edges()
        .filter(|e| e.relation.as_str() == "contradicts" && e.tier <= max)
        .filter_map(|e| {
            let (a, b) = (c.node(&e.from)?, c.node(&e.to)?);
            let live = |n: &NodeSummary| n.status == Status::Active && n.tier <= max;
            (live(a) && live(b) && a.id != b.id).then(|| Contradiction {
                from: a.name.to_string(),
                to: b.name.to_string(),
                acknowledged: disputed(a) && disputed(b),
            })
        })
        .collect();
    out.sort_by(|x, y| (&x.from, &x.to).cmp(&(&y.from, &y.to)));
    out
}

/// The active nodes (slot and name) `slot` contradicts, or is contradicted
/// by, over edges at or below `max`: what a projection flags as disputed.
pub fn disputed_with(c: &Catalog, slot: u32, max: Tier) -> Vec<(u32, String)> {
    let out = c.out_slots(slot).iter().map(|&e| (e, c.ends_at(e).1));
    let inc = c.in_slots(slot).iter().map(|&e| (e, c.ends_at(e).0));
    let mut found: Vec<(u32, String)> = out
        .chain(inc)
        .filter(|&(e, _)| {
            c.edge_at(e)
                .is_some_and(|e| e.relation.as_str() == "contradicts" && e.tier <= max)
        })
        .filter_map(|(_, other)| c.node_at(other).map(|n| (other, n)))
        .filter(|(_, n)| n.status == Status::Active && n.tier <= max)
        .map(|(s, n)| (s, n.name.to_string()))
        .collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found.dedup();
    found
}
