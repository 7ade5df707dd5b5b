//! Query errors: a kind, the byte span of the fault in the query text, and
//! "did you mean" candidates. [`QueryError::render`] draws the query with a
//! caret under the fault, for the CLI and the console.

use std::fmt;

/// Where in the query text something is (byte offsets, end exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self {
            start,
            end: end.max(start),
        }
    }
}

/// What is wrong with a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryErrorKind {
    /// The query is empty.
    Empty,
    /// A character that has no place in a query.
    UnexpectedChar(char),
    /// A token where another was expected.
    Unexpected { found: String, expected: &'static str },
    /// The query ends where more was expected.
    UnexpectedEnd { expected: &'static str },
    /// `a -> r <-> b`: the two arrows around a relation differ.
    MixedArrows,
    /// A flag that does not exist.
    UnknownFlag(String),
    /// A flag given twice.
    DuplicateFlag(String),
    /// A flag value that does not parse.
    BadFlagValue { flag: String, reason: String },
    /// A node name (not a glob) that matches no readable node.
    UnknownNode(String),
    /// A relation that no readable edge uses and that is not in the vocabulary.
    UnknownRelation(String),
    /// A type that no readable node has and that is not in the vocabulary.
    UnknownType(String),
    /// A malformed name or pattern.
    BadPattern { pattern: String, reason: String },
    /// `--depth` on a chain of several hops.
    DepthOnChain,
    /// A chain longer than [`super::ast::MAX_HOPS`].
    TooManyHops(usize),
}

/// A query error with its place and suggestions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub kind: QueryErrorKind,
    pub span: Span,
    pub candidates: Vec<String>,
}

impl QueryError {
    pub fn new(kind: QueryErrorKind, span: Span) -> Self {
        Self {
            kind,
            span,
            candidates: Vec::new(),
        }
    }

    pub fn with_candidates(mut self, candidates: Vec<String>) -> Self {
        self.candidates = candidates;
        self
    }

    /// The message, the query with a caret line under the fault, and the candidates.
    pub fn render(&self, query: &str) -> String {
        let start = self.span.start.min(query.len());
        let end = self.span.end.clamp(start, query.len());
        let pad = query.get(..start).map_or(start, |s| s.chars().count());
        let width = query.get(start..end).map_or(1, |s| s.chars().count()).max(1);
        let mut out = format!("{self}\n  {query}\n  {}{}", " ".repeat(pad), "^".repeat(width));
        if !self.candidates.is_empty() {
            out.push_str(&format!("\ndid you mean: {}?", self.candidates.join(", ")));
        }
        out
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use QueryErrorKind::*;
        match &self.kind {
            Empty => write!(f, "the query is empty; try `orders-service -> * -> *`"),
            UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            Unexpected { found, expected } => write!(f, "expected {expected}, found {found:?}"),
            UnexpectedEnd { expected } => write!(f, "the query ends where {expected} was expected"),
            MixedArrows => write!(f, "use the same arrow on both sides of a relation (`->` or `<->`)"),
            UnknownFlag(flag) => write!(f, "unknown flag {flag}"),
            DuplicateFlag(flag) => write!(f, "flag {flag} is given twice"),
            BadFlagValue { flag, reason } => write!(f, "bad value for {flag}: {reason}"),
            UnknownNode(n) => write!(f, "no node named {n:?}"),
            UnknownRelation(r) => write!(f, "no edge uses the relation {r:?}"),
            UnknownType(t) => write!(f, "no node has the type {t:?}"),
            BadPattern { pattern, reason } => write!(f, "bad pattern {pattern:?}: {reason}"),
            DepthOnChain => write!(
                f,
                "--depth applies to a single hop (`a -> r -> b`); write longer chains out"
            ),
            TooManyHops(n) => write!(
                f,
                "a chain has at most {} hops (this one has {n})",
                super::ast::MAX_HOPS
            ),
        }
    }
}

impl std::error::Error for QueryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_puts_a_caret_under_the_fault() {
        let e = QueryError::new(QueryErrorKind::UnknownNode("ordrs".into()), Span::new(0, 5))
            .with_candidates(vec!["orders".into()]);
        assert_eq!(
            e.render("ordrs -> * -> *"),
            "no node named \"ordrs\"\n  ordrs -> * -> *\n  ^^^^^\ndid you mean: orders?"
        );
        let end = QueryError::new(QueryErrorKind::UnexpectedEnd { expected: "a node" }, Span::new(5, 5));
        assert!(end.render("a -> ").ends_with("\n       ^"));
    }
}
