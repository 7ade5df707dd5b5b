//! Batches: many nodes and edges in one commit (imports, the demo, `gen`).
//! Edges may name nodes of the same batch or already in the store.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Store;
use super::objects::Durability;
use super::plan::{Entry, NodeWrite, Plan};
use crate::error::{Error, Result};
use crate::model::{EdgeId, NewEdge, NewNode, NodeId, Tier, Timestamp};

/// Nodes and edges to add together.
#[derive(Default, Debug)]
pub struct Batch {
    nodes: Vec<NewNode>,
    edges: Vec<NewEdge>,
}

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
        self.edges.push(e);
    }

    /// Queued node count.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Queued edge count.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

impl Store {
    /// Adds a whole batch atomically. With [`Durability::Deferred`] blob files
    /// are not synced one by one (much faster for large imports).
    pub fn apply_batch(&mut self, batch: Batch, durability: Durability) -> Result<BatchResult> {
        self.require_writer("adding to the graph")?;
        let now = Timestamp::now();
        let mut plan = Plan::default();
        let mut names: FxHashMap<String, (NodeId, Tier)> = FxHashMap::default();
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
            plan.entries.push(Entry::node("add", node.id, None, Some(1)));
            plan.nodes.push(NodeWrite { node, previous: None });
        }
        let resolve = |n: &str| {
            names
                .get(n)
                .copied()
                .or_else(|| self.catalog.by_name(n).map(|s| (s.id, s.tier)))
        };
        let mut triples = FxHashSet::default();
        // Taken by value, so each queued edge is freed as it is planned.
        for new in batch.edges {
            let edge = self.plan_edge(&new, &resolve)?;
            if !triples.insert((edge.from, edge.relation.clone(), edge.to)) {
                return Err(Error::EdgeExists(format!(
                    "{} -> {} -> {}",
                    new.from, new.relation, new.to
                )));
            }
            plan.entries.push(Entry::edge("link", edge.id));
            plan.edges.push(edge);
        }
        let result = BatchResult {
            nodes: plan.nodes.iter().map(|w| w.node.id).collect(),
            edges: plan.edges.iter().map(|e| e.id).collect(),
        };
        // Only the plan goes on into the commit: a large batch's lookups
        // are not held beside its sealed rows and the catalog.
        drop((triples, names));
        self.commit(plan, durability)?;
        Ok(result)
    }
}
