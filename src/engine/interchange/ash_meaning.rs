//! What Ash's own words mean here, applied after its lines are mapped:
//! - `SUPERSEDES`: the target memory is replaced; it is deprecated, naming
//!   its successor (both stay, as `supersede` leaves them).
//! - `MERGED_INTO`: the source folds into the target: it is deprecated, its
//!   other edges move to the target, and the target supersedes it (so an
//!   agent asking for the old one is sent to the new).
//! - `sensitivity`: `PERSONAL` is agent-restricted, `SENSITIVE` (and
//!   `SECRET`) human-only, at least; anything else takes the import's tier.
//!   A user's own mapping ([`remap_sensitivity`], `import --sensitivity
//!   LABEL=TIER`) replaces the built-in one for the labels it names.
//! - `portable = false`: kept, and never federated (see
//!   [`crate::federation`], which skips a node whose `portable` is `false`).

use super::{ImportEdge, Mapped};
use crate::model::{Relation, Status, Tier};

/// The tier a memory's `sensitivity` asks for at least.
pub fn sensitivity_tier(sensitivity: &str) -> Option<Tier> {
    match sensitivity.trim().to_ascii_uppercase().as_str() {
        "PERSONAL" => Some(Tier::AgentRestricted),
        "SENSITIVE" | "SECRET" => Some(Tier::HumanOnly),
        _ => None,
    }
}

/// Sets the least tier of every mapped node whose `sensitivity` label
/// (compared in capitals) `map` names, in place of the built-in rule;
/// returns how many nodes it set. Ash lines carry no tier of their own, so
/// the label's tier is the node's; the import's `--tier` still raises it.
pub fn remap_sensitivity(m: &mut Mapped, map: &std::collections::BTreeMap<String, Tier>) -> usize {
    let mut set = 0;
    for n in &mut m.nodes {
        let label = n.properties.get("sensitivity").map(|s| s.trim().to_ascii_uppercase());
        if let Some(tier) = label.and_then(|l| map.get(&l)) {
            n.tier = Some(*tier);
            set += 1;
        }
    }
    set
}

/// Applies the meanings above to what was mapped from Ash's files.
pub(super) fn apply(m: &mut Mapped) {
    for n in &mut m.nodes {
        if let Some(tier) = n.properties.get("sensitivity").and_then(|s| sensitivity_tier(s)) {
            n.tier = Some(n.tier.map_or(tier, |t| t.max(tier)));
        }
    }
    let (Ok(supersedes), Ok(merged_into)) = (Relation::new("supersedes"), Relation::new("merged-into")) else {
        return;
    };
    let mut replaced: Vec<(String, String, &'static str)> = Vec::new();
    let mut merges: Vec<(String, String)> = Vec::new();
    for e in &m.edges {
        if e.relation == supersedes {
            replaced.push((e.to.to_string(), e.from.to_string(), "superseded by"));
        } else if e.relation == merged_into {
            replaced.push((e.from.to_string(), e.to.to_string(), "merged into"));
            merges.push((e.from.to_string(), e.to.to_string()));
        }
    }
    for (old, new, how) in &replaced {
        if let Some(n) = m.nodes.iter_mut().find(|n| n.name.as_str() == old) {
            n.status = Some(Status::Deprecated);
            n.status_reason = Some(format!("{how} {new}"));
        }
    }
    for (merged, into) in merges {
        let (Ok(merged_name), Ok(into_name)) = (crate::model::Name::new(&merged), crate::model::Name::new(&into))
        else {
            continue;
        };
        let mut moved: Vec<ImportEdge> = Vec::new();
        m.edges.retain(|e| {
            let touches = e.from == merged_name || e.to == merged_name;
            if e.relation == merged_into && e.from == merged_name {
                // The fold itself becomes "INTO supersedes MERGED".
                moved.push(ImportEdge {
                    from: into_name.clone(),
                    relation: supersedes.clone(),
                    to: merged_name.clone(),
                    ..e.clone()
                });
                return false;
            }
            if touches {
                let mut e = e.clone();
                if e.from == merged_name {
                    e.from = into_name.clone();
                }
                if e.to == merged_name {
                    e.to = into_name.clone();
                }
                if e.from != e.to {
                    moved.push(e);
                }
                return false;
            }
            true
        });
        m.edges.extend(moved);
    }
}
