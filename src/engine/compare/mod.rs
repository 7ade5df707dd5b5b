//! Two states of the graph compared (two git revisions, a revision and the
//! work tree, two stores), at the level of the one comparing: the nodes
//! added, changed (field by field), deprecated, archived, restored and
//! gone, the relations added and removed, how many sealed nodes and edges
//! each tier above that level holds on each side (counted, never shown),
//! what each agent tier gains and loses, and the findings a reviewer acts
//! on (a tier lowered, a credential, a more secret node named in a less
//! secret text).
//!
//! Both stores are read as they are; nothing is written.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::error::Result;
use crate::model::{FieldDiff, Node, NodeId, NodeSummary, Status, Tier, field_diff};
use crate::project::Settings;
use crate::proposal::{AGENT_TIERS, Mentions, tier_impact};
use crate::store::{Catalog, Store, TierCount};

mod exposure;
pub use exposure::TierExposure;

/// Centres whose projections are compared for tokens, at most (the first,
/// by name); the node and relation counts cover every change.
pub const MAX_CENTRES: usize = 300;

/// What happened to a node between the two states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeChangeKind {
    Added,
    Changed,
    Deprecated,
    Archived,
    Restored,
    /// Not in the second state as this level reads it: removed, or moved
    /// to a tier above this level (the sealed counts tell which).
    Gone,
}

impl NodeChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Changed => "changed",
            Self::Deprecated => "deprecated",
            Self::Archived => "archived",
            Self::Restored => "restored",
            Self::Gone => "gone",
        }
    }
}

/// One node that differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeChange {
    pub name: String,
    #[serde(rename = "type")]
    pub node_type: String,
    pub change: NodeChangeKind,
    pub tier_before: Option<Tier>,
    pub tier_after: Option<Tier>,
    /// The fields that differ (a node added or gone: none).
    pub fields: Vec<FieldDiff>,
}

/// One relation added or removed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct EdgeChange {
    pub from: String,
    pub relation: String,
    pub to: String,
    pub added: bool,
    pub tier: Tier,
}

/// A tier this level cannot read: how many nodes and edges it holds on
/// each side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SealedCount {
    pub tier: Tier,
    pub nodes: (u64, u64),
    pub edges: (u64, u64),
}

/// Something a reviewer acts on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// `tier-lowered`, `credential` or `mentions-higher`.
    pub code: &'static str,
    pub node: String,
    pub text: String,
}

/// Everything that differs from `before` to `after`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub nodes: Vec<NodeChange>,
    pub edges: Vec<EdgeChange>,
    pub sealed: Vec<SealedCount>,
    pub exposure: Vec<TierExposure>,
    pub findings: Vec<Finding>,
}

impl Comparison {
    /// Nothing differs that this level can see or count.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
            && self.edges.is_empty()
            && self
                .sealed
                .iter()
                .all(|s| s.nodes.0 == s.nodes.1 && s.edges.0 == s.edges.1)
    }
}

/// One side of a comparison: a graph as one level reads it.
pub trait Side {
    fn catalog(&self) -> &Catalog;
    /// The whole node `n` names (its version), for its fields.
    fn node(&self, n: &NodeSummary) -> Result<Node>;
    /// Each tier's counts and whether this side reads it (none: unknown).
    fn tiers(&self) -> Result<Vec<TierCount>>;
}

impl Side for Store {
    fn catalog(&self) -> &Catalog {
        Store::catalog(self)
    }
    fn node(&self, n: &NodeSummary) -> Result<Node> {
        Store::node(self, n.name.as_str())
    }
    fn tiers(&self) -> Result<Vec<TierCount>> {
        Ok(self.status()?.tiers)
    }
}

/// The graph of `store` at a point of its timeline (`graphex diff
/// --as-of`): its nodes' versions of that time; how much each sealed tier
/// held then is not known, so none is counted.
pub struct Past<'a> {
    pub store: &'a Store,
    pub past: crate::as_of::PastCatalog,
}

impl Side for Past<'_> {
    fn catalog(&self) -> &Catalog {
        &self.past.catalog
    }
    fn node(&self, n: &NodeSummary) -> Result<Node> {
        self.store.node_version(&n.id, n.version)
    }
    fn tiers(&self) -> Result<Vec<TierCount>> {
        Ok(Vec::new())
    }
}

/// Compares the graph in `before` with the graph in `after`, projecting
/// with `settings` (the second state's, as agents would receive it).
pub fn compare(before: &Store, after: &Store, settings: &Settings) -> Result<Comparison> {
    compare_sides(before, after, &Mentions::new(after), settings)
}

/// [`compare`] of any two sides; `mentions` holds the names a text could
/// give away (the second side's store's).
pub fn compare_sides(
    before: &dyn Side,
    after: &dyn Side,
    mentions: &Mentions,
    settings: &Settings,
) -> Result<Comparison> {
    let (a, b) = (before.catalog(), after.catalog());
    let mut nodes = Vec::new();
    for pair in changed_pairs(a, b) {
        let change = match pair {
            (None, Some(n)) => NodeChange {
                name: n.name.to_string(),
                node_type: n.node_type.to_string(),
                change: NodeChangeKind::Added,
                tier_before: None,
                tier_after: Some(n.tier),
                fields: Vec::new(),
            },
            (Some(n), None) => NodeChange {
                name: n.name.to_string(),
                node_type: n.node_type.to_string(),
                change: NodeChangeKind::Gone,
                tier_before: Some(n.tier),
                tier_after: None,
                fields: Vec::new(),
            },
            (Some(x), Some(y)) => {
                let fields = field_diff(&before.node(x)?, &after.node(y)?);
                let change = match (x.status, y.status) {
                    (s, t) if s == t => NodeChangeKind::Changed,
                    (_, Status::Deprecated) => NodeChangeKind::Deprecated,
                    (_, Status::Archived) => NodeChangeKind::Archived,
                    (_, Status::Active) => NodeChangeKind::Restored,
                    _ => NodeChangeKind::Changed,
                };
                NodeChange {
                    name: y.name.to_string(),
                    node_type: y.node_type.to_string(),
                    change,
                    tier_before: Some(x.tier),
                    tier_after: Some(y.tier),
                    fields,
                }
            }
            (None, None) => continue,
        };
        nodes.push(change);
    }
    nodes.sort_by(|x, y| x.name.cmp(&y.name));
    let findings = findings(after, mentions, &nodes);
    let edges = edges(a, b);
    let sealed = sealed(before, after)?;
    let mut centres: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    centres.truncate(MAX_CENTRES);
    let mut out = Vec::new();
    for tier in AGENT_TIERS {
        let tokens = tier_impact(a, b, &centres, tier, settings)?;
        out.push(exposure::of_tier(a, b, tier, tokens));
    }
    Ok(Comparison {
        nodes,
        edges,
        sealed,
        exposure: out,
        findings,
    })
}

/// The nodes that differ between two catalogs, by id: added (`None`,
/// `Some`), gone (`Some`, `None`) or with another version (both).
fn changed_pairs<'a>(
    a: &'a Catalog,
    b: &'a Catalog,
) -> impl Iterator<Item = (Option<&'a NodeSummary>, Option<&'a NodeSummary>)> {
    let ids: BTreeSet<NodeId> = a.nodes().chain(b.nodes()).map(|n| n.id).collect();
    ids.into_iter()
        .map(|id| (a.node(&id), b.node(&id)))
        .filter(|pair| match pair {
            (Some(x), Some(y)) => x.version != y.version,
            _ => true,
        })
}

/// The names of the nodes that differ between two catalogs (added, gone,
/// changed), sorted: what a range lists, without reading a blob or
/// projecting anything.
pub fn changed_names(before: &Catalog, after: &Catalog) -> Vec<String> {
    let mut names: Vec<String> = changed_pairs(before, after)
        .filter_map(|(x, y)| y.or(x).map(|n| n.name.to_string()))
        .collect();
    names.sort();
    names
}

/// Relations by their ends' names, each side as its level reads it.
fn edges(a: &Catalog, b: &Catalog) -> Vec<EdgeChange> {
    let keyed = |c: &Catalog| -> BTreeMap<(String, String, String), Tier> {
        c.edges()
            .filter_map(|e| {
                let (f, t) = (c.node(&e.from)?, c.node(&e.to)?);
                Some(((f.name.to_string(), e.relation.to_string(), t.name.to_string()), e.tier))
            })
            .collect()
    };
    let (x, y) = (keyed(a), keyed(b));
    let one = |k: &(String, String, String), added: bool, tier: Tier| EdgeChange {
        from: k.0.clone(),
        relation: k.1.clone(),
        to: k.2.clone(),
        added,
        tier,
    };
    let mut out: Vec<EdgeChange> = y
        .iter()
        .filter(|(k, _)| !x.contains_key(*k))
        .map(|(k, t)| one(k, true, *t))
        .chain(
            x.iter()
                .filter(|(k, _)| !y.contains_key(*k))
                .map(|(k, t)| one(k, false, *t)),
        )
        .collect();
    out.sort();
    out
}

/// The tiers either side cannot read, with what each holds.
fn sealed(before: &dyn Side, after: &dyn Side) -> Result<Vec<SealedCount>> {
    let (x, y) = (before.tiers()?, after.tiers()?);
    if x.is_empty() || y.is_empty() {
        return Ok(Vec::new());
    }
    let count = |r: &[TierCount]| -> HashMap<Tier, (u64, u64, bool)> {
        r.iter().map(|t| (t.tier, (t.nodes, t.edges, t.readable))).collect()
    };
    let (cx, cy) = (count(&x), count(&y));
    Ok(Tier::ALL
        .iter()
        .filter_map(|tier| {
            let (xn, xe, xr) = cx.get(tier).copied().unwrap_or((0, 0, true));
            let (yn, ye, yr) = cy.get(tier).copied().unwrap_or((0, 0, true));
            (!xr || !yr).then_some(SealedCount {
                tier: *tier,
                nodes: (xn, yn),
                edges: (xe, ye),
            })
        })
        .collect())
}

/// Tiers lowered, credentials, and more secret names in less secret text,
/// in the second state's changed and added nodes.
fn findings(after: &dyn Side, mentions: &Mentions, nodes: &[NodeChange]) -> Vec<Finding> {
    let mut out = Vec::new();
    for n in nodes {
        if let (Some(x), Some(y)) = (n.tier_before, n.tier_after)
            && y < x
        {
            out.push(Finding {
                code: "tier-lowered",
                node: n.name.clone(),
                text: format!(
                    "lowers {} from {x} to {y}, exposing it (and its history) to more readers",
                    n.name
                ),
            });
        }
        let Some(tier) = n.tier_after else { continue };
        let texts: Vec<String> = match n.change {
            NodeChangeKind::Added => after
                .catalog()
                .by_name(&n.name)
                .and_then(|s| after.node(s).ok())
                .map(|node| {
                    let mut t = vec![node.description.clone()];
                    t.extend(node.body.clone());
                    t.extend(node.properties.values().cloned());
                    t
                })
                .unwrap_or_default(),
            _ => n.fields.iter().filter_map(|f| f.after.clone()).collect(),
        };
        for text in &texts {
            if let Some(kind) = crate::project::credential_in(text) {
                out.push(Finding {
                    code: "credential",
                    node: n.name.clone(),
                    text: format!("{}: contains what looks like {kind}", n.name),
                });
                break;
            }
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for (named, named_tier) in mentions.above(tier, &n.name, &refs) {
            out.push(Finding {
                code: "mentions-higher",
                node: n.name.clone(),
                text: format!(
                    "the text of {} ({tier}) names {named} ({named_tier}), so {tier} readers would learn of it",
                    n.name
                ),
            });
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests;
