//! Neighbours of a node, grouped by ring (distance), each with the edge it
//! was first reached through.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::filter::{Direction, Filter, steps};
use crate::error::{Error, Result};
use crate::model::{Edge, Name, NodeSummary};
use crate::store::Catalog;

/// A node reached by a walk.
#[derive(Clone, Debug)]
pub struct Reached {
    pub node: Arc<NodeSummary>,
    /// The edge it was first reached through.
    pub via: Edge,
    /// The node on the other end of `via`.
    pub from: Name,
}

/// The nodes at one distance from the centre.
#[derive(Clone, Debug)]
pub struct Ring {
    pub distance: u32,
    pub nodes: Vec<Reached>,
}

/// Breadth-first rings around `name`, up to `depth` hops.
pub fn neighbors(c: &Catalog, name: &str, depth: u32, dir: Direction, f: &Filter) -> Result<Vec<Ring>> {
    let start = c.slot_by_name(name).ok_or_else(|| Error::NotFound(name.to_owned()))?;
    let mut seen: FxHashSet<u32> = FxHashSet::default();
    seen.insert(start);
    let mut frontier = vec![start];
    let mut rings = Vec::new();
    let mut buf = Vec::new();
    for distance in 1..=depth {
        let mut next = Vec::new();
        let mut ring = Ring {
            distance,
            nodes: Vec::new(),
        };
        for &here in &frontier {
            steps(c, here, dir, f, &mut buf);
            for &(e, n) in &buf {
                if !seen.insert(n) {
                    continue;
                }
                next.push(n);
                let (Some(node), Some(edge), Some(from)) = (c.shared_at(n), c.edge_at(e), c.node_at(here)) else {
                    continue;
                };
                if f.reports(&node) {
                    ring.nodes.push(Reached {
                        node,
                        via: edge.clone(),
                        from: from.name.clone(),
                    });
                }
            }
        }
        ring.nodes.sort_by(|a, b| a.node.name.cmp(&b.node.name));
        rings.push(ring);
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    Ok(rings)
}
