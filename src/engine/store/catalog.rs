//! The in-memory catalog: every node summary and edge this session can read,
//! decrypted once at open. Reads and traversals run here; content above the
//! session's level is simply absent (no name, no ghost, no edge).
//!
//! Nodes and edges live in slots (dense indices) so adjacency lists are plain
//! `u32` vectors; ids map to slots through fast hash maps. Freed slots stay
//! empty until the next open (removals are rare: only tier changes).

use std::sync::Arc;
use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use crate::codec::Snapshot;

use crate::model::{Edge, EdgeId, Name, NodeId, NodeSummary, Tier};

/// A node's edge slots one way: most nodes have a few, kept inline (no
/// allocation of their own).
type Slots = smallvec::SmallVec<[u32; 4]>;

// `Catalog::build` turns a snapshot's edge vector into its own in place:
// that needs an optional edge to be an edge's size (its `Arc` gives the niche).
const _: () = assert!(std::mem::size_of::<Option<Edge>>() == std::mem::size_of::<Edge>());
// A catalog holds an edge per row (405,678 at 100k nodes): each of its
// bytes is 0.4 MB there. Relations are thin pointers for this.
const _: () = assert!(std::mem::size_of::<Edge>() <= 96);
// A summary is shared (`Arc`: two counts before it): at 136 bytes the pair
// takes a 160-byte allocation, where 144 took 176.
const _: () = assert!(std::mem::size_of::<NodeSummary>() <= 136);

/// Edges a commit must add at least for [`Catalog::put_edges`] to take
/// them as a part of their own (fewer go into the last part one by one).
const IN_PLACE_EDGES: usize = 1024;

/// Edges a build must hold at least for its work to go on two threads
/// (fewer cost less than a thread).
pub(super) const THREADED_EDGES: usize = 1 << 14;

/// Each node slot's edge slots one way (`end` picks the node slot from an
/// edge's ends), sized exactly.
fn adjacency(nodes: usize, ends: &[(u32, u32)], end: impl Fn(&(u32, u32)) -> u32) -> Vec<Slots> {
    let mut degree = vec![0u32; nodes];
    for e in ends {
        degree[end(e) as usize] += 1;
    }
    let mut slots: Vec<Slots> = degree.into_iter().map(|d| Slots::with_capacity(d as usize)).collect();
    for (slot, e) in ends.iter().enumerate() {
        slots[end(e) as usize].push(slot as u32);
    }
    slots
}

/// Readable nodes and edges, indexed for lookups.
#[derive(Default, Debug, Clone)]
pub struct Catalog {
    /// Nodes in slots, by id and by name.
    nodes: super::node_index::NodeIndex,
    edges: super::edge_table::EdgeTable,
    /// The node slots at each edge's ends, beside `edges`.
    ends: Vec<(u32, u32)>,
    /// Built on first use: opening a store never needs it.
    edge_slot: OnceLock<super::edge_ids::EdgeIds>,
    out: Vec<Slots>,
    inc: Vec<Slots>,
    live_edges: usize,
}

impl Catalog {
    /// Builds a catalog from snapshot parts and the rows written after them;
    /// a later row replaces the snapshot's record with the same id. Edges
    /// whose ends are missing are left out.
    pub fn build(parts: Vec<Snapshot>, later: Snapshot) -> Self {
        let later_nodes: FxHashSet<NodeId> = later.nodes.iter().map(|n| n.id).collect();
        let later_edges: FxHashSet<EdgeId> = later.edges.iter().map(|e| e.id).collect();
        let n_nodes = parts.iter().map(|p| p.nodes.len()).sum::<usize>() + later.nodes.len();
        let n_edges = parts.iter().map(|p| p.edges.len()).sum::<usize>() + later.edges.len();
        let mut c = Self {
            nodes: super::node_index::NodeIndex::with_capacity(n_nodes),
            ..Self::default()
        };
        let mut part_edges = Vec::with_capacity(parts.len() + 1);
        for p in parts {
            for n in p.nodes {
                if !later_nodes.contains(&n.id) {
                    c.slot_node(n);
                }
            }
            part_edges.push(p.edges);
        }
        for n in later.nodes {
            c.slot_node(n);
        }
        part_edges.push(later.edges);
        let last = part_edges.len() - 1;
        let index = &c.nodes;
        // Each part's vector becomes one of the catalog's, in place (an
        // `Option<Edge>` is an `Edge`'s size): no edge is ever held twice.
        let keep_part = |i: usize, part: Vec<Edge>| -> (Vec<Option<Edge>>, Vec<(u32, u32)>) {
            let mut ends = Vec::with_capacity(part.len());
            let kept = part
                .into_iter()
                .filter_map(|e| {
                    if i != last && later_edges.contains(&e.id) {
                        return None;
                    }
                    let (Some(from), Some(to)) = (index.slot(&e.from), index.slot(&e.to)) else {
                        return None;
                    };
                    ends.push((from, to));
                    Some(Some(e))
                })
                .collect();
            (kept, ends)
        };
        // The parts on two threads (the open waits for this): every other
        // part to a helper, in order, and joined in order.
        let spread = n_edges >= THREADED_EDGES;
        let (mine, theirs): (Vec<_>, Vec<_>) = part_edges.into_iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let keep_all =
            |parts: Vec<(usize, Vec<Edge>)>| parts.into_iter().map(|(i, p)| keep_part(i, p)).collect::<Vec<_>>();
        let (theirs, mine) = crate::parallel::both(spread, || keep_all(theirs), || keep_all(mine));
        let (mut mine, mut theirs) = (mine.into_iter(), theirs.into_iter());
        let mut ends: Vec<(u32, u32)> = Vec::with_capacity(n_edges);
        for i in 0..=last {
            let next = if i % 2 == 0 { mine.next() } else { theirs.next() };
            if let Some((kept, part_ends)) = next {
                c.edges.add_part(kept);
                ends.extend(part_ends);
            }
        }
        // Adjacency sized exactly: count degrees, then fill; the two
        // directions on two threads.
        let nodes = c.nodes.slots().len();
        (c.out, c.inc) = crate::parallel::both(
            spread,
            || adjacency(nodes, &ends, |&(f, _)| f),
            || adjacency(nodes, &ends, |&(_, t)| t),
        );
        c.live_edges = ends.len();
        c.ends = ends;
        c
    }

    fn edge_slots(&self) -> &super::edge_ids::EdgeIds {
        self.edge_slot.get_or_init(|| super::edge_ids::EdgeIds::of(&self.edges))
    }

    /// The slot of edge `id`.
    fn edge_slot_of(&self, id: &EdgeId) -> Option<u32> {
        self.edge_slots().get(&self.edges, id)
    }

    /// Files the edge in `slot` under its id (once it is in the table).
    fn file_edge(&mut self, slot: u32) {
        self.edge_slots();
        if let Some(ids) = self.edge_slot.get_mut() {
            ids.insert(&self.edges, slot);
        }
    }

    /// Adds or replaces a node summary.
    pub fn put_node(&mut self, s: impl Into<Arc<NodeSummary>>) {
        if self.slot_node(s.into()) {
            self.out.push(Slots::new());
            self.inc.push(Slots::new());
        }
    }

    /// Puts a node in its slot, or in a new one (true) whose adjacency the
    /// caller adds: `build` sizes every list once, after the edges.
    fn slot_node(&mut self, s: Arc<NodeSummary>) -> bool {
        self.nodes.put(s).1
    }

    /// Adds or replaces an edge. Both ends must already be in the catalog
    /// (an edge is never less secret than its ends); otherwise it is ignored.
    pub fn put_edge(&mut self, e: Edge) {
        if let Some(slot) = self.edge_slot_of(&e.id) {
            if let Some(s) = self.edges.slot_mut(slot as usize) {
                *s = Some(e);
            }
            return;
        }
        let (Some(from), Some(to)) = (self.nodes.slot(&e.from), self.nodes.slot(&e.to)) else {
            return;
        };
        let slot = self.edges.len() as u32;
        self.edges.push(e);
        self.ends.push((from, to));
        self.file_edge(slot);
        self.out[from as usize].push(slot);
        self.inc[to as usize].push(slot);
        self.live_edges += 1;
    }

    /// Adds or replaces `edges` in order, those `readable` says and drops
    /// the others, as [`put_edge`](Self::put_edge) and
    /// [`drop_edge`](Self::drop_edge) would one by one. A large run of new
    /// edges (none held yet, each once, all readable, both ends held)
    /// becomes a part of the table in place: a bulk commit's edges are not
    /// held twice while the catalog takes them.
    pub fn put_edges(&mut self, edges: Vec<Edge>, readable: impl Fn(&Edge) -> bool) {
        let Some(ends) = (edges.len() >= IN_PLACE_EDGES)
            .then(|| self.fresh_ends(&edges, &readable))
            .flatten()
        else {
            for e in edges {
                if readable(&e) {
                    self.put_edge(e);
                } else {
                    self.drop_edge(&e.id);
                }
            }
            return;
        };
        let start = self.edges.len();
        for (i, &(from, to)) in ends.iter().enumerate() {
            let slot = (start + i) as u32;
            self.out[from as usize].push(slot);
            self.inc[to as usize].push(slot);
        }
        self.live_edges += ends.len();
        self.ends.extend(ends);
        // The ids' map takes a run smaller than what it holds; a larger one
        // (a bulk load into a store of fewer edges) drops it, to be built
        // again, whole, on first use: five million ids are 42 MB that a
        // one-command process never reads.
        let held = self.edge_slot.get().map_or(0, super::edge_ids::EdgeIds::len);
        let (filed, n) = (edges.len() < held, edges.len());
        // In place: an `Option<Edge>` is an `Edge`'s size.
        self.edges.add_part(edges.into_iter().map(Some).collect());
        if filed {
            for slot in start..start + n {
                self.file_edge(slot as u32);
            }
        } else {
            self.edge_slot = OnceLock::new();
        }
    }

    /// The node slots at the ends of each of `edges` when the run can be
    /// taken whole (see [`put_edges`](Self::put_edges)): none of them held
    /// yet, each once, every one readable with both ends held; otherwise
    /// `None`.
    fn fresh_ends(&self, edges: &[Edge], readable: &impl Fn(&Edge) -> bool) -> Option<Vec<(u32, u32)>> {
        let nodes = &self.nodes;
        let ends: Vec<(u32, u32)> = edges
            .iter()
            .map(|e| Some((nodes.slot(&e.from)?, nodes.slot(&e.to)?)).filter(|_| readable(e)))
            .collect::<Option<_>>()?;
        // Each once: their ids sorted (made in time order, they mostly are).
        let mut ids: Vec<EdgeId> = edges.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        // A table without an edge holds none of them (and needs no map). A
        // run at least as large as the table, with no map built yet, is
        // looked for in the table itself: `put_edges` would drop a map built
        // for it unread.
        let held = if self.edges.len() == 0 {
            false
        } else if self.edge_slot.get().is_none() && edges.len() >= self.edges.len() {
            self.edges.slots().flatten().any(|e| ids.binary_search(&e.id).is_ok())
        } else {
            edges.iter().any(|e| self.edge_slot_of(&e.id).is_some())
        };
        (!held).then_some(ends)
    }

    /// The edge groups (see `edge_groups`) the edges fall in: one per
    /// source node and tier.
    pub fn edge_groups(&self) -> u64 {
        let groups: rustc_hash::FxHashSet<(NodeId, Tier)> = self.edges().map(|e| (e.from, e.tier)).collect();
        groups.len() as u64
    }

    /// Takes a group's edges (every edge leaving `source` in `tier`, see
    /// `edge_groups`): those of that source and tier it no longer holds go.
    pub fn replace_group(&mut self, source: &NodeId, tier: Tier, edges: Vec<Edge>) {
        let held: rustc_hash::FxHashSet<EdgeId> = edges.iter().map(|e| e.id).collect();
        let gone: Vec<EdgeId> = self
            .outgoing(source)
            .filter(|e| e.tier == tier && !held.contains(&e.id))
            .map(|e| e.id)
            .collect();
        for id in gone {
            self.drop_edge(&id);
        }
        for e in edges {
            self.put_edge(e);
        }
    }

    /// Forgets an edge (it moved to a tier this session cannot read).
    pub fn drop_edge(&mut self, id: &EdgeId) {
        self.edge_slots();
        let Some(slot) = self.edge_slot.get_mut().and_then(|ids| ids.remove(&self.edges, id)) else {
            return;
        };
        if let Some(e) = self.edges.slot_mut(slot as usize).and_then(Option::take) {
            for (lists, end) in [(&mut self.out, e.from), (&mut self.inc, e.to)] {
                if let Some(n) = self.nodes.slot(&end) {
                    lists[n as usize].retain(|x| *x != slot);
                }
            }
            self.live_edges -= 1;
        }
    }

    /// Forgets a node and its edges (it moved to a tier this session cannot read).
    pub fn drop_node(&mut self, id: &NodeId) {
        if self.nodes.slot(id).is_none() {
            return;
        }
        let touching: Vec<EdgeId> = self.outgoing(id).chain(self.incoming(id)).map(|e| e.id).collect();
        for e in touching {
            self.drop_edge(&e);
        }
        self.nodes.remove(id);
    }

    /// The node called `name`, if readable.
    pub fn by_name(&self, name: &str) -> Option<&NodeSummary> {
        let name = Name::new(name).ok()?;
        self.nodes.slot_named(name.as_str()).and_then(|s| self.node_at(s))
    }

    /// The node `id`, if readable.
    pub fn node(&self, id: &NodeId) -> Option<&NodeSummary> {
        self.nodes.slot(id).and_then(|s| self.node_at(s))
    }

    /// All readable nodes, in slot order.
    pub fn nodes(&self) -> impl Iterator<Item = &NodeSummary> {
        self.nodes.slots().iter().flatten().map(|n| &**n)
    }

    /// All readable edges, in slot order.
    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.slots().flatten()
    }

    /// The edge `id`, if readable.
    pub fn edge(&self, id: &EdgeId) -> Option<&Edge> {
        self.edge_slot_of(id).and_then(|s| self.edges.get(s as usize))
    }

    fn adjacent<'a>(&'a self, lists: &'a [Slots], id: &NodeId) -> impl Iterator<Item = &'a Edge> + 'a {
        self.nodes
            .slot(id)
            .into_iter()
            .flat_map(move |n| lists[n as usize].iter())
            .filter_map(|&e| self.edges.get(e as usize))
    }

    /// Edges leaving `id`.
    pub fn outgoing(&self, id: &NodeId) -> impl Iterator<Item = &Edge> {
        self.adjacent(&self.out, id)
    }

    /// Edges arriving at `id`.
    pub fn incoming(&self, id: &NodeId) -> impl Iterator<Item = &Edge> {
        self.adjacent(&self.inc, id)
    }

    /// Number of readable nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.live()
    }

    /// Number of readable edges.
    pub fn edge_count(&self) -> usize {
        self.live_edges
    }

    /// The slot of node `id`.
    pub fn slot_of(&self, id: &NodeId) -> Option<u32> {
        self.nodes.slot(id)
    }

    /// The slot of the node called `name`.
    pub fn slot_by_name(&self, name: &str) -> Option<u32> {
        let name = Name::new(name).ok()?;
        self.nodes.slot_named(name.as_str())
    }

    /// The node in `slot`, if it is live.
    pub fn node_at(&self, slot: u32) -> Option<&NodeSummary> {
        self.nodes.at(slot).map(|n| &**n)
    }

    /// The node in `slot`, shared (a cheap copy for results).
    pub fn shared_at(&self, slot: u32) -> Option<Arc<NodeSummary>> {
        self.nodes.at(slot).cloned()
    }

    /// The edge in `slot`, if it is live.
    pub fn edge_at(&self, slot: u32) -> Option<&Edge> {
        self.edges.get(slot as usize)
    }

    /// The node slots at the ends of edge `slot` (from, to).
    pub fn ends_at(&self, slot: u32) -> (u32, u32) {
        self.ends[slot as usize]
    }

    /// Edge slots leaving node `slot` (some may be dead; check [`Catalog::edge_at`]).
    pub fn out_slots(&self, slot: u32) -> &[u32] {
        self.out.get(slot as usize).map_or(&[], |s| s.as_slice())
    }

    /// Edge slots arriving at node `slot`.
    pub fn in_slots(&self, slot: u32) -> &[u32] {
        self.inc.get(slot as usize).map_or(&[], |s| s.as_slice())
    }

    /// Slots of all live nodes.
    pub fn node_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes
            .slots()
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_some())
            .map(|(i, _)| i as u32)
    }

    /// The tier of the node `id`, if readable.
    pub fn tier_of(&self, id: &NodeId) -> Option<Tier> {
        self.node(id).map(|n| n.tier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeType, Provenance, Relation, Status, Timestamp};

    fn summary(name: &str, tier: Tier) -> NodeSummary {
        NodeSummary {
            id: NodeId::generate(),
            name: Name::new(name).unwrap(),
            node_type: NodeType::new("service").unwrap(),
            description: String::new(),
            properties: Default::default(),
            tier,
            status: Status::Active,
            confidence: 1.0,
            created: Timestamp(0),
            updated: Timestamp(0),
            version: 1,
        }
    }

    fn edge(from: &NodeSummary, to: &NodeSummary) -> Edge {
        Edge {
            id: EdgeId::generate(),
            from: from.id,
            relation: Relation::new("uses").unwrap(),
            to: to.id,
            confidence: 1.0,
            weight: 1.0,
            bidirectional: false,
            declared_tier: Tier::Public,
            tier: Tier::Public,
            provenance: std::sync::Arc::new(Provenance::Human),
            created: Timestamp(0),
        }
    }

    #[test]
    fn adjacency_follows_puts_and_drops() {
        let mut c = Catalog::default();
        let (a, b) = (summary("a", Tier::Public), summary("b", Tier::Public));
        c.put_node(a.clone());
        c.put_node(b.clone());
        let e = edge(&a, &b);
        c.put_edge(e.clone());
        c.put_edge(e.clone());
        assert_eq!(
            (c.outgoing(&a.id).count(), c.incoming(&b.id).count(), c.edge_count()),
            (1, 1, 1)
        );
        let ghost = summary("ghost", Tier::HumanOnly);
        c.put_edge(edge(&a, &ghost));
        assert_eq!(c.edge_count(), 1, "an edge to a node not in the catalog is ignored");
        c.drop_node(&b.id);
        assert_eq!((c.node_count(), c.edge_count(), c.outgoing(&a.id).count()), (1, 0, 0));
        assert!(c.by_name("b").is_none() && c.by_name("a").is_some());
    }

    /// What a catalog serves of its edges: every edge in slot order, each
    /// node's both ways, each edge by id, the count.
    fn served(c: &Catalog, nodes: &[NodeSummary], ids: &[EdgeId]) -> Vec<String> {
        let mut out = vec![format!("{} edges", c.edge_count())];
        out.extend(c.edges().map(|e| format!("{} {}", e.id, e.weight)));
        for n in nodes {
            let ways = c.outgoing(&n.id).chain(c.incoming(&n.id));
            out.push(ways.map(|e| e.id.to_string()).collect::<Vec<_>>().join(","));
        }
        out.extend(ids.iter().map(|id| format!("{:?}", c.edge(id).map(|e| e.weight))));
        out
    }

    #[test]
    fn a_build_from_parts_serves_what_putting_them_in_turn_does() {
        let nodes: Vec<NodeSummary> = (0..30).map(|i| summary(&format!("n{i}"), Tier::Public)).collect();
        let ghost = summary("ghost", Tier::Public);
        let part_edges = |p: usize| -> Vec<Edge> {
            (0..20)
                .map(|i| edge(&nodes[(i + p) % 30], &nodes[(i * 7 + p) % 30]))
                .collect()
        };
        let parts: Vec<(Vec<NodeSummary>, Vec<Edge>)> = (0..5)
            .map(|p| {
                let mut edges = part_edges(p);
                edges.insert(3, edge(&nodes[p], &ghost));
                (nodes[p * 6..p * 6 + 6].to_vec(), edges)
            })
            .collect();
        // Later rows: a node of part 1 again (renamed), an edge of part 2
        // again (reweighted), and a new one.
        let renamed = NodeSummary {
            name: Name::new("n7-renamed").unwrap(),
            ..nodes[7].clone()
        };
        let reweighted = Edge {
            weight: 0.25,
            ..parts[2].1[5].clone()
        };
        let later = (vec![renamed.clone()], vec![reweighted, edge(&nodes[0], &nodes[29])]);
        let snapshot = |(n, e): &(Vec<NodeSummary>, Vec<Edge>)| Snapshot::new(n.clone(), e.clone());
        let built = Catalog::build(parts.iter().map(snapshot).collect(), snapshot(&later));

        let mut held = Catalog::default();
        for (n, _) in &parts {
            n.iter()
                .filter(|n| n.id != renamed.id)
                .for_each(|n| held.put_node(n.clone()));
        }
        held.put_node(renamed.clone());
        for (_, e) in &parts {
            e.iter()
                .filter(|e| e.id != later.1[0].id)
                .for_each(|e| held.put_edge(e.clone()));
        }
        later.1.iter().for_each(|e| held.put_edge(e.clone()));
        let ids: Vec<EdgeId> = parts.iter().flat_map(|(_, e)| e.iter().map(|e| e.id)).collect();
        assert_eq!(served(&built, &nodes, &ids), served(&held, &nodes, &ids));
        assert_eq!(
            built.edge_count(),
            5 * 20 + 1,
            "the edges to a missing node are left out"
        );
        assert_eq!(built.by_name("n7-renamed").map(|n| n.id), Some(renamed.id));
        assert!(built.by_name("n7").is_none());
    }

    #[test]
    fn a_run_of_edges_goes_in_as_one_by_one() {
        let nodes: Vec<NodeSummary> = (0..40).map(|i| summary(&format!("n{i}"), Tier::Public)).collect();
        let ghost = summary("ghost", Tier::Public);
        let mut held = Catalog::default();
        for n in &nodes {
            held.put_node(n.clone());
        }
        let old: Vec<Edge> = (0..5).map(|i| edge(&nodes[i], &nodes[i + 1])).collect();
        for e in &old {
            held.put_edge(e.clone());
        }
        let fresh =
            |k: usize| -> Vec<Edge> { (0..k).map(|i| edge(&nodes[i % 40], &nodes[(i * 7 + 1) % 40])).collect() };
        let readable = |e: &Edge| e.tier != Tier::HumanOnly;
        // New edges only (taken whole); then runs with one edge each that
        // must go one by one: held already, twice in the run, unreadable
        // (and held: dropped), an end missing.
        let mut twice = fresh(IN_PLACE_EDGES);
        twice.push(Edge {
            weight: 0.5,
            ..twice[3].clone()
        });
        let mut unreadable = fresh(IN_PLACE_EDGES);
        unreadable.push(Edge {
            tier: Tier::HumanOnly,
            ..old[1].clone()
        });
        let mut missing = fresh(IN_PLACE_EDGES);
        missing.insert(9, edge(&nodes[2], &ghost));
        let mut replaced = fresh(IN_PLACE_EDGES);
        replaced.push(Edge {
            weight: 0.25,
            ..old[0].clone()
        });
        let runs = [
            fresh(IN_PLACE_EDGES + 3),
            twice,
            unreadable,
            missing,
            replaced,
            fresh(3),
        ];
        // The same store with its ids' map not built yet (a fresh open):
        // a run is then looked for in the table itself.
        let mut unmapped = held.clone();
        unmapped.edge_slot = OnceLock::new();
        for (base, run) in [&held, &unmapped]
            .into_iter()
            .flat_map(|b| runs.iter().map(move |r| (b, r.clone())))
        {
            let (mut bulk, mut each) = (base.clone(), base.clone());
            let ids: Vec<EdgeId> = run.iter().chain(&old).map(|e| e.id).collect();
            bulk.put_edges(run.clone(), readable);
            for e in run {
                if readable(&e) {
                    each.put_edge(e);
                } else {
                    each.drop_edge(&e.id);
                }
            }
            assert_eq!(served(&bulk, &nodes, &ids), served(&each, &nodes, &ids));
            for e in bulk.edges() {
                assert!(bulk.outgoing(&e.from).any(|x| x.id == e.id) && bulk.incoming(&e.to).any(|x| x.id == e.id));
            }
            // Later puts and drops find every slot.
            for c in [&mut bulk, &mut each] {
                c.drop_edge(&ids[1]);
                c.put_edge(edge(&nodes[5], &nodes[6]));
            }
            assert_eq!(bulk.edge_count(), each.edge_count());
        }
    }
}
