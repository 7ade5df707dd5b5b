//! The parsed form of a query: a start pattern, hops, and flags.

use super::error::Span;
use crate::model::{Status, Tier, Timestamp};

/// What a node or relation position matches.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// `*`
    Any,
    /// A name (or, for nodes, an id).
    Exact(String),
    /// A pattern with `*` or `?`.
    Glob(String),
}

impl Pattern {
    /// Whether `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Exact(s) => s == text,
            Pattern::Glob(g) => glob_match(g.as_bytes(), text.as_bytes()),
        }
    }
}

/// `*` matches any run, `?` any one character (names are ASCII).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// A pattern and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct At<T> {
    pub value: T,
    pub span: Span,
}

/// One step of a chain: `-> relation -> node` (or with `<->`).
#[derive(Clone, Debug, PartialEq)]
pub struct Hop {
    pub relation: At<Pattern>,
    /// `<->`: the edge may point either way.
    pub either_way: bool,
    pub node: At<Pattern>,
}

/// Which lifecycle statuses a query sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusFilter {
    Only(Status),
    /// Active and deprecated: what people are shown (the spec's deprecated
    /// is "still visible but flagged"). Projections use `Only(Active)`.
    Visible,
    Any,
}

impl StatusFilter {
    /// Whether a node with `status` passes.
    pub fn admits(self, status: Status) -> bool {
        match self {
            StatusFilter::Any => true,
            StatusFilter::Visible => matches!(status, Status::Active | Status::Deprecated),
            StatusFilter::Only(s) => status == s,
        }
    }
}

/// The `--flags` of a query, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Flags {
    pub depth: u32,
    pub node_type: Option<At<String>>,
    pub tier: Option<Tier>,
    pub since: Option<Timestamp>,
    pub confidence: Option<f64>,
    pub status: StatusFilter,
    pub limit: usize,
}

impl Default for Flags {
    fn default() -> Self {
        Self {
            depth: 1,
            node_type: None,
            tier: None,
            since: None,
            confidence: None,
            status: StatusFilter::Visible,
            limit: DEFAULT_LIMIT,
        }
    }
}

/// Results returned unless `--limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 100;
/// The largest `--limit`.
pub const MAX_LIMIT: usize = 100_000;
/// The largest `--depth`.
pub const MAX_DEPTH: u32 = 10;
/// The longest chain of hops.
pub const MAX_HOPS: usize = 16;

/// A parsed query.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub start: At<Pattern>,
    pub hops: Vec<Hop>,
    pub flags: Flags,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let g = |p: &str, t: &str| glob_match(p.as_bytes(), t.as_bytes());
        assert!(g("orders-*", "orders-service") && g("*-service", "orders-service") && g("*", ""));
        assert!(g("o?ders*", "orders") && g("*s*e*", "orders-service"));
        assert!(!g("orders-*", "billing-service") && !g("a?", "a") && !g("", "a"));
    }
}
