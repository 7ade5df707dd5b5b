//! Parsing: tokens to a [`Query`], checking every name, pattern and flag
//! value for form. Whether names exist is checked later, against the graph.

use super::ast::{At, Flags, Hop, MAX_DEPTH, MAX_HOPS, MAX_LIMIT, Pattern, Query, StatusFilter};
use super::error::{QueryError, QueryErrorKind as K, Span};
use super::lexer::{Tok, Token, lex};
use super::suggest::similar;
use crate::model::{Name, NodeType, Relation, Status, Tier, Timestamp};

/// The flags a query accepts.
pub const FLAGS: &[&str] = &[
    "--depth",
    "--type",
    "--tier",
    "--since",
    "--confidence",
    "--status",
    "--limit",
];

/// Parses `src`.
pub fn parse(src: &str) -> Result<Query, QueryError> {
    let tokens = lex(src)?;
    let mut p = Parser {
        tokens,
        i: 0,
        end: src.len(),
        depth_span: None,
    };
    if p.tokens.is_empty() {
        return Err(QueryError::new(K::Empty, Span::new(0, src.len())));
    }
    let start = p.node_pattern()?;
    let mut hops = Vec::new();
    while let Some(first) = p.arrow() {
        let relation = p.relation_pattern()?;
        let node = match p.arrow() {
            Some((second, span)) => {
                if second != first.0 {
                    return Err(QueryError::new(K::MixedArrows, span));
                }
                p.node_pattern()?
            }
            // `a -> r` ends on a relation: the object is any node.
            None => At {
                value: Pattern::Any,
                span: Span::new(relation.span.end, relation.span.end),
            },
        };
        hops.push(Hop {
            relation,
            either_way: first.0,
            node,
        });
        if hops.len() > MAX_HOPS {
            return Err(QueryError::new(K::TooManyHops(hops.len()), Span::new(0, p.end)));
        }
    }
    let flags = p.flags()?;
    if flags.depth > 1 && hops.len() > 1 {
        let span = p.depth_span.unwrap_or(Span::new(0, src.len()));
        return Err(QueryError::new(K::DepthOnChain, span));
    }
    Ok(Query { start, hops, flags })
}

struct Parser {
    tokens: Vec<Token>,
    i: usize,
    end: usize,
    /// Where `--depth` was written, for [`K::DepthOnChain`].
    depth_span: Option<Span>,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.i)
    }

    fn end_span(&self) -> Span {
        Span::new(self.end, self.end)
    }

    /// Consumes an arrow: (either way, span).
    fn arrow(&mut self) -> Option<(bool, Span)> {
        let t = self.peek()?;
        let out = match t.tok {
            Tok::Arrow => (false, t.span),
            Tok::BiArrow => (true, t.span),
            _ => return None,
        };
        self.i += 1;
        Some(out)
    }

    fn word(&mut self, expected: &'static str) -> Result<At<String>, QueryError> {
        match self.peek().cloned() {
            Some(Token {
                tok: Tok::Word(w),
                span,
            }) => {
                self.i += 1;
                Ok(At { value: w, span })
            }
            Some(t) => Err(QueryError::new(
                K::Unexpected {
                    found: describe(&t.tok),
                    expected,
                },
                t.span,
            )),
            None => Err(QueryError::new(K::UnexpectedEnd { expected }, self.end_span())),
        }
    }

    fn node_pattern(&mut self) -> Result<At<Pattern>, QueryError> {
        let w = self.word("a node name, id, glob or `*`")?;
        let value = pattern(
            &w,
            |s| Name::new(s).is_ok() || uuid::Uuid::parse_str(s).is_ok(),
            "a node name",
        )?;
        Ok(At { value, span: w.span })
    }

    fn relation_pattern(&mut self) -> Result<At<Pattern>, QueryError> {
        let w = self.word("a relation or `*`")?;
        let value = pattern(&w, |s| Relation::new(s).is_ok(), "a relation")?;
        Ok(At { value, span: w.span })
    }

    fn flags(&mut self) -> Result<Flags, QueryError> {
        let mut flags = Flags::default();
        let mut seen: Vec<String> = Vec::new();
        while let Some(t) = self.peek().cloned() {
            let Tok::Flag(name) = &t.tok else {
                return Err(QueryError::new(
                    K::Unexpected {
                        found: describe(&t.tok),
                        expected: "an arrow or a --flag",
                    },
                    t.span,
                ));
            };
            self.i += 1;
            if !FLAGS.contains(&name.as_str()) {
                return Err(QueryError::new(K::UnknownFlag(name.clone()), t.span)
                    .with_candidates(similar(name, FLAGS.iter().copied())));
            }
            if seen.contains(name) {
                return Err(QueryError::new(K::DuplicateFlag(name.clone()), t.span));
            }
            seen.push(name.clone());
            let value = self.word("a value for the flag")?;
            let bad = |reason: String| {
                QueryError::new(
                    K::BadFlagValue {
                        flag: name.clone(),
                        reason,
                    },
                    value.span,
                )
            };
            let v = value.value.as_str();
            match name.as_str() {
                "--depth" => {
                    flags.depth = v
                        .parse::<u32>()
                        .ok()
                        .filter(|d| (1..=MAX_DEPTH).contains(d))
                        .ok_or_else(|| bad(format!("a whole number from 1 to {MAX_DEPTH}")))?;
                    self.depth_span = Some(t.span);
                }
                "--type" => {
                    NodeType::new(v).map_err(|e| bad(e.to_string()))?;
                    flags.node_type = Some(value.clone());
                }
                "--tier" => flags.tier = Some(v.parse::<Tier>().map_err(|e| bad(e.to_string()))?),
                "--since" => flags.since = Some(Timestamp::parse(v).map_err(|e| bad(e.to_string()))?),
                "--confidence" => {
                    flags.confidence = Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|c| (0.0..=1.0).contains(c))
                            .ok_or_else(|| bad("a number from 0 to 1".into()))?,
                    )
                }
                "--status" => {
                    flags.status =
                        if v == "any" {
                            StatusFilter::Any
                        } else if v == "visible" {
                            StatusFilter::Visible
                        } else {
                            StatusFilter::Only(v.parse::<Status>().map_err(|_| {
                                bad("one of proposed, active, deprecated, archived, visible, any".into())
                            })?)
                        }
                }
                _ => {
                    flags.limit = v
                        .parse::<usize>()
                        .ok()
                        .filter(|l| (1..=MAX_LIMIT).contains(l))
                        .ok_or_else(|| bad(format!("a whole number from 1 to {MAX_LIMIT}")))?
                }
            }
        }
        Ok(flags)
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Arrow => "->".into(),
        Tok::BiArrow => "<->".into(),
        Tok::Flag(f) | Tok::Word(f) => f.clone(),
    }
}

/// Classifies a word as `*`, a glob, or an exact name checked by `valid`.
fn pattern(w: &At<String>, valid: impl Fn(&str) -> bool, what: &str) -> Result<Pattern, QueryError> {
    let s = w.value.as_str();
    if s == "*" {
        return Ok(Pattern::Any);
    }
    if s.contains(['*', '?']) {
        let shape_ok = s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.' | '*' | '?'));
        if !shape_ok {
            return Err(QueryError::new(
                K::BadPattern {
                    pattern: s.into(),
                    reason: "globs use a-z, 0-9, '-', '_', '.', '*', '?'".into(),
                },
                w.span,
            ));
        }
        return Ok(Pattern::Glob(s.to_owned()));
    }
    if !valid(s) {
        let reason = if s.chars().any(|c| c.is_ascii_uppercase()) {
            format!("not {what}: names are lowercase (try {:?})", s.to_ascii_lowercase())
        } else {
            format!("not {what}")
        };
        return Err(QueryError::new(
            K::BadPattern {
                pattern: s.into(),
                reason,
            },
            w.span,
        ));
    }
    Ok(Pattern::Exact(s.to_owned()))
}
