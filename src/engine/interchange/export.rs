//! Building an export from an open store: the whole graph or a subgraph,
//! never above the session's level nor the tier asked for.

use std::collections::HashSet;

use super::native::{EXPORT_FORMAT, EXPORT_VERSION, ExportDoc, ExportEdge, ExportNode, NodeRecord};
use crate::error::Result;
use crate::model::{NodeId, Tier, Timestamp};
use crate::query::StatusFilter;
use crate::store::Store;
use crate::traverse::{Filter, subgraph};

/// Nodes opened at a time by [`export`].
const DECODE_CHUNK: usize = 4096;

/// What to export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// The most secret tier to include; the session's level caps it anyway.
    pub tier: Option<Tier>,
    /// A subgraph around this node instead of the whole graph.
    pub center: Option<String>,
    /// With `center`: how many hops (either way).
    pub depth: u32,
    /// Each node's earlier versions too (decrypts every stored version: slow
    /// on large stores).
    pub versions: bool,
}

/// The export of `store` under `opts`. CPU-heavy: decrypts every exported
/// node's blob (for its body), and every version with `versions`.
pub fn export(store: &Store, opts: &ExportOptions) -> Result<ExportDoc> {
    let level_cap = store.level().max_tier();
    let cap = opts.tier.map_or(level_cap, |t| t.min(level_cap));
    let catalog = store.catalog();
    let ids: Vec<NodeId> = match &opts.center {
        Some(center) => {
            let f = Filter {
                max_tier: Some(cap),
                status: StatusFilter::Any,
                ..Filter::default()
            };
            subgraph(catalog, center, opts.depth, &f)?
                .nodes
                .iter()
                .map(|(n, _)| n.id)
                .collect()
        }
        None => catalog.nodes().filter(|n| n.tier <= cap).map(|n| n.id).collect(),
    };
    let mut nodes = Vec::with_capacity(ids.len());
    // Blobs are opened on every core, a chunk at a time (so the decrypted
    // nodes are never held twice over).
    for chunk in ids.chunks(DECODE_CHUNK) {
        for node in store.nodes_by_ids(chunk)? {
            let mut versions = Vec::new();
            if opts.versions {
                for v in 1..node.version {
                    let old = store.node_version(&node.id, v)?;
                    // An earlier version under a tier above the cap stays out.
                    if old.tier <= cap {
                        versions.push(NodeRecord::from(&old));
                    }
                }
            }
            nodes.push(ExportNode {
                current: NodeRecord::from(&node),
                versions,
            });
        }
    }
    // Names are unique: an unstable sort gives the one order.
    nodes.sort_unstable_by(|a, b| a.current.name.cmp(&b.current.name));
    let included: rustc_hash::FxHashSet<NodeId> = ids.into_iter().collect();
    let edges = edges_among(catalog, &included, cap, None);
    Ok(ExportDoc {
        format: EXPORT_FORMAT.into(),
        version: EXPORT_VERSION,
        exported_at: Timestamp::now().to_rfc3339(),
        tier_cap: cap,
        center: opts.center.clone(),
        depth: opts.center.as_ref().map(|_| opts.depth),
        nodes,
        edges,
    })
}

/// The edges of `catalog` at or below `cap` whose two ends are in
/// `included`, by name, sorted; each with its own provenance, or
/// `provenance` in its stead (a federation bundle's).
pub(crate) fn edges_among(
    catalog: &crate::store::Catalog,
    included: &HashSet<NodeId, impl std::hash::BuildHasher>,
    cap: Tier,
    provenance: Option<&crate::model::Provenance>,
) -> Vec<ExportEdge> {
    // Names are unique: each end's rank among the included names orders
    // edges as their names do, compared as numbers instead of as text.
    let mut names: Vec<(&crate::model::Name, NodeId)> = included
        .iter()
        .filter_map(|id| catalog.node(id).map(|n| (&n.name, *id)))
        .collect();
    names.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let rank: rustc_hash::FxHashMap<NodeId, u32> = (0u32..).zip(&names).map(|(i, (_, id))| (*id, i)).collect();
    let mut edges: Vec<(u32, u32, ExportEdge)> = catalog
        .edges()
        .filter(|e| e.tier <= cap && included.contains(&e.from) && included.contains(&e.to))
        .filter_map(|e| {
            Some((
                *rank.get(&e.from)?,
                *rank.get(&e.to)?,
                ExportEdge {
                    from: catalog.node(&e.from)?.name.clone(),
                    relation: e.relation.clone(),
                    to: catalog.node(&e.to)?.name.clone(),
                    tier: e.tier,
                    declared_tier: e.declared_tier,
                    confidence: e.confidence,
                    weight: e.weight,
                    bidirectional: e.bidirectional,
                    provenance: provenance.map_or_else(|| (*e.provenance).clone(), Clone::clone),
                    created: e.created,
                },
            ))
        })
        .collect();
    // (from, relation, to) is unique: an unstable sort gives the one order.
    edges.sort_unstable_by(|a, b| (a.0, &a.2.relation, a.1).cmp(&(b.0, &b.2.relation, b.1)));
    edges.into_iter().map(|(_, _, e)| e).collect()
}
