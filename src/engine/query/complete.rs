//! Completion for the query language: what the word under the cursor is
//! (a node, a relation, a flag or a flag's value) and the candidates for
//! it, ranked by the one matcher ([`crate::lookup::matcher`]); and a line
//! of help for each flag.
//!
//! Candidates come from the catalog, so from what the session reads only:
//! a node above the unlock level is never offered.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use super::ast::{MAX_DEPTH, MAX_LIMIT};
use super::lexer::{Tok, lex};
use super::parser::FLAGS;
use crate::lookup::matcher::{Matcher, by_rank};
use crate::model::{NodeType, Relation, Timestamp};
use crate::store::Catalog;

/// What the word under the cursor stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A node: a name, `*` or a glob (the subject, or after a relation).
    Node,
    /// A relation (after a node and an arrow).
    Relation,
    /// After a node or a relation with nothing typed: an arrow or a flag.
    Operator,
    /// A flag (`--…`).
    Flag,
    /// The value of the flag named.
    Value(String),
    /// Nothing to offer here.
    Nothing,
}

/// The slot under the cursor and the text typed of it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    pub slot: Slot,
    /// The typed part of the word, from its start to the cursor.
    pub prefix: String,
    /// Bytes of the word a candidate replaces (start, end): the whole
    /// word under the cursor.
    pub replace: (usize, usize),
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '*' | ':' | '+' | '/' | '?')
}

/// The context of byte offset `cursor` in `src` (clamped to a boundary).
pub fn context(src: &str, cursor: usize) -> Context {
    let mut cursor = cursor.min(src.len());
    while !src.is_char_boundary(cursor) {
        cursor -= 1;
    }
    let before = &src[..cursor];
    // The word under the cursor: back to its start, on to its end; a `>`
    // ends a word that is really an arrow.
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word_char(*c))
        .last()
        .map_or(cursor, |(i, _)| i);
    let end = src[cursor..]
        .char_indices()
        .find(|(_, c)| !is_word_char(*c))
        .map_or(src.len(), |(i, _)| cursor + i);
    let prefix = src[start..cursor].to_owned();
    let nothing = |prefix: String| Context {
        slot: Slot::Nothing,
        prefix,
        replace: (start, end),
    };
    if prefix.starts_with("--") || prefix == "-" {
        return Context {
            slot: Slot::Flag,
            prefix,
            replace: (start, end),
        };
    }
    let Ok(tokens) = lex(&src[..start]) else {
        return nothing(prefix);
    };
    let slot = match tokens.last().map(|t| &t.tok) {
        Some(Tok::Flag(f)) => Slot::Value(f.clone()),
        _ if tokens.iter().any(|t| matches!(t.tok, Tok::Flag(_))) => {
            // After the flags' values: only more flags.
            if prefix.is_empty() { Slot::Flag } else { Slot::Nothing }
        }
        Some(Tok::Word(_)) if prefix.is_empty() => Slot::Operator,
        Some(Tok::Word(_)) => Slot::Nothing,
        _ => {
            let arrows = tokens
                .iter()
                .filter(|t| matches!(t.tok, Tok::Arrow | Tok::BiArrow))
                .count();
            if arrows % 2 == 1 { Slot::Relation } else { Slot::Node }
        }
    };
    Context {
        slot,
        prefix,
        replace: (start, end),
    }
}

/// One thing the completion offers.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// What replaces the word.
    pub text: String,
    /// A word about it: a node's type, how many edges use a relation, a
    /// flag's help.
    pub detail: String,
    /// Character positions of `text` that matched what was typed.
    pub matched: Vec<usize>,
}

/// One line of help per flag: what it takes and does.
pub fn flag_help(flag: &str) -> Option<&'static str> {
    Some(match flag {
        "--depth" => "--depth N (1–10): follow a single hop's relation up to N times",
        "--type" => "--type T: the last node of a path has this type",
        "--tier" => "--tier T: only nodes and edges at or below this tier (what that tier would match)",
        "--since" => "--since DATE: the last node or edge changed since (YYYY-MM-DD or RFC 3339)",
        "--confidence" => "--confidence C (0–1): only nodes and edges at least this confident",
        "--status" => "--status S: proposed, active (the default), deprecated, archived or any",
        "--limit" => "--limit N: at most N paths (default 100)",
        _ => return None,
    })
}

/// The flag whose value or name is under the cursor, for signature help.
pub fn flag_at(src: &str, cursor: usize) -> Option<&'static str> {
    let ctx = context(src, cursor);
    let name = match &ctx.slot {
        Slot::Value(f) => f.clone(),
        Slot::Flag => ctx.prefix.clone(),
        _ => return None,
    };
    FLAGS.iter().copied().find(|f| *f == name)
}

/// Up to `limit` candidates for `ctx`, best first: matched on what was
/// typed by the one matcher (higher score, then the more used, then the
/// shorter and the alphabetical). `now` dates the `--since` suggestions.
///
/// CPU for a node: see [`Matcher::matching`] (names without the typed
/// characters in order passed over in place, nothing copied; fuzzy scoring
/// only when better matches leave room), the best `limit` picked out of
/// the matches (never a sort of them all), and only those copied out with
/// their matched positions.
pub fn candidates(c: &Catalog, ctx: &Context, now: Timestamp, limit: usize) -> Vec<Candidate> {
    let pool: Vec<(String, String, usize)> = match &ctx.slot {
        Slot::Node => return node_candidates(c, &ctx.prefix, limit),
        Slot::Relation => counted(c.edges().map(|e| e.relation.as_str()), Relation::KNOWN, "edges"),
        Slot::Operator => {
            let mut v = vec![
                ("->".to_owned(), "follow a relation".to_owned(), 2),
                ("<->".to_owned(), "follow a relation either way".to_owned(), 1),
            ];
            v.extend(flags());
            v
        }
        Slot::Flag => flags(),
        Slot::Value(flag) => values(c, flag, now),
        Slot::Nothing => Vec::new(),
    };
    let m = Matcher::new(&ctx.prefix);
    let mut scored: Vec<(i64, usize, Candidate)> = pool
        .into_iter()
        .filter_map(|(text, detail, weight)| {
            let hit = m.hit(&text)?;
            let matched = hit.indices;
            Some((hit.score, weight, Candidate { text, detail, matched }))
        })
        .collect();
    scored.sort_by(|a, b| ranked((a.0, a.1, &a.2.text), (b.0, b.1, &b.2.text)));
    scored.truncate(limit);
    scored.into_iter().map(|(_, _, c)| c).collect()
}

/// The candidates' order: higher score, then the more used (weight), then
/// the matcher's ties (the shorter text, then the text).
fn ranked(a: (i64, usize, &str), b: (i64, usize, &str)) -> Ordering {
    b.0.cmp(&a.0)
        .then(b.1.cmp(&a.1))
        .then_with(|| by_rank((a.0, a.2), (b.0, b.2)))
}

/// The node slot's candidates: `*` and the readable names, weighted by
/// their edges (see [`candidates`] for the cost).
fn node_candidates(c: &Catalog, typed: &str, limit: usize) -> Vec<Candidate> {
    if limit == 0 {
        return Vec::new();
    }
    let m = Matcher::new(typed);
    // (score, weight, text, the node's slot; none for `*`)
    let mut scored: Vec<(i64, usize, &str, Option<u32>)> = Vec::new();
    if let Some(s) = m.score("*") {
        scored.push((s, usize::MAX, "*", None));
    }
    let named = |slot: &u32| -> &str { c.node_at(*slot).map_or("", |n| n.name.as_str()) };
    scored.extend(
        m.matching(c.node_slots(), named, limit)
            .into_iter()
            .filter_map(|(s, slot)| {
                let n = c.node_at(slot)?;
                let degree = c.out_slots(slot).len() + c.in_slots(slot).len();
                Some((s, degree, n.name.as_str(), Some(slot)))
            }),
    );
    let order = |a: &(i64, usize, &str, Option<u32>), b: &(i64, usize, &str, Option<u32>)| {
        ranked((a.0, a.1, a.2), (b.0, b.1, b.2))
    };
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, order);
        scored.truncate(limit);
    }
    scored.sort_unstable_by(order);
    scored
        .into_iter()
        .map(|(_, _, text, slot)| Candidate {
            text: text.to_owned(),
            detail: match slot.and_then(|s| c.node_at(s)) {
                Some(n) => n.node_type.to_string(),
                None => "any node".to_owned(),
            },
            matched: m.hit(text).map(|h| h.indices).unwrap_or_default(),
        })
        .collect()
}

fn flags() -> Vec<(String, String, usize)> {
    FLAGS
        .iter()
        .map(|f| ((*f).to_owned(), flag_help(f).unwrap_or_default().to_owned(), 0))
        .collect()
}

/// Values in use with their counts, then the vocabulary's unused ones.
/// Counted by reference (no copy per use): 500k edges count in a few ms.
fn counted<'a>(used: impl Iterator<Item = &'a str>, known: &[&str], what: &str) -> Vec<(String, String, usize)> {
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for u in used {
        *uses.entry(u).or_default() += 1;
    }
    let mut m: BTreeMap<&str, usize> = known.iter().map(|k| (*k, 0)).collect();
    for (u, n) in uses {
        *m.entry(u).or_default() += n;
    }
    m.into_iter()
        .map(|(k, n)| (k.to_owned(), format!("{n} {what}"), n))
        .collect()
}

fn values(c: &Catalog, flag: &str, now: Timestamp) -> Vec<(String, String, usize)> {
    let fixed = |vs: &[(&str, &str)]| {
        vs.iter()
            .enumerate()
            .map(|(i, (v, d))| ((*v).to_owned(), (*d).to_owned(), vs.len() - i))
            .collect()
    };
    match flag {
        "--depth" => (1..=MAX_DEPTH).map(|d| (d.to_string(), "hops".into(), 0)).collect(),
        "--type" => counted(c.nodes().map(|n| n.node_type.as_str()), NodeType::KNOWN, "nodes"),
        "--tier" => fixed(&[
            ("public", "anyone, any agent"),
            ("agent-readable", "agents with a readable trust"),
            ("agent-restricted", "trusted local runtimes"),
            ("human-only", "never projected"),
        ]),
        "--status" => fixed(&[
            ("active", "the default"),
            ("deprecated", ""),
            ("archived", ""),
            ("proposed", ""),
            ("any", "every status"),
        ]),
        "--since" => {
            let day = 86_400_000;
            [
                (0, "today"),
                (7, "a week ago"),
                (30, "30 days ago"),
                (365, "a year ago"),
            ]
            .iter()
            .enumerate()
            .map(|(i, (d, what))| (Timestamp(now.0 - d * day).date(), (*what).to_owned(), 4 - i))
            .collect()
        }
        "--confidence" => fixed(&[("0.9", ""), ("0.8", ""), ("0.5", "")]),
        "--limit" => fixed(&[("10", ""), ("100", "the default"), ("1000", "")])
            .into_iter()
            .filter(|(v, _, _)| v.parse::<usize>().is_ok_and(|n| n <= MAX_LIMIT))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(src_with_cursor: &str) -> (Slot, String) {
        let cursor = src_with_cursor.find('|').unwrap();
        let src = src_with_cursor.replace('|', "");
        let c = context(&src, cursor);
        (c.slot, c.prefix)
    }

    #[test]
    fn the_slot_follows_the_position_in_the_pattern() {
        assert_eq!(slot("ord|"), (Slot::Node, "ord".into()));
        assert_eq!(slot("|"), (Slot::Node, String::new()));
        assert_eq!(slot("orders -> dep|"), (Slot::Relation, "dep".into()));
        assert_eq!(slot("orders->dep|"), (Slot::Relation, "dep".into()));
        assert_eq!(slot("orders -> depends-on -> cur|"), (Slot::Node, "cur".into()));
        assert_eq!(slot("a <-> r -> b -> |"), (Slot::Relation, String::new()));
        assert_eq!(slot("orders |"), (Slot::Operator, String::new()));
        assert_eq!(slot("a -> r -> b --de|"), (Slot::Flag, "--de".into()));
        assert_eq!(
            slot("a -> r -> b --tier |"),
            (Slot::Value("--tier".into()), String::new())
        );
        assert_eq!(slot("a --tier pu|"), (Slot::Value("--tier".into()), "pu".into()));
        assert_eq!(slot("a --tier public |"), (Slot::Flag, String::new()));
        assert_eq!(slot("a --tier public x|"), (Slot::Nothing, "x".into()));
        // The whole word under the cursor is what a candidate replaces.
        let c = context("orders -> depxx -> b", 12);
        assert_eq!((c.prefix.as_str(), c.replace), ("de", (10, 15)));
        assert_eq!(flag_at("a --depth 3", 11), Some("--depth"));
        assert_eq!(flag_at("a --dep", 7), None, "a half-typed flag has no help yet");
        assert_eq!(flag_at("a --depth", 9), Some("--depth"));
        assert!(flag_help("--status").unwrap().contains("any"));
        assert!(FLAGS.iter().all(|f| flag_help(f).is_some()), "every flag has help");
    }

    /// The candidates as gathered without the prefilter: every name copied
    /// out and scored with its positions, all of them sorted.
    fn before(c: &Catalog, ctx: &Context, now: Timestamp, limit: usize) -> Vec<Candidate> {
        let counted = |used: Vec<String>, known: &[&str], what: &str| {
            let mut m: std::collections::BTreeMap<String, usize> = known.iter().map(|k| ((*k).to_owned(), 0)).collect();
            for u in used {
                *m.entry(u).or_default() += 1;
            }
            m.into_iter()
                .map(|(k, n)| (k, format!("{n} {what}"), n))
                .collect::<Vec<_>>()
        };
        let pool: Vec<(String, String, usize)> = match &ctx.slot {
            Slot::Node => {
                let mut v: Vec<(String, String, usize)> = vec![("*".into(), "any node".into(), usize::MAX)];
                v.extend(c.node_slots().filter_map(|s| {
                    let n = c.node_at(s)?;
                    let degree = c.out_slots(s).len() + c.in_slots(s).len();
                    Some((n.name.to_string(), n.node_type.to_string(), degree))
                }));
                v
            }
            Slot::Relation => counted(
                c.edges().map(|e| e.relation.to_string()).collect(),
                Relation::KNOWN,
                "edges",
            ),
            Slot::Value(f) if f == "--type" => counted(
                c.nodes().map(|n| n.node_type.to_string()).collect(),
                NodeType::KNOWN,
                "nodes",
            ),
            _ => return candidates(c, ctx, now, limit),
        };
        let m = Matcher::new(&ctx.prefix);
        let mut scored: Vec<(i64, usize, Candidate)> = pool
            .into_iter()
            .filter_map(|(text, detail, weight)| {
                let hit = m.hit(&text)?;
                let matched = hit.indices;
                Some((hit.score, weight, Candidate { text, detail, matched }))
            })
            .collect();
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then(a.2.text.chars().count().cmp(&b.2.text.chars().count()))
                .then_with(|| a.2.text.cmp(&b.2.text))
        });
        scored.truncate(limit);
        scored.into_iter().map(|(_, _, c)| c).collect()
    }

    #[test]
    fn the_prefiltered_candidates_are_the_ones_a_full_scoring_gave() {
        use crate::model::{Status, Tier};
        use crate::testkit::{edge, node};
        let words = ["orders", "accounts", "auth", "billing", "cache", "zurich", "a", "acc"];
        let kinds = [
            ("service", "api"),
            ("module", "core"),
            ("database", "db"),
            ("team", "team"),
        ];
        let mut nodes: Vec<crate::model::NodeSummary> = Vec::new();
        for i in 0..1200usize {
            let (ty, suffix) = kinds[i * 7 % kinds.len()];
            let name = format!("{}-{suffix}-{i}", words[i * 5 % words.len()]);
            nodes.push(node(&name, ty, Tier::Public, Status::Active));
        }
        nodes.push(node("acc", "module", Tier::Public, Status::Active));
        let relations = ["depends-on", "owned-by", "uses", "calls"];
        let names: Vec<String> = nodes.iter().map(|n| n.name.to_string()).collect();
        let edges = (0..3000usize)
            .map(|i| {
                // Skewed ends, so degrees differ and tie-break on weight.
                let from = (i * i) % 97 + i % 13;
                let to = (i * 31 + 7) % names.len();
                edge(&nodes, &names[from], relations[i * 3 % relations.len()], &names[to])
            })
            .collect();
        let c = Catalog::build(Vec::new(), crate::codec::Snapshot::new(nodes.clone(), edges));
        let now = Timestamp::parse("2026-02-01").unwrap();
        let queries = [
            "",
            "a",
            "ac",
            "acc",
            "acco",
            "AC",
            "zü",
            "zurich-a",
            "o-1",
            "*",
            "qqq",
            "orders-api-12",
            "a -> dep",
            "a -> ",
            "a -> * -> ord",
            "a -> * -> * --type mo",
            "a -> * -> * --type ",
            "a --de",
        ];
        // The one ranking: the exact name first, whatever its edges.
        let first = |q: &str| candidates(&c, &context(q, q.len()), now, 3)[0].text.clone();
        assert_eq!(first("acc"), "acc");
        assert_eq!(first("ACC"), "acc", "case is ignored");
        for q in queries {
            let ctx = context(q, q.len());
            for limit in [0, 1, 12, 5000] {
                let (now_, then) = (candidates(&c, &ctx, now, limit), before(&c, &ctx, now, limit));
                assert_eq!(now_, then, "{q:?}, limit {limit}");
                // Case is ignored; `zü` is not `zu`.
                let none = ["qqq", "zü"].contains(&q);
                if limit > 0 {
                    assert_eq!(now_.is_empty(), none, "{q:?}");
                }
            }
        }
    }
}
