//! Why a query (or a projection around one) holds nothing, in words an
//! agent can act on: no path matches, and what the nodes the query names do
//! have. Only nodes and edges readable at the tier are counted or named, so
//! the answer is the same whether a name is absent or above the tier.

use super::ast::Pattern;
use crate::model::Tier;
use crate::store::Catalog;

/// Why nothing matches query `q` at `tier` (`None`: every tier the catalog
/// holds): no path, plus for each node the query names exactly that is
/// readable, its edges and a query that reaches them.
pub fn nothing_matches(c: &Catalog, q: &str, tier: Option<Tier>) -> String {
    let (mut why, here) = match tier {
        Some(t) => (format!("no path matches this query at the {t} tier"), "at this tier"),
        None => (
            "no path matches this query at the tiers this session reads".to_owned(),
            "readable here",
        ),
    };
    let tier = tier.unwrap_or(Tier::HumanOnly);
    let Ok(parsed) = super::parse(q) else {
        return why;
    };
    let mut named: Vec<&str> = Vec::new();
    for p in std::iter::once(&parsed.start).chain(parsed.hops.iter().map(|h| &h.node)) {
        if let Pattern::Exact(name) = &p.value
            && !named.contains(&name.as_str())
        {
            named.push(name);
        }
    }
    for name in named {
        let Some(slot) = c
            .by_name(name)
            .filter(|n| n.tier <= tier)
            .and_then(|n| c.slot_of(&n.id))
        else {
            continue;
        };
        // An edge counts when it and both its ends are readable.
        let readable = |edges: &[u32]| {
            edges
                .iter()
                .filter(|&&e| {
                    let (from, to) = c.ends_at(e);
                    let end_readable = |s: u32| c.node_at(s).is_some_and(|n| n.tier <= tier);
                    c.edge_at(e).is_some_and(|e| e.tier <= tier) && end_readable(from) && end_readable(to)
                })
                .count()
        };
        let (outgoing, incoming) = (readable(c.out_slots(slot)), readable(c.in_slots(slot)));
        let mut tries = Vec::new();
        if outgoing > 0 {
            tries.push(format!("`{name} -> * -> *`"));
        }
        if incoming > 0 {
            tries.push(format!("`* -> * -> {name}`"));
        }
        why.push_str(&format!(
            "; {name} has {outgoing} outgoing and {incoming} incoming edge(s) {here}"
        ));
        if !tries.is_empty() {
            why.push_str(&format!(": try {}", tries.join(" or ")));
        }
    }
    why
}
