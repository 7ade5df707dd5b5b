//! Cortex weights: how much each kind of node matters in a projection and
//! how much relevance a node keeps when reached through each kind of
//! relation (`[graphex.projection]` `importance`, `decay`, `recency_days`).
//!
//! ```text
//! relevance = carry × (100 / (1 + distance) + 20 × confidence + importance[type]
//!                      + 10 × weight + 10 × e^(-age in days / recency_days))
//! ```
//!
//! The recency term is for decisions only. `carry` is 1 for the subject and,
//! for a node one hop further out, the largest `carry(nearer) × decay[relation]`
//! over the edges the agent may see between it and a candidate one hop nearer
//! (so decays multiply along the path). Unconfigured, every importance is the
//! built-in one, every decay is 1 and `recency_days` is 180: the ranking is
//! exactly the one without settings.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::model::Tier;
use crate::store::Catalog;

/// The key in `importance` for every node type without a built-in value.
pub const OTHER_TYPES: &str = "*";

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
    /// Days for a decision's recency bonus to fall to 1/e of its value.
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
        Ok(Self {
            importance: importance.clone(),
            decay: decay.clone(),
            recency_days,
        })
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
