//! Auto-inference: a first draft of the graph, read from a repository's own
//! files and returned as proposal changes for a person to review. Nothing is
//! written: [`infer`] only reads, and every node it suggests carries a
//! confidence below 1 and the agent-readable tier.
//!
//! # Rust workspaces
//! When the root holds a `Cargo.toml`, its `[workspace] members` (globs such
//! as `crates/*` are expanded, `exclude` is honoured) and the root `[package]`
//! are read:
//! - each crate becomes a node named after its package (lowercase, `_` as
//!   `-`): a `service` when it builds a binary (`src/main.rs`, `src/bin/` or
//!   `[[bin]]`), else a `module`; confidence 0.7;
//! - a `[dependencies]` or `[build-dependencies]` entry on another member
//!   (by `path`, or `workspace = true` resolving to one; renamed entries with
//!   `package = "..."` too) becomes a `depends-on` edge; dev-dependencies are
//!   left out;
//! - each `mod x;` in the crate root (`lib.rs`, `main.rs`) becomes a `module`
//!   node `<crate>.<x>` (confidence 0.6) contained by the crate, described by
//!   the first sentence of its `//!` docs; `#[cfg(test)]` modules and modules
//!   named `tests` are left out;
//! - `crate::<y>` paths (including `use crate::{y, ...}`) in module `x`'s
//!   files give `<crate>.<x>` `depends-on` `<crate>.<y>` when `y` is another
//!   top-level module, and `<dep>::` paths naming a workspace dependency give
//!   `<crate>.<x>` `depends-on` `<dep crate>`. Test code (`tests/` dirs,
//!   `tests.rs`, a trailing `#[cfg(test)] mod ... { }`) is not scanned.
//!
//! `fuzz/`, `target/` and hidden directories are ignored; at most 5,000 Rust
//! files of at most 1 MiB each are read. A manifest that does not parse is
//! skipped with a note.
//!
//! # Markdown
//! Up to 500 `*.md` files (skipping `target/`, `node_modules/` and hidden
//! directories; at most 1 MiB each) are read, outside code blocks:
//! - each `#` or `##` heading becomes a `concept` node named by its slug
//!   (leading article dropped, at most 64 characters), described by the first
//!   sentence of the first paragraph under it; generic headings (Overview,
//!   Usage, License, ...) are skipped;
//! - a `**bold term**` of 2 to 40 characters, emphasised at least twice
//!   across all the docs, becomes a `concept` node with a `related-to` edge
//!   from the heading of each section that emphasises it;
//! - sentences `X depends on Y`, `X uses Y`, `X contains Y`, `X is part of Y`
//!   (read as `Y contains X`) and `X supersedes Y`, where X and Y are names of
//!   nodes inferred here or already in the graph, become edges.
//!
//! Docs never add a node whose name a crate or module already has, and
//! confidence is 0.5 throughout.
//!
//! # What comes back
//! Nodes already in the graph (per the caller's `exists`) are not proposed
//! again and are listed in [`Inference::skipped`]; edges between them still
//! are (accepting an edge that exists already is a no-op for the caller to
//! handle). Changes are sorted: new nodes first (crates, modules, docs), then
//! edges; a module's `contains` edge rides on its node. At most
//! [`MAX_CHANGES`](crate::proposal::MAX_CHANGES) changes are returned,
//! chosen by importance (crates, modules, code edges, then docs); the count
//! of the rest is noted in `skipped`, and a second run after accepting the
//! first proposal picks them up.

mod assemble;
mod cargo;
mod markdown;

/// Reads one markdown document as `infer` does, and flattens it (fuzzing).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn read_markdown(text: &str) -> usize {
    markdown::read_one(text) + text::strip_markdown(text).len()
}
mod rust_modules;
mod text;
mod walk;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Name;
use crate::proposal::Change;

/// What [`infer`] found.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Inference {
    /// The proposal's changes, in order (nodes before the edges that use them).
    pub changes: Vec<Change>,
    /// The files read, relative to the root, sorted.
    pub sources: Vec<String>,
    /// What was not proposed and why: nodes already in the graph, files not
    /// read, changes over the proposal limit.
    pub skipped: Vec<String>,
}

/// Reads the repository at `root` and proposes nodes and edges for it.
/// `exists` says whether a node name is already in the graph. Only an
/// unreadable root is an error; odd files are skipped with a note.
pub fn infer(root: &Path, exists: &dyn Fn(&str) -> bool) -> Result<Inference> {
    std::fs::read_dir(root).map_err(|e| Error::io(root, e))?;
    let mut found = Findings::default();
    let mut budget = walk::Budget::new(5_000, "Rust files");
    let crates = cargo::crates(root, &mut budget, &mut found);
    rust_modules::scan(root, &crates, &mut budget, &mut found);
    markdown::scan(root, exists, &mut found);
    Ok(assemble::assemble(found, exists))
}

/// How important a node is when the proposal is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Crate,
    Module,
    Doc,
}

/// Where an edge comes from (code edges outrank doc ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EdgeKind {
    Code,
    Doc,
}

/// A node a reader found.
struct Draft {
    rank: Rank,
    node_type: &'static str,
    description: String,
    properties: BTreeMap<String, String>,
    confidence: f64,
}

/// An edge a reader found.
struct EdgeDraft {
    kind: EdgeKind,
    confidence: f64,
    /// The new node this edge is proposed with, as a suggested edge.
    owner: Option<Name>,
}

/// An edge's identity: from, relation, to.
type EdgeKey = (Name, &'static str, Name);

/// Most notes kept in `skipped` (beyond the per-node ones).
const MAX_NOTES: usize = 200;

/// Everything the readers found, before `exists` and the limits apply.
#[derive(Default)]
struct Findings {
    nodes: BTreeMap<Name, Draft>,
    edges: BTreeMap<EdgeKey, EdgeDraft>,
    sources: BTreeSet<String>,
    notes: Vec<String>,
    notes_dropped: usize,
}

impl Findings {
    /// Adds a node; false (and nothing changes) if the name is already taken
    /// by an earlier finding.
    fn add_node(&mut self, name: Name, draft: Draft) -> bool {
        if self.nodes.contains_key(&name) {
            return false;
        }
        self.nodes.insert(name, draft);
        true
    }

    fn has_node(&self, name: &Name) -> bool {
        self.nodes.contains_key(name)
    }

    /// Adds an edge unless it loops or was already found.
    fn add_edge(&mut self, from: &Name, relation: &'static str, to: &Name, kind: EdgeKind, confidence: f64) {
        self.add_owned_edge(from, relation, to, kind, confidence, None);
    }

    fn add_owned_edge(
        &mut self,
        from: &Name,
        relation: &'static str,
        to: &Name,
        kind: EdgeKind,
        confidence: f64,
        owner: Option<Name>,
    ) {
        if from == to {
            return;
        }
        self.edges
            .entry((from.clone(), relation, to.clone()))
            .or_insert(EdgeDraft {
                kind,
                confidence,
                owner,
            });
    }

    fn source(&mut self, rel: String) {
        self.sources.insert(rel);
    }

    fn note(&mut self, message: String) {
        if self.notes.contains(&message) {
            return;
        }
        if self.notes.len() < MAX_NOTES {
            self.notes.push(message);
        } else {
            self.notes_dropped += 1;
        }
    }
}
