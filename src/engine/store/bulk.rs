//! Batches: many nodes and edges in one commit (imports, the demo, `gen`).
//! Edges may name nodes of the same batch or already in the store.

use std::hash::BuildHasher;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Store;
use super::objects::Durability;
use super::plan::{NodeWrite, Plan};
use super::write::EdgeFields;
use crate::error::{Error, Result};
use crate::model::{Edge, EdgeId, Name, NewEdge, NewNode, NodeId, Provenance, Relation, Tier, Timestamp};

/// Nodes and edges to add together.
#[derive(Default, Debug)]
pub struct Batch {
    nodes: Vec<NewNode>,
    /// The queued edges in runs of at most [`EDGE_RUN`], each freed as soon
    /// as it is planned: a large batch's edges are not all held beside
    /// their plan.
    edges: Vec<Vec<Queued>>,
    edge_count: usize,
}

/// A queued edge: a [`NewEdge`] with its provenance shared (most edges have
/// the same one), 88 bytes rather than 136.
#[derive(Debug)]
struct Queued {
    from: Name,
    relation: Relation,
    to: Name,
    tier: Tier,
    confidence: f64,
    weight: f64,
    bidirectional: bool,
    provenance: Arc<Provenance>,
    created: Option<Timestamp>,
}

impl Queued {
    fn of(e: NewEdge) -> Self {
        Self {
            provenance: e.provenance.shared(),
            from: e.from,
            relation: e.relation,
            to: e.to,
            tier: e.tier,
            confidence: e.confidence,
            weight: e.weight,
            bidirectional: e.bidirectional,
            created: e.created,
        }
    }

    fn fields(&self) -> EdgeFields<'_> {
        EdgeFields {
            from: &self.from,
            relation: &self.relation,
            to: &self.to,
            tier: self.tier,
            confidence: self.confidence,
            weight: self.weight,
            bidirectional: self.bidirectional,
            provenance: self.provenance.clone(),
            created: self.created,
        }
    }
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
            Some(run) if run.len() < EDGE_RUN => run.push(Queued::of(e)),
            _ => self.edges.push(vec![Queued::of(e)]),
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
        let mut names: FxHashMap<Name, (NodeId, Tier)> =
            FxHashMap::with_capacity_and_hasher(batch.nodes.len(), Default::default());
        let holds_nodes = self.holds_nodes()?;
        for new in batch.nodes {
            let name = new.name.clone();
            if names.contains_key(&name) {
                return Err(Error::NameTaken(name.to_string()));
            }
            if holds_nodes {
                self.check_name_free(name.as_str())?;
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
        // Each edge's triple (ends and relation) hashed with a key of this
        // process, beside its place: sorted after, equal hashes are
        // compared in full. A set of the triples took 70 bytes an edge.
        let keyed = std::hash::RandomState::new();
        let mut triples: Vec<(u64, u32)> = Vec::with_capacity(batch.edge_count);
        // Taken by value, so each run of queued edges is freed once planned.
        // The first edge that cannot be planned stops the planning; a
        // repeat before it is the error then, as one found in order would be.
        let mut failed = None;
        for new in batch.edges.into_iter().flatten() {
            let edge = match self.plan_edge_of(new.fields(), &resolve) {
                Ok(edge) => edge,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            triples.push((
                keyed.hash_one((edge.from, &edge.relation, edge.to)),
                plan.edges.len() as u32,
            ));
            plan.edges.push(edge);
        }
        // Only the plan goes on into the commit: a large batch's lookups
        // are not held beside its sealed rows and the catalog.
        drop(names);
        if let Some(i) = first_repeat(triples, &plan.edges) {
            let e = &plan.edges[i];
            let name = |id: &NodeId| {
                plan.nodes
                    .iter()
                    .find(|w| w.node.id == *id)
                    .map(|w| w.node.name.to_string())
                    .or_else(|| self.catalog.node(id).map(|n| n.name.to_string()))
                    .unwrap_or_else(|| id.to_string())
            };
            return Err(Error::EdgeExists(format!(
                "{} -> {} -> {}",
                name(&e.from),
                e.relation,
                name(&e.to)
            )));
        }
        if let Some(e) = failed {
            return Err(e);
        }
        // The timeline's entries, one per row in the order planned (nodes
        // first), are made as they are written.
        plan.batch_entries = true;
        let mut result = BatchResult::default();
        self.commit_listing(plan, durability, Some(&mut result))?;
        Ok(result)
    }
}

/// The place of the first edge (in plan order) whose ends and relation an
/// earlier edge has, from each edge's keyed hash and place.
fn first_repeat(mut triples: Vec<(u64, u32)>, edges: &[Edge]) -> Option<usize> {
    triples.sort_unstable();
    let key = |i: u32| {
        let e = &edges[i as usize];
        (e.from, &e.relation, e.to)
    };
    let mut first: Option<usize> = None;
    for run in triples.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        // In place order within a run: the later of two equal ones repeats.
        for (n, &(_, later)) in run.iter().enumerate().skip(1) {
            if run[..n].iter().any(|&(_, earlier)| key(earlier) == key(later)) {
                first = Some(first.map_or(later as usize, |f| f.min(later as usize)));
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, Relation};

    #[test]
    fn an_edge_queued_twice_is_refused_by_name_and_nothing_is_written() {
        use crate::keys::Level;
        use crate::store::tests::{edge, new_store, node, open_at};
        let (_dir, root) = new_store();
        let mut s = open_at(&root, Level::Master);
        s.add_node(node("held", Tier::Public, "already in the store")).unwrap();
        let mut batch = Batch::default();
        for i in 0..300 {
            batch.add_node(node(&format!("n{i}"), Tier::Public, "queued"));
            batch.link(edge(&format!("n{i}"), "calls", "held"));
        }
        batch.link(edge("n7", "uses", "n8"));
        batch.link(edge("n7", "calls", "held"));
        // An edge naming no node after the repeat: the repeat, first in
        // order, is the error.
        batch.link(edge("n7", "calls", "nowhere"));
        let err = s.apply_batch(batch, Durability::Deferred).unwrap_err();
        assert!(
            matches!(&err, Error::EdgeExists(what) if what == "n7 -> calls -> held"),
            "{err}"
        );
        assert!(s.catalog().by_name("n7").is_none(), "nothing was written");
        assert_eq!(s.catalog().edge_count(), 0);
        // The other way round: the unknown name comes first, and is the error.
        let mut batch = Batch::default();
        batch.add_node(node("solo", Tier::Public, "queued"));
        batch.link(edge("solo", "calls", "nowhere"));
        batch.link(edge("solo", "calls", "held"));
        batch.link(edge("solo", "calls", "held"));
        let err = s.apply_batch(batch, Durability::Deferred).unwrap_err();
        assert!(matches!(&err, Error::NotFound(what) if what == "nowhere"), "{err}");
    }

    #[test]
    fn equal_hashes_are_compared_in_full() {
        let sample = crate::testkit::sample();
        let edges: Vec<Edge> = sample.edges().take(3).cloned().collect();
        let mut repeated = edges.clone();
        repeated.push(Edge {
            id: EdgeId::generate(),
            ..edges[1].clone()
        });
        // Every hash the same: only the equal triple repeats.
        let same = |n: usize| (0..n as u32).map(|i| (7, i)).collect::<Vec<_>>();
        assert_eq!(first_repeat(same(3), &edges), None);
        assert_eq!(first_repeat(same(4), &repeated), Some(3));
        // Distinct hashes are never compared.
        assert_eq!(
            first_repeat((0..4u32).map(|i| (u64::from(i), i)).collect(), &repeated),
            None
        );
    }

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
