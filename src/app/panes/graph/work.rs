//! What the engine worker does for the Graph pane: neighbourhoods, the
//! fuzzy jump, paths and exports. Plain functions of the open store, so the
//! benchmarks and tests call them as the worker does.

use std::path::Path;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use graphex_engine::model::{Edge, NodeSummary, NodeType, Relation, Status};
use graphex_engine::query::{StatusFilter, dot, mermaid};
use graphex_engine::store::{AsOf, Catalog, PastCatalog, Store};
use graphex_engine::traverse::Filter;
use graphex_engine::{Error, Result};

use super::Place;
use super::data::{Neighbourhood, PathView, neighbourhood, neighbourhood_then, path};

/// How many hits the jump shows.
pub const JUMP_HITS: usize = 50;

/// One node the jump offers.
#[derive(Clone, Debug, PartialEq)]
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
/// the past), or what stands in the way, in words.
pub fn show(store: &Store, place: &Place, past: Option<&PastCatalog>) -> std::result::Result<Neighbourhood, String> {
    let run = || {
        let f = filter(place)?;
        match past {
            None => neighbourhood(store, &place.centre, place.depth, place.direction, &f),
            Some(p) => neighbourhood_then(store, p, &place.centre, place.depth, place.direction, &f),
        }
    };
    run().map_err(|e| match (e, past) {
        (Error::NotFound(name), Some(_)) => format!("{name:?} did not exist then, or not at this unlock level"),
        (e, _) => said(e),
    })
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

/// The best [`JUMP_HITS`] nodes for `query`: fuzzy matches on names first
/// (best score, then shorter name), then nodes whose description holds the
/// query's words (case-insensitive), by name. CPU: one fuzzy score per
/// readable name, and a substring scan of descriptions only while names
/// leave room.
pub fn jump(catalog: &Catalog, query: &str) -> Vec<JumpHit> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let m = SkimMatcherV2::default();
    let mut scored: Vec<(i64, &NodeSummary)> = catalog
        .nodes()
        .filter_map(|n| m.fuzzy_match(n.name.as_str(), query).map(|s| (s, n)))
        .collect();
    scored.sort_unstable_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.name.as_str().len().cmp(&b.1.name.as_str().len()))
            .then_with(|| a.1.name.cmp(&b.1.name))
    });
    scored.truncate(JUMP_HITS);
    let mut hits: Vec<JumpHit> = scored
        .iter()
        .map(|(_, n)| JumpHit {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            matched: m
                .fuzzy_indices(n.name.as_str(), query)
                .map(|(_, i)| i)
                .unwrap_or_default(),
            description: None,
        })
        .collect();
    if hits.len() < JUMP_HITS && query.chars().count() >= 2 {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut by_text: Vec<&NodeSummary> = catalog
            .nodes()
            .filter(|n| !hits.iter().any(|h| h.name == n.name.as_str()))
            .filter(|n| {
                let d = n.description.to_lowercase();
                words.iter().all(|w| d.contains(w.as_str()))
            })
            .collect();
        by_text.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        hits.extend(by_text.into_iter().take(JUMP_HITS - hits.len()).map(|n| JumpHit {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            matched: Vec::new(),
            description: Some(first_line(&n.description)),
        }));
    }
    hits
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
    let shown = show(store, place, past)?;
    let text = export_text(past.map_or(store.catalog(), |p| &p.catalog), place, &shown, format);
    crate::app::new_file::write_new(file, &text)?;
    Ok(format!(
        "exported {} node(s) around {} to {}",
        shown.names().len(),
        place.centre,
        file.display()
    ))
}
