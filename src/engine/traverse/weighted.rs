//! The strongest path (Cortex weights): Dijkstra over edge costs, each hop
//! costing `2 - weight` (weights are from 0 to 1), so of two paths with as
//! many hops the one over stronger edges wins, and one strong hop more never
//! costs less than a weak hop saved (a hop costs from 1 to 2).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::filter::{Direction, Filter, steps};
use super::path::PathStep;
use crate::error::{Error, Result};
use crate::store::Catalog;

/// What a hop over an edge of `weight` costs.
pub fn hop_cost(weight: f64) -> f64 {
    2.0 - weight.clamp(0.0, 1.0)
}

#[derive(PartialEq)]
struct Open(f64, u32);

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // A min-heap on cost, ties by slot for a stable answer.
        other.0.total_cmp(&self.0).then_with(|| other.1.cmp(&self.1))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The cheapest path from `from` to `to` by [`hop_cost`], and its cost;
/// `None` when there is none.
pub fn strongest_path(
    c: &Catalog,
    from: &str,
    to: &str,
    undirected: bool,
    f: &Filter,
) -> Result<Option<(Vec<PathStep>, f64)>> {
    let a = c.slot_by_name(from).ok_or_else(|| Error::NotFound(from.to_owned()))?;
    let b = c.slot_by_name(to).ok_or_else(|| Error::NotFound(to.to_owned()))?;
    let dir = if undirected { Direction::Both } else { Direction::Out };
    let mut best: FxHashMap<u32, (f64, Option<(u32, u32)>)> = FxHashMap::default();
    best.insert(a, (0.0, None));
    let mut open = BinaryHeap::from([Open(0.0, a)]);
    let mut buf = Vec::new();
    while let Some(Open(cost, here)) = open.pop() {
        if here == b {
            break;
        }
        if best.get(&here).is_some_and(|(c, _)| *c < cost) {
            continue;
        }
        steps(c, here, dir, f, &mut buf);
        for &(e, n) in &buf {
            let w = c.edge_at(e).map_or(1.0, |e| e.weight);
            let next = cost + hop_cost(w);
            if best.get(&n).is_none_or(|(old, _)| next < *old) {
                best.insert(n, (next, Some((e, here))));
                open.push(Open(next, n));
            }
        }
    }
    let Some(&(total, _)) = best.get(&b) else {
        return Ok(None);
    };
    let mut chain = Vec::new();
    let mut cur = b;
    loop {
        let via = best.get(&cur).and_then(|(_, p)| *p);
        chain.push((cur, via.map(|(e, _)| e)));
        match via {
            Some((_, prev)) => cur = prev,
            None => break,
        }
    }
    chain.reverse();
    Ok(Some((super::path::steps_of(c, chain)?, total)))
}
