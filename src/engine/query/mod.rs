//! The query language of the spec: `<subject> -> <relation> -> <object>`,
//! with names, ids, `*` and globs, `<->` for either direction, chains of
//! hops, and `--depth --type --tier --since --confidence --status --limit`.
//!
//! lexer → parser (AST with spans) → resolve (names against the graph) →
//! evaluate (walk the in-memory adjacency) → format (JSON, text, Mermaid, DOT).
//!
//! Semantics, in short: every node on a path must pass `--status` (default
//! visible: active and deprecated, deprecated ones flagged), `--tier` (at most) and `--confidence` (at least); every edge must
//! pass `--tier` and `--confidence`; the last node of a path must pass
//! `--type`, and it or the last edge must be newer than `--since`. `--depth N`
//! on a single hop follows that relation up to N times. A chain that ends on
//! a relation (`a -> uses`) ends on any node. An edge marked bidirectional is
//! followed both ways even by `->`. Paths never visit a node twice.

mod ast;
pub mod complete;
pub mod diagram;
mod edit_distance;
mod error;
mod eval;
mod format;
mod lexer;
mod nothing;
mod parser;
mod saved;
mod suggest;

pub use ast::{Flags, Hop, MAX_DEPTH, MAX_HOPS, MAX_LIMIT, Pattern, Query, StatusFilter, glob_match};
pub use edit_distance::{EditPattern, edit_distance};
pub use error::{QueryError, QueryErrorKind, Span};
pub use eval::{MAX_ENUMERATED, MAX_STEPS, Match, Matches};
pub use format::{QueryOutput, ResultPath, SpecEdge, SpecNode, SpecResponse, SpecResult, dot, mermaid};
pub use nothing::nothing_matches;
pub use parser::{FLAGS, parse};
pub use suggest::similar;

use crate::store::Catalog;

/// Like [`run`], for projections: only Active nodes, and only nodes and edges
/// at or below `max`, may be walked through or returned.
pub fn run_capped(catalog: &Catalog, src: &str, max: crate::model::Tier) -> Result<QueryOutput, QueryError> {
    let mut q = parse(src)?;
    let active = |n: &crate::model::NodeSummary| n.status == crate::model::Status::Active && n.tier <= max;
    eval::resolve_in(&q, catalog, &active, &|e| e.tier <= max)?;
    q.flags.tier = Some(q.flags.tier.map_or(max, |t| t.min(max)));
    q.flags.status = StatusFilter::Only(crate::model::Status::Active);
    Ok(QueryOutput::new(src, eval::evaluate(&q, catalog), catalog).explained(catalog, Some(max)))
}

/// Parses, resolves and evaluates `src` against what `catalog` holds.
/// Cheap for anchored queries; `* -> * -> *` walks every edge.
pub fn run(catalog: &Catalog, src: &str) -> Result<QueryOutput, QueryError> {
    let q = parse(src)?;
    eval::resolve(&q, catalog)?;
    Ok(QueryOutput::new(src, eval::evaluate(&q, catalog), catalog).explained(catalog, None))
}

#[cfg(test)]
mod tests;
