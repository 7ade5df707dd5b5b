//! The neighbourhood of a node as a graph: every node within `depth` hops
//! (either way) and every readable edge among them. The projection builds on it.

use rustc_hash::FxHashSet;

use super::filter::{Direction, Filter, steps};
use crate::error::{Error, Result};
use crate::model::{Edge, NodeSummary};
use crate::store::Catalog;

/// Nodes around a centre, with their distance, and the edges among them.
#[derive(Clone, Debug)]
pub struct Subgraph {
    pub center: NodeSummary,
    /// (node, distance from the centre), nearest first.
    pub nodes: Vec<(NodeSummary, u32)>,
    pub edges: Vec<Edge>,
}

/// The subgraph within `depth` hops of `name`.
pub fn subgraph(c: &Catalog, name: &str, depth: u32, f: &Filter) -> Result<Subgraph> {
    let start = c.slot_by_name(name).ok_or_else(|| Error::NotFound(name.to_owned()))?;
    let mut dist: Vec<(u32, u32)> = vec![(start, 0)];
    let mut seen: FxHashSet<u32> = FxHashSet::default();
    seen.insert(start);
    let mut frontier = vec![start];
    let mut buf = Vec::new();
    for d in 1..=depth {
        let mut next = Vec::new();
        for &here in &frontier {
            steps(c, here, Direction::Both, f, &mut buf);
            for &(_, n) in &buf {
                if seen.insert(n) {
                    next.push(n);
                    dist.push((n, d));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let mut edges = Vec::new();
    for &(n, _) in &dist {
        for &e in c.out_slots(n) {
            if seen.contains(&c.ends_at(e).1)
                && let Some(edge) = c.edge_at(e).filter(|x| f.walks_edge(x))
            {
                edges.push(edge.clone());
            }
        }
    }
    let center = c
        .node_at(start)
        .cloned()
        .ok_or_else(|| Error::NotFound(name.to_owned()))?;
    let nodes = dist
        .into_iter()
        .filter_map(|(n, d)| c.node_at(n).cloned().map(|s| (s, d)))
        .collect();
    Ok(Subgraph { center, nodes, edges })
}
