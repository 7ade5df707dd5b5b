//! Batches: many nodes and edges in one commit (imports, the demo, `gen`).
//! Edges may name nodes of the same batch or already in the store.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Store;
use super::objects::Durability;
use super::plan::{NodeWrite, Plan};
use crate::error::{Error, Result};
use crate::model::{EdgeId, NewEdge, NewNode, NodeId, Tier, Timestamp};

/// Nodes and edges to add together.
#[derive(Default, Debug)]
pub struct Batch {
    nodes: Vec<NewNode>,
    /// The queued edges in runs of at most [`EDGE_RUN`], each freed as soon
    /// as it is planned: a large batch's edges are not all held beside
    /// their plan.
    edges: Vec<Vec<NewEdge>>,
    edge_count: usize,
}

/// The queued edges of a run (a run grows as any `Vec` does, so it is
/// full, not over-allocated, when the next one starts).
const EDGE_RUN: usize = 1 << 16;

/// What a batch created.
#[derive(Debug, Default)]
pub struct BatchResult {
    pub nodes: Vec<NodeId>,
    pub edges: Vec<EdgeId>,
}

impl Batch {
    /// Queues a node.
    pub fn add_node(&mut self, n: NewNode) {
        self.nodes.push(n);
    }

    /// Queues an edge.
    pub fn link(&mut self, e: NewEdge) {
        match self.edges.last_mut() {
            Some(run) if run.len() < EDGE_RUN => run.push(e),
            _ => self.edges.push(vec![e]),
        }
        self.edge_count += 1;
    }

    /// The queued nodes.
    pub fn nodes(&self) -> &[NewNode] {
        &self.nodes
    }

    /// Queued node count.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Queued edge count.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }
}

impl Store {
    /// Adds a whole batch atomically. With [`Durability::Deferred`] blob files
    /// are not synced one by one (much faster for large imports).
    pub fn apply_batch(&mut self, batch: Batch, durability: Durability) -> Result<BatchResult> {
        self.require_writer("adding to the graph")?;
        let now = Timestamp::now();
        let mut plan = Plan::default();
        // Sized once: a large batch's maps are not grown (a table and its
        // successor held at once) while its plan grows beside them.
        plan.nodes.reserve_exact(batch.nodes.len());
        plan.edges.reserve_exact(batch.edge_count);
        let mut names: FxHashMap<String, (NodeId, Tier)> =
            FxHashMap::with_capacity_and_hasher(batch.nodes.len(), Default::default());
        let holds_nodes = self.holds_nodes()?;
        for new in batch.nodes {
            let name = new.name.to_string();
            if names.contains_key(&name) {
                return Err(Error::NameTaken(name));
            }
            if holds_nodes {
                self.check_name_free(&name)?;
            }
            self.keys.tier(new.tier)?;
            let node = Self::plan_node(new, now)?;
            names.insert(name, (node.id, node.tier));
            plan.nodes.push(NodeWrite { node, previous: None });
        }
        let resolve = |n: &str| {
            names
                .get(n)
                .copied()
                .or_else(|| self.catalog.by_name(n).map(|s| (s.id, s.tier)))
        };
        let mut triples = FxHashSet::with_capacity_and_hasher(batch.edge_count, Default::default());
        // Taken by value, so each run of queued edges is freed once planned.
        for new in batch.edges.into_iter().flatten() {
            let edge = self.plan_edge(&new, &resolve)?;
            if !triples.insert((edge.from, edge.relation.clone(), edge.to)) {
                return Err(Error::EdgeExists(format!(
                    "{} -> {} -> {}",
                    new.from, new.relation, new.to
                )));
            }
            plan.edges.push(edge);
        }
        // Only the plan goes on into the commit: a large batch's lookups
        // are not held beside its sealed rows and the catalog.
        drop((triples, names));
        // The timeline's entries, one per row in the order planned (nodes
        // first), are made as they are written.
        plan.batch_entries = true;
        let mut result = BatchResult::default();
        self.commit_listing(plan, durability, Some(&mut result))?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, Relation};

    #[test]
    fn queued_edges_run_on_in_order_across_runs() {
        let name = |i: usize| Name::new(&format!("n{i}")).unwrap();
        let mut batch = Batch::default();
        for i in 0..EDGE_RUN + 5 {
            batch.link(NewEdge::new(name(i), Relation::new("uses").unwrap(), name(i + 1)));
        }
        assert_eq!(batch.edge_count(), EDGE_RUN + 5);
        assert_eq!(batch.edges.iter().map(Vec::len).collect::<Vec<_>>(), [EDGE_RUN, 5]);
        assert_eq!(batch.edges[0].capacity(), EDGE_RUN, "a full run is not over-allocated");
        let order: Vec<usize> = batch
            .edges
            .into_iter()
            .flatten()
            .map(|e| e.from.as_str()[1..].parse().unwrap())
            .collect();
        assert_eq!(order, (0..EDGE_RUN + 5).collect::<Vec<_>>());
    }
}
