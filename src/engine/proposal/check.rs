//! A policy check: the lints a draft would get as a proposal, with the
//! checks submitting makes, and nothing stored. What an agent is told is
//! cut to its tier: a finding that names a node above it, or a tier above
//! it, is left out, and a name hidden from the session reads as absent, so
//! a check cannot be used to probe for what the agent may not see.

use super::lint::{Lint, lint};
use super::pending::prepare;
use super::stored::Source;
use super::submission::Submission;
use crate::error::Result;
use crate::model::Tier;
use crate::project::TrustPolicy;
use crate::store::{Catalog, Store};

/// The lints `sub` would get, as a reader of `cap` may see them.
pub fn check(store: &Store, policy: &TrustPolicy, sub: Submission, cap: Tier) -> Result<Vec<Lint>> {
    let stored = prepare(store, policy, sub, Source::Mcp)?;
    Ok(lint(store, &stored)
        .into_iter()
        .map(|l| match l {
            Lint::Hidden { change, name } => Lint::Dangling { change, name },
            other => other,
        })
        .filter(|l| !names_above(store.catalog(), l, cap))
        .collect())
}

/// Whether finding `l` names a node, or a tier, above `cap`.
fn names_above(c: &Catalog, l: &Lint, cap: Tier) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(l) else {
        return true;
    };
    fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "lint" | "change" | "kind"))
        .filter_map(|(_, v)| v.as_str())
        .any(|text| {
            let tier_above = text.parse::<Tier>().is_ok_and(|t| t > cap);
            let name_above = text
                .split(" -> ")
                .any(|part| c.by_name(part.trim()).is_some_and(|n| n.tier > cap));
            tier_above || name_above
        })
}
