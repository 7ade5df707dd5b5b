//! Shortest paths (kgraph's `connect`): a bidirectional breadth-first search,
//! forward from the source and backward from the target, meeting in the
//! middle. Directed by default; undirected on request.

use rustc_hash::FxHashMap;

use super::filter::{Direction, Filter, steps};
use crate::error::{Error, Result};
use crate::model::{Edge, NodeSummary};
use crate::store::Catalog;

/// One node of a path and the edge that led to it (none for the first).
#[derive(Clone, Debug)]
pub struct PathStep {
    pub node: NodeSummary,
    pub via: Option<Edge>,
}

/// [`shortest_path`] for a reader of tier `cap`: through Active nodes and
/// edges at or below it only, and an end above it is refused exactly as an
/// absent one, so the answer never tells that a hidden name exists.
pub fn shortest_path_within(
    c: &Catalog,
    from: &str,
    to: &str,
    undirected: bool,
    cap: crate::model::Tier,
) -> Result<Option<Vec<PathStep>>> {
    let f = Filter {
        max_tier: Some(cap),
        ..Filter::default()
    };
    for end in [from, to] {
        if !c.by_name(end).is_some_and(|n| f.walks_node(n)) {
            return Err(Error::NotFound(end.to_owned()));
        }
    }
    shortest_path(c, from, to, undirected, &f)
}

/// The shortest path from `from` to `to`, or `None` when there is none.
pub fn shortest_path(c: &Catalog, from: &str, to: &str, undirected: bool, f: &Filter) -> Result<Option<Vec<PathStep>>> {
    let a = c.slot_by_name(from).ok_or_else(|| Error::NotFound(from.to_owned()))?;
    let b = c.slot_by_name(to).ok_or_else(|| Error::NotFound(to.to_owned()))?;
    let (fwd_dir, back_dir) = if undirected {
        (Direction::Both, Direction::Both)
    } else {
        (Direction::Out, Direction::In)
    };
    // parent[n] = (edge, previous node) on each side.
    let mut fwd: FxHashMap<u32, (u32, u32)> = FxHashMap::default();
    let mut back: FxHashMap<u32, (u32, u32)> = FxHashMap::default();
    fwd.insert(a, (u32::MAX, u32::MAX));
    back.insert(b, (u32::MAX, u32::MAX));
    let (mut fwd_frontier, mut back_frontier) = (vec![a], vec![b]);
    let mut buf = Vec::new();
    let mut meet = (a == b).then_some(a);
    while meet.is_none() && !fwd_frontier.is_empty() && !back_frontier.is_empty() {
        // Grow the smaller side.
        let forward = fwd_frontier.len() <= back_frontier.len();
        let (frontier, mine, theirs, dir) = if forward {
            (&mut fwd_frontier, &mut fwd, &back, fwd_dir)
        } else {
            (&mut back_frontier, &mut back, &fwd, back_dir)
        };
        let mut next = Vec::new();
        'grow: for &here in frontier.iter() {
            steps(c, here, dir, f, &mut buf);
            for &(e, n) in &buf {
                if mine.contains_key(&n) {
                    continue;
                }
                mine.insert(n, (e, here));
                if theirs.contains_key(&n) {
                    meet = Some(n);
                    break 'grow;
                }
                next.push(n);
            }
        }
        *frontier = next;
    }
    let Some(m) = meet else { return Ok(None) };
    // (node, edge that led into it), from `from` to the meeting point ...
    let mut chain: Vec<(u32, Option<u32>)> = Vec::new();
    let mut cur = m;
    loop {
        match fwd.get(&cur) {
            Some(&(e, prev)) if prev != u32::MAX => {
                chain.push((cur, Some(e)));
                cur = prev;
            }
            _ => {
                chain.push((cur, None));
                break;
            }
        }
    }
    chain.reverse();
    // ... then on to `to`.
    let mut cur = m;
    while let Some(&(e, next)) = back.get(&cur).filter(|p| p.1 != u32::MAX) {
        chain.push((next, Some(e)));
        cur = next;
    }
    steps_of(c, chain).map(Some)
}

/// A chain of (node slot, edge slot that reached it) as path steps.
pub(super) fn steps_of(c: &Catalog, chain: Vec<(u32, Option<u32>)>) -> Result<Vec<PathStep>> {
    chain
        .into_iter()
        .map(|(n, e)| {
            let node = c.node_at(n).cloned().ok_or_else(|| Error::NotFound(n.to_string()))?;
            Ok(PathStep {
                node,
                via: e.and_then(|e| c.edge_at(e).cloned()),
            })
        })
        .collect()
}
