//! What the engine worker does for the Graph pane: neighbourhoods, the
//! fuzzy jump, paths and exports. Plain functions of the open store, so the
//! benchmarks and tests call them as the worker does.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::path::Path;

use graphex_engine::as_of::{AsOf, PastCatalog};
use graphex_engine::lookup::Bodies;
use graphex_engine::lookup::matcher::{Matcher, by_rank, holds_words, lower_words};
use graphex_engine::model::{Edge, NodeSummary, NodeType, Relation, Status};
use graphex_engine::proposal::PendingScans;
use graphex_engine::query::{StatusFilter, dot, mermaid};
use graphex_engine::store::{Catalog, Store};
use graphex_engine::traverse::Filter;
use graphex_engine::{Error, Result};

use super::Place;
use super::data::{Inspector, Neighbourhood, PathView, neighbourhood, neighbourhood_then, path};

/// How many hits the jump shows.
pub const JUMP_HITS: usize = 50;

/// One node the jump offers.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JumpHit {
    pub name: String,
    pub node_type: String,
    /// Character positions of the name that matched (empty when the
    /// description matched).
    pub matched: Vec<usize>,
    /// The description's line, escaped, when the hit came from it.
    pub description: Option<String>,
}

/// The traversal filter of `place`.
pub fn filter(place: &Place) -> Result<Filter> {
    Ok(Filter {
        types: place.types.iter().map(|t| NodeType::new(t)).collect::<Result<_>>()?,
        relations: place
            .relations
            .iter()
            .map(|r| Relation::new(r))
            .collect::<Result<_>>()?,
        excluded: Vec::new(),
        max_tier: None,
        status: if place.inactive {
            StatusFilter::Any
        } else {
            StatusFilter::Only(Status::Active)
        },
    })
}

/// The graph as it was at `at`, as this session reads it.
pub fn past(store: &Store, at: AsOf) -> std::result::Result<PastCatalog, String> {
    store
        .catalog_as_of(at)
        .map_err(|e| format!("reading the graph as it was: {e}"))
}

fn said(e: Error) -> String {
    match e {
        Error::NotFound(name) => format!("no node named {name:?} at this unlock level"),
        e => e.to_string(),
    }
}

/// The neighbourhood of `place` (as it was, with `past`, for a place in
/// the past), or what stands in the way, in words; the proposed nodes of
/// now from `pending`'s scan of the queue (none without it).
pub fn show(
    store: &Store,
    place: &Place,
    past: Option<&PastCatalog>,
    pending: Option<&mut PendingScans>,
) -> std::result::Result<Neighbourhood, String> {
    let run = || {
        let f = filter(place)?;
        match past {
            None => neighbourhood(store, &place.centre, place.depth, place.direction, &f, pending),
            Some(p) => neighbourhood_then(store, p, &place.centre, place.depth, place.direction, &f),
        }
    };
    run().map_err(|e| match (e, past) {
        (Error::NotFound(name), Some(_)) => format!("{name:?} did not exist then, or not at this unlock level"),
        (e, _) => said(e),
    })
}

/// `place.centre` as the inspector shows it: now, or its version of then.
pub fn inspect(store: &Store, place: &Place, past: Option<&PastCatalog>) -> std::result::Result<Inspector, String> {
    let name = place.centre.as_str();
    let node = match past {
        None => store.node(name),
        Some(p) => match p.catalog.by_name(name) {
            Some(then) => store.node_version(&then.id, then.version),
            None => Err(Error::NotFound(name.to_owned())),
        },
    };
    node.map(|n| Inspector::from(&n)).map_err(said)
}

/// The path from `from` to `to`, walked as `place` walks.
pub fn path_between(
    store: &Store,
    from: &str,
    to: &str,
    place: &Place,
    past: Option<&PastCatalog>,
) -> std::result::Result<PathView, String> {
    let catalog = past.map_or(store.catalog(), |p| &p.catalog);
    let run = || path(catalog, from, to, &filter(place)?);
    run().map_err(said)
}

/// The best [`JUMP_HITS`] nodes for `query`: names by the one matcher
/// first (exact, prefix, a segment's start, then fuzzy; every word in any
/// order, so `ordr srv` finds `orders-service`; ties to the shorter name),
/// then nodes whose description holds the query's words (case-insensitive),
/// by name. CPU: see [`Matcher::matching`] (a name without each word's
/// characters in order is passed over in place; the costly fuzzy scoring
/// only when exact, prefix and segment matches leave room), and a
/// substring scan of descriptions only while names leave room; the hits
/// kept are picked out of the matches, never a sort of them all.
pub fn jump(catalog: &Catalog, query: &str, bodies: Option<&Bodies>) -> Vec<JumpHit> {
    let m = Matcher::new(query);
    if m.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(i64, &NodeSummary)> = m.matching(catalog.nodes(), |n| n.name.as_str(), JUMP_HITS);
    first_hits(&mut scored, |a, b| {
        by_rank((a.0, a.1.name.as_str()), (b.0, b.1.name.as_str()))
    });
    let mut hits: Vec<JumpHit> = scored
        .iter()
        .map(|(_, n)| JumpHit {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            matched: m.hit(n.name.as_str()).map(|h| h.indices).unwrap_or_default(),
            description: None,
        })
        .collect();
    if hits.len() < JUMP_HITS && query.trim().chars().count() >= 2 {
        let words = lower_words(query);
        let named: HashSet<&str> = hits.iter().map(|h| h.name.as_str()).collect();
        let mut lower = String::new();
        let mut by_text: Vec<&NodeSummary> = catalog
            .nodes()
            .filter(|n| holds_words(&n.description, &words, &mut lower))
            .filter(|n| !named.contains(n.name.as_str()))
            .collect();
        first_hits(&mut by_text, |a, b| a.name.cmp(&b.name));
        hits.extend(by_text.into_iter().take(JUMP_HITS - hits.len()).map(|n| JumpHit {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            matched: Vec::new(),
            description: Some(first_line(&n.description)),
        }));
    }
    // Then nodes whose body holds the words (once the index is made).
    if let Some(bodies) = bodies.filter(|_| hits.len() < JUMP_HITS && query.trim().chars().count() >= 2) {
        let named: HashSet<String> = hits.iter().map(|h| h.name.clone()).collect();
        let in_bodies: Vec<JumpHit> = bodies
            .search(query, JUMP_HITS * 2)
            .into_iter()
            .filter(|h| h.in_body && !named.contains(h.node.name.as_str()))
            .take(JUMP_HITS - hits.len())
            .map(|h| JumpHit {
                name: h.node.name.to_string(),
                node_type: h.node.node_type.to_string(),
                matched: Vec::new(),
                description: Some(format!("in its body · {}", first_line(&h.node.description))),
            })
            .collect();
        hits.extend(in_bodies);
    }
    hits
}

/// Keeps the first [`JUMP_HITS`] of `v` by `order`, sorted: selected in
/// linear time, then only those sorted.
fn first_hits<T>(v: &mut Vec<T>, mut order: impl FnMut(&T, &T) -> Ordering) {
    if v.len() > JUMP_HITS {
        v.select_nth_unstable_by(JUMP_HITS - 1, &mut order);
        v.truncate(JUMP_HITS);
    }
    v.sort_unstable_by(order);
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let short: String = line.chars().take(80).collect();
    graphex_engine::hygiene::visible_line(&short).into_owned()
}

/// Where the pane starts when opened with no node: the readable node with
/// the most readable edges (the first by name among equals).
pub fn hub(c: &Catalog) -> Option<String> {
    c.node_slots()
        .filter_map(|s| {
            let n = c.node_at(s)?;
            Some((c.out_slots(s).len() + c.in_slots(s).len(), n))
        })
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.name.cmp(&a.1.name)))
        .map(|(_, n)| n.name.to_string())
}

/// The export formats, by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Mermaid,
    Dot,
}

impl Format {
    pub fn of(path: &Path) -> std::result::Result<Self, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("mmd" | "mermaid") => Ok(Format::Mermaid),
            Some("dot" | "gv") => Ok(Format::Dot),
            _ => Err(format!(
                "{}: name the file .mmd (Mermaid) or .dot (DOT)",
                path.display()
            )),
        }
    }
}

/// The nodes on screen and the edges among them (of the relations `place`
/// follows) in catalog `c` (the current one, or the past one shown), as
/// Mermaid or DOT.
pub fn export_text(c: &Catalog, place: &Place, shown: &Neighbourhood, format: Format) -> String {
    let nodes: Vec<&NodeSummary> = shown.names().into_iter().filter_map(|n| c.by_name(n)).collect();
    let ids: std::collections::HashSet<_> = nodes.iter().map(|n| n.id).collect();
    let mut edges: Vec<&Edge> = nodes
        .iter()
        .flat_map(|n| c.outgoing(&n.id))
        .filter(|e| ids.contains(&e.to))
        .filter(|e| place.relations.is_empty() || place.relations.contains(e.relation.as_str()))
        .collect();
    edges.sort_by_key(|e| e.id);
    edges.dedup_by_key(|e| e.id);
    match format {
        Format::Mermaid => mermaid(&nodes, &edges),
        Format::Dot => dot(&nodes, &edges),
    }
}

/// Writes the export of `place` to a new file (never over one), readable
/// by its owner only: it holds the names on screen in plain text.
pub fn export(
    store: &Store,
    place: &Place,
    past: Option<&PastCatalog>,
    file: &Path,
) -> std::result::Result<String, String> {
    let format = Format::of(file)?;
    // Proposed nodes are not exported: no scan of the queue.
    let shown = show(store, place, past, None)?;
    let text = export_text(past.map_or(store.catalog(), |p| &p.catalog), place, &shown, format);
    crate::app::new_file::write_new(file, &text)?;
    Ok(format!(
        "exported {} node(s) around {} to {}",
        shown.names().len(),
        place.centre,
        file.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_hits_are_the_first_of_a_full_sort() {
        for n in [0, 3, JUMP_HITS, JUMP_HITS + 1, 500] {
            let all: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1000)
                .collect();
            let mut sorted = all.clone();
            sorted.sort_unstable();
            sorted.truncate(JUMP_HITS);
            let mut picked = all;
            first_hits(&mut picked, |a, b| a.cmp(b));
            assert_eq!(picked, sorted, "{n} values");
        }
    }
}
