//! Glossary look-up: glossary nodes by term, exact first, then partial.

use crate::model::{NodeSummary, Status};
use crate::store::Catalog;

/// A term as a node name: lowercase, spaces and underscores as `-`.
pub fn normalize_term(term: &str) -> String {
    let lowered = term.trim().to_lowercase();
    let mut out = String::with_capacity(lowered.len());
    for c in lowered.chars() {
        let c = if c.is_whitespace() || c == '_' { '-' } else { c };
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    out
}

/// Glossary entries for `term`: an exact name match first, then names that
/// contain the term, then definitions that mention it. Active entries only.
pub fn glossary(c: &Catalog, term: &str) -> Vec<NodeSummary> {
    let key = normalize_term(term);
    if key.is_empty() {
        return Vec::new();
    }
    let words = term.trim().to_lowercase();
    let mut ranked: Vec<(u8, &NodeSummary)> = c
        .nodes()
        .filter(|n| n.node_type.as_str() == "glossary" && n.status == Status::Active)
        .filter_map(|n| {
            let name = n.name.as_str();
            let rank = if name == key {
                0
            } else if name.contains(&key) {
                1
            } else if n.description.to_lowercase().contains(&words) {
                2
            } else {
                return None;
            };
            Some((rank, n))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    ranked.into_iter().map(|(_, n)| n.clone()).collect()
}
