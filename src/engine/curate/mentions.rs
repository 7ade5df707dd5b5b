//! Glossary terms mentioned in other nodes' descriptions with no edge
//! between them: one pass over every description, all terms at once.

use rustc_hash::FxHashSet;

use super::MentionSuggestion;
use crate::lookup::{NameScan, normalize_term};
use crate::model::Status;
use crate::store::Catalog;

/// The suggestions for the non-archived glossary terms among `listed`,
/// sorted by term then mentioning node.
pub(super) fn unlinked(c: &Catalog, listed: &[u32]) -> Vec<MentionSuggestion> {
    let terms: Vec<u32> = listed
        .iter()
        .copied()
        .filter(|&s| {
            c.node_at(s)
                .is_some_and(|n| n.node_type.as_str() == "glossary" && n.status != Status::Archived)
        })
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    let patterns: Vec<String> = terms
        .iter()
        .filter_map(|&s| c.node_at(s))
        .map(|n| normalize_term(n.name.as_str()))
        .collect();
    let scan = NameScan::new(patterns.iter().map(String::as_str));
    let linked = |a: u32, b: u32| {
        c.out_slots(a)
            .iter()
            .any(|&e| c.edge_at(e).is_some() && c.ends_at(e).1 == b)
            || c.in_slots(a)
                .iter()
                .any(|&e| c.edge_at(e).is_some() && c.ends_at(e).0 == b)
    };
    let mut found: FxHashSet<(u32, u32)> = FxHashSet::default();
    for slot in c.node_slots() {
        let Some(n) = c.node_at(slot).filter(|n| n.status != Status::Archived) else {
            continue;
        };
        let text = normalize_term(&n.description);
        for i in scan.find(&text) {
            let term = terms[i];
            if term != slot && !found.contains(&(term, slot)) && !linked(slot, term) {
                found.insert((term, slot));
            }
        }
    }
    let mut out: Vec<MentionSuggestion> = found
        .into_iter()
        .filter_map(|(t, m)| {
            Some(MentionSuggestion {
                term: c.node_at(t)?.name.clone(),
                mentioned_by: c.node_at(m)?.name.clone(),
            })
        })
        .collect();
    out.sort();
    out
}
