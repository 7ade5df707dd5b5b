//! The catalog's nodes in slots, found by id and by name through tables
//! that hold only the slot (4 bytes) and read the key from the node in it:
//! at a million nodes, two maps holding their keys took 48 MB more.
//!
//! Every entry of either table names a live slot whose node has the key the
//! entry was filed under; each change below keeps that so (a table
//! rehashes its entries by reading the nodes).

use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::model::{NodeId, NodeSummary};

type Slot = Option<Arc<NodeSummary>>;

#[derive(Debug, Clone, Default)]
pub(super) struct NodeIndex {
    /// Shared, so results can hold a node without copying it. Freed slots
    /// stay empty until the next open.
    nodes: Vec<Slot>,
    by_id: HashTable<u32>,
    by_name: HashTable<u32>,
    live: usize,
}

fn hash<Q: Hash + ?Sized>(key: &Q) -> u64 {
    FxBuildHasher.hash_one(key)
}

fn at(nodes: &[Slot], slot: u32) -> Option<&NodeSummary> {
    nodes.get(slot as usize).and_then(Option::as_deref)
}

fn id_hash(nodes: &[Slot], slot: u32) -> u64 {
    at(nodes, slot).map_or(0, |n| hash(&n.id))
}

fn name_hash(nodes: &[Slot], slot: u32) -> u64 {
    at(nodes, slot).map_or(0, |n| hash(n.name.as_str()))
}

impl NodeIndex {
    pub(super) fn with_capacity(n: usize) -> Self {
        Self {
            nodes: Vec::with_capacity(n),
            by_id: HashTable::with_capacity(n),
            by_name: HashTable::with_capacity(n),
            live: 0,
        }
    }

    /// Every slot, in order (an empty one is a dropped node).
    pub(super) fn slots(&self) -> &[Slot] {
        &self.nodes
    }

    /// The number of live nodes.
    pub(super) fn live(&self) -> usize {
        self.live
    }

    pub(super) fn at(&self, slot: u32) -> Option<&Arc<NodeSummary>> {
        self.nodes.get(slot as usize).and_then(Option::as_ref)
    }

    /// The slot of node `id`.
    pub(super) fn slot(&self, id: &NodeId) -> Option<u32> {
        let nodes = &self.nodes;
        self.by_id
            .find(hash(id), |&s| at(nodes, s).is_some_and(|n| n.id == *id))
            .copied()
    }

    /// The slot of the node called `name`.
    pub(super) fn slot_named(&self, name: &str) -> Option<u32> {
        let nodes = &self.nodes;
        self.by_name
            .find(hash(name), |&s| at(nodes, s).is_some_and(|n| n.name.as_str() == name))
            .copied()
    }

    /// Puts a node in its slot, or in a new one: its slot, and whether it
    /// is new.
    pub(super) fn put(&mut self, s: Arc<NodeSummary>) -> (u32, bool) {
        if let Some(slot) = self.slot(&s.id) {
            if let Some(old) = at(&self.nodes, slot).map(|n| n.name.clone())
                && old != s.name
            {
                self.unname(old.as_str(), slot);
            }
            self.nodes[slot as usize] = Some(s);
            self.name(slot);
            return (slot, false);
        }
        let slot = self.nodes.len() as u32;
        let id = s.id;
        self.nodes.push(Some(s));
        let nodes = &self.nodes;
        self.by_id.insert_unique(hash(&id), slot, |&x| id_hash(nodes, x));
        self.name(slot);
        self.live += 1;
        (slot, true)
    }

    /// Files the node in `slot` under its name (in place of another node
    /// filed under it).
    fn name(&mut self, slot: u32) {
        let nodes = &self.nodes;
        let Some(name) = at(nodes, slot).map(|n| n.name.as_str()) else {
            return;
        };
        match self.by_name.entry(
            hash(name),
            |&x| at(nodes, x).is_some_and(|n| n.name.as_str() == name),
            |&x| name_hash(nodes, x),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = slot,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(slot);
            }
        }
    }

    /// Takes out the entry filed under `name` when it is `slot`'s (while
    /// its node is still in it). Another node filed under the name since
    /// (one removed and one added under its name, in one commit) keeps it.
    fn unname(&mut self, name: &str, slot: u32) {
        let nodes = &self.nodes;
        if let Ok(e) = self.by_name.find_entry(hash(name), |&x| {
            x == slot && at(nodes, x).is_some_and(|n| n.name.as_str() == name)
        }) {
            e.remove();
        }
    }

    /// Takes node `id` out of its slot (which stays empty): the slot and
    /// the node.
    pub(super) fn remove(&mut self, id: &NodeId) -> Option<(u32, Arc<NodeSummary>)> {
        let nodes = &self.nodes;
        let slot = self
            .by_id
            .find_entry(hash(id), |&s| at(nodes, s).is_some_and(|n| n.id == *id))
            .ok()?
            .remove()
            .0;
        let name = at(nodes, slot).map(|n| n.name.clone())?;
        self.unname(name.as_str(), slot);
        let node = self.nodes[slot as usize].take()?;
        self.live -= 1;
        Some((slot, node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Name, NodeType, Status, Tier, Timestamp};

    fn summary(id: NodeId, name: &str) -> Arc<NodeSummary> {
        Arc::new(NodeSummary {
            id,
            name: Name::new(name).unwrap(),
            node_type: NodeType::new("service").unwrap(),
            description: String::new(),
            properties: Default::default(),
            tier: Tier::Public,
            status: Status::Active,
            confidence: 1.0,
            created: Timestamp(0),
            updated: Timestamp(0),
            version: 1,
        })
    }

    #[test]
    fn ids_and_names_find_their_slots_through_renames_drops_and_growth() {
        let mut ix = NodeIndex::default();
        let ids: Vec<NodeId> = (0..2000).map(|_| NodeId::generate()).collect();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(ix.put(summary(*id, &format!("n{i}"))), (i as u32, true));
        }
        assert_eq!(ix.live(), 2000);
        assert_eq!((ix.slot(&ids[7]), ix.slot_named("n7")), (Some(7), Some(7)));
        // A rename keeps the slot and moves the name.
        assert_eq!(ix.put(summary(ids[7], "seven")), (7, false));
        assert_eq!((ix.slot_named("n7"), ix.slot_named("seven")), (None, Some(7)));
        // A drop empties the slot and forgets both keys.
        let (slot, node) = ix.remove(&ids[3]).expect("held");
        assert_eq!((slot, node.name.as_str()), (3, "n3"));
        assert_eq!(
            (ix.slot(&ids[3]), ix.slot_named("n3"), ix.at(3).is_some()),
            (None, None, false)
        );
        assert!(ix.remove(&ids[3]).is_none());
        assert_eq!(ix.live(), 1999);
        // Put back, it takes a new slot.
        assert_eq!(ix.put(summary(ids[3], "n3")), (2000, true));
        for (i, id) in ids.iter().enumerate().filter(|(i, _)| *i != 3 && *i != 7) {
            assert_eq!(ix.slot(id), Some(i as u32), "{i} after the tables grew");
            assert_eq!(ix.slot_named(&format!("n{i}")), Some(i as u32));
        }
        assert_eq!(ix.slot_named("nope"), None);
        assert_eq!(ix.slot(&NodeId::generate()), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Puts (new nodes, renames onto free or taken names) and removes
        /// in any order: every id and name is found where maps of them,
        /// changed the same way, say.
        #[test]
        fn ids_and_names_answer_as_maps_would(
            ops in proptest::collection::vec((0..40usize, 0..12usize, proptest::bool::weighted(0.2)), 0..200),
        ) {
            use std::collections::HashMap;
            let ids: Vec<NodeId> = (0..40).map(|_| NodeId::generate()).collect();
            let mut ix = NodeIndex::default();
            let (mut by_id, mut by_name, mut name_of) =
                (HashMap::<NodeId, u32>::new(), HashMap::<String, u32>::new(), HashMap::<NodeId, String>::new());
            let mut next = 0u32;
            for (who, name, drop) in ops {
                let (id, name) = (ids[who], format!("n{name}"));
                if drop {
                    let got = ix.remove(&id).map(|(slot, _)| slot);
                    let want = by_id.remove(&id);
                    proptest::prop_assert_eq!(got, want);
                    if let Some(slot) = want {
                        let old = name_of.remove(&id).expect("named");
                        if by_name.get(&old) == Some(&slot) {
                            by_name.remove(&old);
                        }
                    }
                    continue;
                }
                let slot = match by_id.get(&id) {
                    Some(&slot) => {
                        let old = name_of[&id].clone();
                        if old != name && by_name.get(&old) == Some(&slot) {
                            by_name.remove(&old);
                        }
                        slot
                    }
                    None => {
                        next += 1;
                        by_id.insert(id, next - 1);
                        next - 1
                    }
                };
                name_of.insert(id, name.clone());
                by_name.insert(name.clone(), slot);
                proptest::prop_assert_eq!(ix.put(summary(id, &name)).0, slot);
            }
            for id in &ids {
                proptest::prop_assert_eq!(ix.slot(id), by_id.get(id).copied());
            }
            for n in 0..12 {
                let name = format!("n{n}");
                proptest::prop_assert_eq!(ix.slot_named(&name), by_name.get(&name).copied(), "{}", name);
            }
            proptest::prop_assert_eq!(ix.live(), by_id.len());
        }
    }

    #[test]
    fn a_name_taken_by_another_node_stays_its_own() {
        // One commit removes `a` named "x" and adds `b` named "x": the
        // session puts `b` first, then drops `a`.
        let mut ix = NodeIndex::default();
        let (a, b, c) = (NodeId::generate(), NodeId::generate(), NodeId::generate());
        ix.put(summary(a, "x"));
        let (b_slot, _) = ix.put(summary(b, "x"));
        assert_eq!(ix.slot_named("x"), Some(b_slot), "the later node takes the name");
        ix.remove(&a);
        assert_eq!(
            ix.slot_named("x"),
            Some(b_slot),
            "still found after the other is dropped"
        );
        // And a rename of a node whose old name another took.
        let (c_slot, _) = ix.put(summary(c, "y"));
        ix.put(summary(b, "y"));
        assert_eq!(ix.slot_named("y"), Some(b_slot));
        ix.put(summary(c, "z"));
        assert_eq!((ix.slot_named("y"), ix.slot_named("z")), (Some(b_slot), Some(c_slot)));
    }
}
