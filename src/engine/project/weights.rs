//! Cortex weights: how much each kind of node matters in a projection and
//! how much relevance a node keeps when reached through each kind of
//! relation (`[graphex.projection]` `importance`, `decay`, `recency_days`).
//!
//! ```text
//! relevance = carry × (100 / (1 + distance) + 20 × confidence + importance[type]
//!                      + 20 × importance(node) + 10 × weight
//!                      + 10 × e^(-age in days / recency_days))
//! ```
//!
//! `importance(node)` is the node's own `importance` property (0 to 1,
//! `graphex add --importance`), 0 when it has none.
//!
//! The recency term is 0 to 10 and decays with age: a decision's from its
//! date, any other node's from its last reinforcement (its newest version:
//! an edit, an accepted proposal that changed it, `graphex confirm`), in
//! whole days. `carry` is 1 for the subject and,
//! for a node one hop further out, the largest `carry(nearer) × decay[relation]`
//! over the edges the agent may see between it and a candidate one hop nearer
//! (so decays multiply along the path). Unconfigured, every importance is the
//! built-in one, every decay is 1 and `recency_days` is 180: the ranking is
//! exactly the one without settings.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::model::{NodeType, Relation, Tier};
use crate::store::Catalog;

/// The key in `importance` for every node type without a built-in value.
pub const OTHER_TYPES: &str = "*";

/// The custom `what` of the graph, for an error: `; custom types in the
/// graph: a, b` (the first few).
fn in_graph(custom: &BTreeSet<&str>, what: &str) -> String {
    const SHOWN: usize = 20;
    if custom.is_empty() {
        return format!("; the graph has no custom {what}");
    }
    let list: Vec<&str> = custom.iter().copied().take(SHOWN).collect();
    let more = custom.len().saturating_sub(SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("; custom {what} in the graph: {}{more}", list.join(", "))
}

/// Refuses the first key of `section` that is neither built in, nor one
/// of `also`, nor in use in the graph (`in_use` lists every use), naming
/// the known ones; `what` is the singular, the plural and a note after the
/// built-in list.
fn known_keys<'c, I: Iterator<Item = &'c str>>(
    section: &str,
    keys: &BTreeMap<String, f64>,
    built_in: &[&str],
    also: &[&str],
    in_use: impl Fn() -> I,
    what: (&str, &str, &str),
) -> Result<()> {
    let unknown = keys.keys().find(|k| {
        let k = k.replace('_', "-");
        !built_in.contains(&k.as_str()) && !also.contains(&k.as_str()) && !in_use().any(|u| u == k)
    });
    let Some(key) = unknown else { return Ok(()) };
    let custom: BTreeSet<&str> = in_use().filter(|u| !built_in.contains(u)).collect();
    let (one, many, note) = what;
    Err(Error::invalid(
        "projection setting",
        format!("{section}.{key}"),
        format!(
            "no {one} is called that; known: {}{note}{}",
            built_in.join(", "),
            in_graph(&custom, many)
        ),
    ))
}

/// Built-in importance of a node type; `None` for the others (5).
fn built_in(node_type: &str) -> Option<f64> {
    match node_type {
        "convention" => Some(15.0),
        "service" | "module" => Some(12.0),
        "glossary" | "decision" => Some(10.0),
        _ => None,
    }
}

/// Validated Cortex weights (see the module documentation for the formula).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    importance: BTreeMap<String, f64>,
    decay: BTreeMap<String, f64>,
    /// Days for a node's recency bonus to fall to 1/e of its value.
    pub recency_days: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            importance: BTreeMap::new(),
            decay: BTreeMap::new(),
            recency_days: 180.0,
        }
    }
}

impl Weights {
    /// Weights from the settings, refusing a negative or non-finite
    /// importance, a decay outside 0..=1 and a non-positive `recency_days`,
    /// naming the key and its value.
    pub fn new(
        importance: &BTreeMap<String, f64>,
        decay: &BTreeMap<String, f64>,
        recency_days: Option<f64>,
    ) -> Result<Self> {
        let bad = |key: String, value: f64, reason: &str| {
            Error::invalid("projection setting", format!("{key} = {value}"), reason)
        };
        for (k, &v) in importance {
            if k.is_empty() || !v.is_finite() || v < 0.0 {
                return Err(bad(
                    format!("importance.{k}"),
                    v,
                    "an importance is a finite number ≥ 0 for a named node type",
                ));
            }
        }
        for (k, &v) in decay {
            if k.is_empty() || !(0.0..=1.0).contains(&v) {
                return Err(bad(
                    format!("decay.{k}"),
                    v,
                    "a decay is a number from 0 to 1 for a named relation type",
                ));
            }
        }
        let d = Self::default().recency_days;
        let recency_days = recency_days.unwrap_or(d);
        if !recency_days.is_finite() || recency_days <= 0.0 {
            return Err(bad(
                "recency_days".into(),
                recency_days,
                "recency_days is a finite number of days > 0",
            ));
        }
        // `similar_to` and `similar-to` are one relation, as everywhere.
        let spelt = |m: &BTreeMap<String, f64>| m.iter().map(|(k, v)| (k.replace('_', "-"), *v)).collect();
        Ok(Self {
            importance: spelt(importance),
            decay: spelt(decay),
            recency_days,
        })
    }

    /// Refuses a key of `importance` that names no node type and a key of
    /// `decay` that names no relation, naming the key and the known ones:
    /// a misspelt key would otherwise weigh nothing, unnoticed. Known are
    /// the built-in types (relations), `"*"` for `importance`, and the
    /// custom ones some node (edge) of the graph `c` has: custom types are
    /// free lowercase words, declared nowhere but by their use.
    pub fn check_keys(importance: &BTreeMap<String, f64>, decay: &BTreeMap<String, f64>, c: &Catalog) -> Result<()> {
        let types = || c.nodes().map(|n| n.node_type.as_str());
        let relations = || c.edges().map(|e| e.relation.as_str());
        let star = format!(", \"{OTHER_TYPES}\" (every type without a built-in value)");
        known_keys(
            "importance",
            importance,
            NodeType::KNOWN,
            &[OTHER_TYPES],
            types,
            ("node type", "types", &star),
        )?;
        known_keys(
            "decay",
            decay,
            Relation::KNOWN,
            &[],
            relations,
            ("relation", "relations", ""),
        )
    }

    /// The importance of a node type: configured, else built in, else the
    /// configured `"*"`, else 5.
    pub fn importance(&self, node_type: &str) -> f64 {
        self.importance
            .get(node_type)
            .copied()
            .or_else(|| built_in(node_type))
            .or_else(|| self.importance.get(OTHER_TYPES).copied())
            .unwrap_or(5.0)
    }

    /// The share of relevance kept per hop over a relation type (1 unless set).
    pub fn decay(&self, relation: &str) -> f64 {
        self.decay.get(relation).copied().unwrap_or(1.0)
    }

    /// Each candidate's `carry` (see the module documentation); empty, and so
    /// 1 for everyone, when no decay is configured.
    pub(crate) fn carries(&self, c: &Catalog, candidates: &[(u32, u32)], tier: Tier) -> FxHashMap<u32, f64> {
        let mut carry: FxHashMap<u32, f64> = FxHashMap::default();
        if self.decay.is_empty() {
            return carry;
        }
        let distance_of: FxHashMap<u32, u32> = candidates.iter().copied().collect();
        let mut by_distance = candidates.to_vec();
        by_distance.sort_by_key(|&(slot, d)| (d, slot));
        for (slot, distance) in by_distance {
            let value = if distance == 0 {
                1.0
            } else {
                let out = c.out_slots(slot).iter().map(|&e| (e, c.ends_at(e).1));
                let inc = c.in_slots(slot).iter().map(|&e| (e, c.ends_at(e).0));
                out.chain(inc)
                    .filter(|&(_, other)| distance_of.get(&other) == Some(&(distance - 1)))
                    .filter_map(|(e, other)| c.edge_at(e).map(|e| (e, other)))
                    .filter(|(e, _)| e.tier <= tier)
                    .map(|(e, other)| carry.get(&other).copied().unwrap_or(1.0) * self.decay(e.relation.as_str()))
                    .reduce(f64::max)
                    .unwrap_or(1.0)
            };
            carry.insert(slot, value);
        }
        carry
    }
}

#[cfg(test)]
#[path = "weights_tests.rs"]
mod tests;
