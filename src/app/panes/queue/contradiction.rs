//! Contradictions on the queue (Cortex): two active nodes joined by a
//! `contradicts` edge and not yet both marked disputed, with what a
//! reviewer needs to pick one: both nodes, the edge, and where each came
//! from. Built by the engine worker at any level (what that level reads);
//! resolved at the master level by keeping one (the other is deprecated)
//! or marking both disputed, the writes `graphex deprecate` and
//! `graphex update --prop disputed=true` make.

use graphex_engine::curate::{DISPUTED, contradictions as engine_contradictions};
use graphex_engine::model::{Node, NodePatch, Status};
use graphex_engine::store::Store;

/// One side of a contradiction, ready to draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Side {
    pub name: String,
    pub node_type: String,
    pub tier: String,
    pub description: String,
    pub confidence: f64,
    /// Milliseconds since the epoch.
    pub updated_ms: i64,
    pub version: u64,
    /// Who wrote it (its provenance), and the proposal that added it when
    /// one did.
    pub origin: String,
    /// Already marked disputed (the other is not yet).
    pub disputed: bool,
}

/// A contradiction to resolve: `left` is the node the edge leaves.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContradictionItem {
    pub left: Side,
    pub right: Side,
    /// The `contradicts` edge: its tier, confidence and provenance.
    pub edge: String,
    /// When the edge was made, milliseconds since the epoch.
    pub edge_ms: i64,
}

impl ContradictionItem {
    /// What identifies it across reads: both names.
    pub fn key(&self) -> (&str, &str) {
        (&self.left.name, &self.right.name)
    }
}

/// How a reviewer resolves a contradiction.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Resolution {
    /// Keep `kept`: `deprecated` is deprecated with `reason`.
    Keep {
        kept: String,
        deprecated: String,
        reason: String,
    },
    /// Both marked `disputed = true`: acknowledged, both stay.
    Dispute { names: [String; 2] },
}

impl Resolution {
    /// What the busy line says while it is written.
    pub fn doing(&self) -> String {
        match self {
            Resolution::Keep { deprecated, .. } => format!("deprecating {deprecated}"),
            Resolution::Dispute { .. } => "marking both disputed".to_owned(),
        }
    }
}

/// The reason a keep is prefilled with: naming the node kept, unless it
/// is more secret than the deprecated one (whose readers would learn of it
/// from the reason).
pub fn keep_reason(kept: &Side, deprecated: &Side) -> String {
    let tier = |s: &Side| s.tier.parse::<graphex_engine::Tier>().ok();
    if tier(kept) > tier(deprecated) {
        "contradicts a more secret node, which was kept".to_owned()
    } else {
        format!("contradicts {0}; kept {0}", kept.name)
    }
}

/// How many contradictions the queue lists with their cards (the first by
/// name); `graphex contradictions` lists them all. A generated or merged
/// graph can hold tens of thousands, and each card reads both nodes.
pub const LISTED: usize = 100;

/// The open contradictions this store reads, each pair once: the first
/// [`LISTED`] by name with their cards, and how many there are in all.
pub fn contradictions(store: &Store) -> (Vec<ContradictionItem>, usize) {
    let catalog = store.catalog();
    let mut seen: std::collections::HashSet<(String, String)> = std::collections::HashSet::new();
    let mut open = Vec::new();
    for c in engine_contradictions(catalog, store.level().max_tier()) {
        if c.acknowledged || seen.contains(&(c.to.clone(), c.from.clone())) {
            continue;
        }
        seen.insert((c.from.clone(), c.to.clone()));
        open.push(c);
    }
    let total = open.len();
    let mut out = Vec::new();
    for c in open.into_iter().take(LISTED) {
        let (Ok(a), Ok(b)) = (store.node(&c.from), store.node(&c.to)) else {
            continue;
        };
        let Some(edge) = catalog
            .outgoing(&a.id)
            .find(|e| e.relation.as_str() == "contradicts" && e.to == b.id)
        else {
            continue;
        };
        out.push(ContradictionItem {
            edge: format!(
                "{} · confidence {:.2} · by {}",
                edge.tier, edge.confidence, edge.provenance
            ),
            edge_ms: edge.created.0,
            left: side(store, &a),
            right: side(store, &b),
        });
    }
    (out, total)
}

fn side(store: &Store, n: &Node) -> Side {
    let proposal = store
        .version_origin(&n.id, 1)
        .ok()
        .and_then(|(_, _, p)| p)
        .map(|p| format!(" · proposal {}", p.get(..12).unwrap_or(&p)));
    Side {
        name: n.name.to_string(),
        node_type: n.node_type.to_string(),
        tier: n.tier.to_string(),
        description: n.description.clone(),
        confidence: n.confidence,
        updated_ms: n.updated.0,
        version: n.version,
        origin: format!("{}{}", n.provenance, proposal.unwrap_or_default()),
        disputed: n.properties.get(DISPUTED).is_some_and(|v| v == "true"),
    }
}

/// Writes `r`: one commit per node written, each with its timeline entry.
/// `Ok` says what was done, `Err` what was not.
pub fn resolve(store: &mut Store, r: &Resolution) -> Result<String, String> {
    match r {
        Resolution::Keep {
            kept,
            deprecated,
            reason,
        } => {
            // The reason is stored with the deprecated node: it must not
            // name a more secret node to that node's readers.
            let tier = store.catalog().by_name(deprecated).map(|n| n.tier);
            if let Some(tier) = tier {
                let flags = graphex_engine::proposal::mentions_above(store, deprecated, tier, &[reason.as_str()]);
                if !flags.is_empty() {
                    return Err(format!(
                        "{deprecated} not deprecated: {}; give a reason that does not name it",
                        flags.join("; ")
                    ));
                }
            }
            store
                .retrying(|s| s.set_status(deprecated, Status::Deprecated, Some(reason)))
                .map_err(|e| format!("{deprecated} not deprecated: {e}"))?;
            Ok(format!("kept {kept}; {deprecated} is deprecated (u undoes it)"))
        }
        Resolution::Dispute { names } => {
            let mut patch = NodePatch::default();
            patch.properties.insert(DISPUTED.to_owned(), "true".to_owned());
            let mut done: Vec<&str> = Vec::new();
            for name in names {
                let already = store
                    .catalog()
                    .by_name(name)
                    .is_some_and(|n| n.properties.get(DISPUTED).is_some_and(|v| v == "true"));
                if already {
                    continue;
                }
                if let Err(e) = store.retrying(|s| s.update_node(name, &patch)) {
                    let marked = if done.is_empty() {
                        String::new()
                    } else {
                        format!(" ({} was marked)", done.join(", "))
                    };
                    return Err(format!("{name} not marked disputed: {e}{marked}"));
                }
                done.push(name);
            }
            Ok(format!(
                "marked {} and {} disputed: acknowledged, projections still flag both ({} update(s): u undoes one at a \
                 time)",
                names[0],
                names[1],
                done.len()
            ))
        }
    }
}
