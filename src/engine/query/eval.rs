//! Evaluation over the catalog: resolve the patterns (unknown names are
//! errors with suggestions), then walk the adjacency. Only what the session
//! can read is in the catalog, so a node above its level does not exist here:
//! no result, no count, no edge.

use super::ast::{At, Pattern, Query};
use super::error::{QueryError, QueryErrorKind as K};
use super::suggest::similar;
use crate::model::{Edge, NodeSummary, NodeType, Relation};
use crate::store::Catalog;

/// Paths enumerated before a query stops counting.
pub const MAX_ENUMERATED: usize = 1_000_000;
/// Edges a query may examine before it stops (its results are then marked
/// truncated): a bound on work however selective the filters are.
pub const MAX_STEPS: usize = 5_000_000;

/// One matching path: node slots and the edge slots between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    pub nodes: Vec<u32>,
    pub edges: Vec<u32>,
}

/// The matches of a query, sorted, cut to its limit.
#[derive(Clone, Debug)]
pub struct Matches {
    pub matches: Vec<Match>,
    /// How many paths matched in all (up to [`MAX_ENUMERATED`]).
    pub total: usize,
    pub truncated: bool,
}

/// Checks that exact names, relations and types exist for this session.
pub fn resolve(q: &Query, c: &Catalog) -> Result<(), QueryError> {
    resolve_in(q, c, &|_| true, &|_| true)
}

/// Like [`resolve`], seeing only the nodes and edges the predicates accept:
/// for projections, nothing above the agent's tier is named, suggested, or
/// distinguishable from absent.
pub fn resolve_in(
    q: &Query,
    c: &Catalog,
    node_ok: &dyn Fn(&NodeSummary) -> bool,
    edge_ok: &dyn Fn(&Edge) -> bool,
) -> Result<(), QueryError> {
    let visible = || c.nodes().filter(|n| node_ok(n));
    let check_node = |p: &At<Pattern>| -> Result<(), QueryError> {
        let Pattern::Exact(name) = &p.value else { return Ok(()) };
        let by_id = || name.parse().ok().and_then(|id| c.node(&crate::model::NodeId(id)));
        if c.by_name(name).or_else(by_id).is_some_and(node_ok) {
            return Ok(());
        }
        Err(QueryError::new(K::UnknownNode(name.clone()), p.span)
            .with_candidates(similar(name, visible().map(|n| n.name.as_str()))))
    };
    check_node(&q.start)?;
    for hop in &q.hops {
        check_node(&hop.node)?;
        if let Pattern::Exact(r) = &hop.relation.value {
            let used = || c.edges().filter(|e| edge_ok(e)).map(|e| e.relation.as_str());
            // A relation no edge uses matches nothing (an empty result), unless it
            // looks like a typo of one in use or known: then "did you mean".
            if !Relation::KNOWN.contains(&r.as_str()) && !used().any(|u| u == r) {
                let mut pool: Vec<&str> = used().chain(Relation::KNOWN.iter().copied()).collect();
                pool.sort_unstable();
                pool.dedup();
                let near = similar(r, pool.into_iter());
                if !near.is_empty() {
                    return Err(QueryError::new(K::UnknownRelation(r.clone()), hop.relation.span).with_candidates(near));
                }
            }
        }
    }
    if let Some(t) = &q.flags.node_type {
        let used = || visible().map(|n| n.node_type.as_str());
        if !NodeType::KNOWN.contains(&t.value.as_str()) && !used().any(|u| u == t.value) {
            let mut pool: Vec<&str> = used().chain(NodeType::KNOWN.iter().copied()).collect();
            pool.sort_unstable();
            pool.dedup();
            return Err(QueryError::new(K::UnknownType(t.value.clone()), t.span)
                .with_candidates(similar(&t.value, pool.into_iter())));
        }
    }
    Ok(())
}

struct Walk<'a> {
    q: &'a Query,
    c: &'a Catalog,
    found: Vec<Match>,
    total: usize,
    steps: usize,
}

impl Walk<'_> {
    fn node_ok(&self, n: &NodeSummary) -> bool {
        let f = &self.q.flags;
        f.status.admits(n.status)
            && f.tier.is_none_or(|t| n.tier <= t)
            && f.confidence.is_none_or(|c| n.confidence >= c)
    }

    fn edge_ok(&self, e: &Edge) -> bool {
        let f = &self.q.flags;
        f.tier.is_none_or(|t| e.tier <= t) && f.confidence.is_none_or(|c| e.confidence >= c)
    }

    fn matches_node(&self, p: &Pattern, n: &NodeSummary) -> bool {
        match p {
            Pattern::Exact(s) if s.len() == 36 && s.contains('-') && n.id.to_string() == *s => true,
            other => other.matches(n.name.as_str()),
        }
    }

    /// The end of a path passes `--type` and `--since`.
    fn end_ok(&self, m: &Match) -> bool {
        let f = &self.q.flags;
        let Some(end) = m.nodes.last().and_then(|&s| self.c.node_at(s)) else {
            return false;
        };
        let typed = f.node_type.as_ref().is_none_or(|t| end.node_type.as_str() == t.value);
        let recent = f.since.is_none_or(|since| {
            end.updated >= since
                || m.edges
                    .last()
                    .and_then(|&e| self.c.edge_at(e))
                    .is_some_and(|e| e.created >= since)
        });
        typed && recent
    }

    fn record(&mut self, m: &Match) {
        if self.end_ok(m) {
            self.total += 1;
            if self.found.len() < MAX_ENUMERATED {
                self.found.push(m.clone());
            }
        }
    }

    /// Edges from `slot` that the hop may follow, with the node they lead to.
    fn steps(&self, slot: u32, either_way: bool) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = self
            .c
            .out_slots(slot)
            .iter()
            .map(|&e| (e, self.c.ends_at(e).1))
            .collect();
        for &e in self.c.in_slots(slot) {
            let bidirectional = self.c.edge_at(e).is_some_and(|x| x.bidirectional);
            if either_way || bidirectional {
                out.push((e, self.c.ends_at(e).0));
            }
        }
        out
    }

    /// Extends `m` by hop `h` (or, for `--depth`, by the single hop again).
    fn extend(&mut self, m: &mut Match, h: usize, depth_left: u32) {
        if self.total >= MAX_ENUMERATED || self.steps >= MAX_STEPS {
            return;
        }
        let hop = &self.q.hops[h];
        let last_hop = h + 1 == self.q.hops.len();
        let Some(&here) = m.nodes.last() else { return };
        let steps = self.steps(here, hop.either_way);
        self.steps += steps.len();
        for (e, next) in steps {
            let (Some(edge), Some(node)) = (self.c.edge_at(e), self.c.node_at(next)) else {
                continue;
            };
            if m.nodes.contains(&next) || !hop.relation.value.matches(edge.relation.as_str()) || !self.edge_ok(edge) {
                continue;
            }
            if !self.node_ok(node) {
                continue;
            }
            m.nodes.push(next);
            m.edges.push(e);
            if last_hop && self.matches_node(&hop.node.value, node) {
                self.record(m);
            }
            if last_hop && depth_left > 1 {
                self.extend(m, h, depth_left - 1);
            } else if !last_hop && self.matches_node(&hop.node.value, node) {
                self.extend(m, h + 1, depth_left);
            }
            m.nodes.pop();
            m.edges.pop();
        }
    }
}

/// Finds every path matching `q` (after [`resolve`]).
pub fn evaluate(q: &Query, c: &Catalog) -> Matches {
    let mut w = Walk {
        q,
        c,
        found: Vec::new(),
        total: 0,
        steps: 0,
    };
    let starts: Vec<u32> = match &q.start.value {
        Pattern::Exact(name) => c
            .slot_by_name(name)
            .or_else(|| name.parse().ok().and_then(|id| c.slot_of(&crate::model::NodeId(id))))
            .into_iter()
            .collect(),
        other => c
            .node_slots()
            .filter(|&s| c.node_at(s).is_some_and(|n| other.matches(n.name.as_str())))
            .collect(),
    };
    for s in starts {
        if w.steps >= MAX_STEPS {
            break;
        }
        w.steps += 1;
        let Some(n) = c.node_at(s) else { continue };
        if !w.node_ok(n) {
            continue;
        }
        let mut m = Match {
            nodes: vec![s],
            edges: Vec::new(),
        };
        if q.hops.is_empty() {
            w.record(&m);
        } else {
            w.extend(&mut m, 0, q.flags.depth);
        }
    }
    let exhausted = w.steps >= MAX_STEPS || w.total >= MAX_ENUMERATED;
    let (total, mut found) = (w.total, w.found);
    let key = |m: &Match| -> Vec<(&str, &str)> {
        let name = |s: u32| c.node_at(s).map_or("", |n| n.name.as_str());
        let rel = |e: u32| c.edge_at(e).map_or("", |x| x.relation.as_str());
        let mut k = vec![(name(m.nodes[0]), "")];
        k.extend(m.edges.iter().zip(&m.nodes[1..]).map(|(&e, &n)| (rel(e), name(n))));
        k
    };
    let limit = q.flags.limit;
    if found.len() > limit {
        found.select_nth_unstable_by(limit, |a, b| key(a).cmp(&key(b)));
        found.truncate(limit);
    }
    found.sort_by(|a, b| key(a).cmp(&key(b)));
    Matches {
        truncated: exhausted || total > found.len(),
        total,
        matches: found,
    }
}
