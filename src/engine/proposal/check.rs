//! A policy check: the lints a draft would get as a proposal, with the
//! checks submitting makes, and nothing stored. What an agent is told is
//! cut to its tier: a finding that names a node above it, or a tier above
//! it, is left out, and a name hidden from the session reads as absent, so
//! a check cannot be used to probe for what the agent may not see.

use super::lint::{Lint, Mentions, lint_with};
use super::pending::prepare;
use super::stored::Source;
use super::submission::Submission;
use crate::error::Result;
use crate::model::Tier;
use crate::project::TrustPolicy;
use crate::store::{Catalog, Store};

/// The lints `sub` would get, as a reader of `cap` may see them.
pub fn check(store: &Store, policy: &TrustPolicy, sub: Submission, cap: Tier) -> Result<Vec<Lint>> {
    check_with(store, &Mentions::new(store), policy, sub, cap)
}

/// [`check`] with a prepared name index (built once per commit by a
/// caller that checks often: it costs the most on a large graph).
pub fn check_with(
    store: &Store,
    mentions: &Mentions,
    policy: &TrustPolicy,
    sub: Submission,
    cap: Tier,
) -> Result<Vec<Lint>> {
    let stored = prepare(store, policy, sub, Source::Mcp)?;
    let c = store.catalog();
    let mut out: Vec<Lint> = lint_with(store, mentions, &stored)
        .into_iter()
        .map(|l| match l {
            Lint::Hidden { change, name } => Lint::Dangling { change, name },
            other => other,
        })
        .filter(|l| !names_above(c, l, cap))
        // Accept's own reasons may name anything the checking session
        // reads: an agent is told only what the lints above say.
        .filter(|l| !matches!(l, Lint::CannotApply { .. }))
        .collect();
    // What an absent name gets, for a name above the tier: dangling.
    let hidden = |name: &str| c.by_name(name).is_some_and(|n| n.tier > cap) || store.name_is_hidden(name);
    let added: Vec<String> = stored
        .submission
        .changes
        .iter()
        .filter_map(|ch| serde_json::to_value(ch).ok())
        .filter(|v| v["op"] == "add_node")
        .filter_map(|v| v["name"].as_str().map(str::to_owned))
        .collect();
    for (i, ch) in stored.submission.changes.iter().enumerate() {
        let ends = ch.edges().into_iter().flat_map(|(from, _, to)| [from, to]);
        let names: Vec<String> = ch
            .modifies()
            .into_iter()
            .map(|n| n.to_string())
            .chain(ends.map(|n| n.to_string()))
            .collect();
        for name in names {
            let lint = Lint::Dangling { change: i + 1, name };
            if let Lint::Dangling { name, .. } = &lint
                && hidden(name)
                && !added.contains(name)
                && !out.contains(&lint)
            {
                out.push(lint);
            }
        }
    }
    out.sort_by_key(change_of);
    Ok(out)
}

/// The change a finding is about (0: the rationale).
pub fn change_of(l: &Lint) -> usize {
    serde_json::to_value(l)
        .ok()
        .and_then(|v| v.get("change").and_then(serde_json::Value::as_u64))
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
}

/// Whether finding `l` names a node, or a tier, above `cap`.
fn names_above(c: &Catalog, l: &Lint, cap: Tier) -> bool {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(l) else {
        return true;
    };
    fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "lint" | "change" | "kind"))
        .filter_map(|(k, v)| v.as_str().map(|text| (k, text)))
        .any(|(key, text)| {
            // A tier field holds a tier; any other holds names (a node
            // may well be named like a tier, and is judged as a name).
            if key.ends_with("tier") {
                return text.parse::<Tier>().is_ok_and(|t| t > cap);
            }
            text.split(" -> ")
                .any(|part| c.by_name(part.trim()).is_some_and(|n| n.tier > cap))
        })
}
