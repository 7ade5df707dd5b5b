//! Curator lists for the console's Graph pane: the entries of a node type
//! (conventions, glossary terms, decisions, any type, or all) with what a
//! curator looks at — status, last change, scope, number of links — and
//! flags for what may need care: near-duplicate names, entries nothing
//! links to, entries not changed for a long time, and glossary terms that
//! other nodes' text mentions without a link.
//!
//! Everything is computed from the session's [`Catalog`]: a node or edge
//! above the unlock level is not in it, so it is in no row, no count, no
//! flag and no suggestion. No blob is read.
//!
//! # Rules
//! - **Links**: readable edges leaving the entry plus readable edges
//!   arriving at it (an edge from the entry to itself counts once).
//! - **Orphan**: no readable edge *arrives* at the entry from another node;
//!   an edge marked bidirectional counts as arriving at both ends. Edges
//!   leaving it do not count: a convention that only points elsewhere is
//!   still something nothing links to.
//! - **Stale**: `now - last change > stale_after` (last change is the
//!   summary's `updated`); no threshold, no stale flags.
//! - **Near duplicate**: another *listed* entry whose name differs only by
//!   separators or by a small edit ([`crate::lookup::NearNames`], the
//!   proposal lint's rule); the first such entry in catalog order is named.
//! - **Scope**: the `scope` property, as conventions read it (`global`
//!   applies everywhere, see [`crate::lookup::conventions_for`]); an entry
//!   without one applies through its links, and its scope is `None`.
//! - **Unlinked mentions**: for each listed glossary term that is not
//!   archived, the other non-archived readable nodes whose *description*
//!   mentions it (the body is not in the catalog and is not read), with no
//!   readable edge between the two in either direction. Text and term are
//!   both compared as [`crate::lookup::normalize_term`] makes them
//!   (`Order Batch` mentions `order-batch`), at word boundaries.
//!
//! # Cost
//! Rows, links, orphans and staleness: O(listed + their edges).
//! Mentions: one Aho-Corasick pass over every readable description
//! (O(total description bytes + matches × degree of the mentioning node)),
//! whatever the number of terms. Near duplicates: O(n·w) bit-parallel
//! distances for n listed entries, w being the listed names within the
//! length window of each (a few milliseconds for a few thousand entries;
//! for `all` on a 100k-node synthetic store, whose names differ by a
//! number, w grows with n, so ask for one type at a time there).

mod confirm;
mod contradictions;
mod mentions;
mod rows;
#[cfg(test)]
mod tests;

use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::model::{Name, NodeType, Status, Tier, Timestamp};
use crate::store::Catalog;

pub use confirm::CONFIRMED;
pub use contradictions::{Contradiction, DISPUTED, contradictions, disputed_with};
pub use rows::sort_rows;

/// What a curator list sorts by; ties go by name, ascending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SortBy {
    #[default]
    Name,
    LastChange,
    /// Entries without a scope come last (first when descending).
    Scope,
    Links,
}

/// Which entries to list, and how.
#[derive(Clone, Debug)]
pub struct ListSpec {
    /// Node types to list; empty lists every type.
    pub types: Vec<NodeType>,
    pub sort: SortBy,
    pub descending: bool,
    /// The present, as the caller reads its clock (tests pass a fixed one).
    pub now: Timestamp,
    /// Entries unchanged for longer than this are flagged stale; `None`:
    /// nothing is.
    pub stale_after: Option<Duration>,
}

impl ListSpec {
    /// Entries of `types` (empty: all), by name, with no stale threshold.
    pub fn new(types: Vec<NodeType>, now: Timestamp) -> Self {
        Self {
            types,
            sort: SortBy::Name,
            descending: false,
            now,
            stale_after: None,
        }
    }
}

/// What may need a curator's care on one entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Flags {
    /// Another listed entry with a very close name.
    pub near_duplicate_of: Option<Name>,
    /// No readable edge arrives at it (see the module's rules).
    pub orphan: bool,
    /// Not changed for longer than the list's threshold.
    pub stale: bool,
    /// Nodes whose description mentions this glossary term with no edge
    /// between them (the pairs are in [`CuratorList::mentions`]).
    pub unlinked_mentions: usize,
}

/// One listed entry.
#[derive(Clone, Debug, Serialize)]
pub struct CuratorRow {
    pub name: Name,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    pub status: Status,
    pub tier: Tier,
    /// When the entry last changed (its current version's `updated`).
    pub last_change: Timestamp,
    /// The `scope` property, if any.
    pub scope: Option<String>,
    /// Readable edges in and out.
    pub links: usize,
    pub flags: Flags,
}

/// A glossary term that a node's description mentions, with no edge
/// between them: the console can offer to link them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct MentionSuggestion {
    pub term: Name,
    pub mentioned_by: Name,
}

/// A curator list: the rows, sorted, and the link suggestions for the
/// listed glossary terms, by term then mentioning node.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CuratorList {
    pub rows: Vec<CuratorRow>,
    pub mentions: Vec<MentionSuggestion>,
}

/// The curator list of `spec` over what `c` holds (see the module's rules
/// and costs).
pub fn curator_list(c: &Catalog, spec: &ListSpec) -> CuratorList {
    let listed: Vec<u32> = c
        .node_slots()
        .filter(|&s| {
            c.node_at(s)
                .is_some_and(|n| spec.types.is_empty() || spec.types.contains(&n.node_type))
        })
        .collect();
    let mut rows = rows::build(c, &listed, spec);
    let mentions = mentions::unlinked(c, &listed);
    let mut per_term: FxHashMap<&Name, usize> = FxHashMap::default();
    for m in &mentions {
        *per_term.entry(&m.term).or_default() += 1;
    }
    for row in &mut rows {
        row.flags.unlinked_mentions = per_term.get(&row.name).copied().unwrap_or(0);
    }
    sort_rows(&mut rows, spec.sort, spec.descending);
    CuratorList { rows, mentions }
}
