//! The in-memory catalog: every node summary and edge this session can read,
//! decrypted once at open. Reads and traversals run here; content above the
//! session's level is simply absent (no name, no ghost, no edge).

use std::collections::HashMap;

use crate::model::{Edge, EdgeId, Name, NodeId, NodeSummary, Tier};

/// Readable nodes and edges, indexed for lookups.
#[derive(Default, Debug)]
pub struct Catalog {
    nodes: HashMap<NodeId, NodeSummary>,
    by_name: HashMap<Name, NodeId>,
    edges: HashMap<EdgeId, Edge>,
    out: HashMap<NodeId, Vec<EdgeId>>,
    inc: HashMap<NodeId, Vec<EdgeId>>,
}

impl Catalog {
    /// Adds or replaces a node summary.
    pub fn put_node(&mut self, s: NodeSummary) {
        if let Some(old) = self.nodes.get(&s.id)
            && old.name != s.name
        {
            self.by_name.remove(&old.name);
        }
        self.by_name.insert(s.name.clone(), s.id);
        self.nodes.insert(s.id, s);
    }

    /// Adds or replaces an edge.
    pub fn put_edge(&mut self, e: Edge) {
        if !self.edges.contains_key(&e.id) {
            self.out.entry(e.from).or_default().push(e.id);
            self.inc.entry(e.to).or_default().push(e.id);
        }
        self.edges.insert(e.id, e);
    }

    /// Forgets an edge (it moved to a tier this session cannot read).
    pub fn drop_edge(&mut self, id: &EdgeId) {
        if let Some(e) = self.edges.remove(id) {
            for (map, end) in [(&mut self.out, e.from), (&mut self.inc, e.to)] {
                if let Some(list) = map.get_mut(&end) {
                    list.retain(|x| x != id);
                }
            }
        }
    }

    /// Forgets a node (it moved to a tier this session cannot read).
    pub fn drop_node(&mut self, id: &NodeId) {
        if let Some(s) = self.nodes.remove(id) {
            self.by_name.remove(&s.name);
        }
    }

    /// The node called `name`, if readable.
    pub fn by_name(&self, name: &str) -> Option<&NodeSummary> {
        let name = Name::new(name).ok()?;
        self.by_name.get(&name).and_then(|id| self.nodes.get(id))
    }

    /// The node `id`, if readable.
    pub fn node(&self, id: &NodeId) -> Option<&NodeSummary> {
        self.nodes.get(id)
    }

    /// All readable nodes, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = &NodeSummary> {
        self.nodes.values()
    }

    /// All readable edges, in no particular order.
    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.values()
    }

    /// The edge `id`, if readable.
    pub fn edge(&self, id: &EdgeId) -> Option<&Edge> {
        self.edges.get(id)
    }

    /// Edges leaving `id`.
    pub fn outgoing(&self, id: &NodeId) -> impl Iterator<Item = &Edge> {
        self.out
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|e| self.edges.get(e))
    }

    /// Edges arriving at `id`.
    pub fn incoming(&self, id: &NodeId) -> impl Iterator<Item = &Edge> {
        self.inc
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|e| self.edges.get(e))
    }

    /// Number of readable nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of readable edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The tier of the node `id`, if readable.
    pub fn tier_of(&self, id: &NodeId) -> Option<Tier> {
        self.nodes.get(id).map(|n| n.tier)
    }
}
