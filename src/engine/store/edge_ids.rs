//! The catalog's edge slots by id, through a table that holds only the slot
//! (4 bytes) and reads the id from the edge in it: at four million edges
//! (2^23 buckets) a map holding each id took 176 MB, the table 42 MB. Built
//! on first use (opening a store never needs it).
//!
//! Every entry names a slot holding an edge with the id it was filed under:
//! an entry is filed once its edge is in the table, and taken out before its
//! slot is emptied (the table rehashes its entries by reading the edges).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::edge_table::EdgeTable;
use crate::model::EdgeId;

#[derive(Debug, Clone, Default)]
pub(super) struct EdgeIds(HashTable<u32>);

fn hash(id: &EdgeId) -> u64 {
    FxBuildHasher.hash_one(id)
}

fn id_hash(edges: &EdgeTable, slot: u32) -> u64 {
    edges.get(slot as usize).map_or(0, |e| hash(&e.id))
}

fn holds(edges: &EdgeTable, slot: u32, id: &EdgeId) -> bool {
    edges.get(slot as usize).is_some_and(|e| e.id == *id)
}

impl EdgeIds {
    /// Every edge the table holds, by id.
    pub(super) fn of(edges: &EdgeTable) -> Self {
        let mut ids = HashTable::with_capacity(edges.len());
        for (slot, e) in edges.slots().enumerate() {
            if let Some(e) = e {
                ids.insert_unique(hash(&e.id), slot as u32, |&s| id_hash(edges, s));
            }
        }
        EdgeIds(ids)
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The slot of edge `id`.
    pub(super) fn get(&self, edges: &EdgeTable, id: &EdgeId) -> Option<u32> {
        self.0.find(hash(id), |&s| holds(edges, s, id)).copied()
    }

    /// Files the edge in `slot` (already in the table) under its id.
    pub(super) fn insert(&mut self, edges: &EdgeTable, slot: u32) {
        let Some(id) = edges.get(slot as usize).map(|e| e.id) else {
            return;
        };
        match self
            .0
            .entry(hash(&id), |&s| holds(edges, s, &id), |&s| id_hash(edges, s))
        {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = slot,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(slot);
            }
        }
    }

    /// Takes edge `id` out (before its slot is emptied): its slot.
    pub(super) fn remove(&mut self, edges: &EdgeTable, id: &EdgeId) -> Option<u32> {
        let entry = self.0.find_entry(hash(id), |&s| holds(edges, s, id)).ok()?;
        Some(entry.remove().0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Edge;
    use crate::testkit;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Edges added, replaced and dropped in any order (the table built
        /// from the slots at any point): every id answers as a map would.
        #[test]
        fn ids_answer_as_a_map_would(
            ops in proptest::collection::vec((0..30usize, 0..3u8), 0..150),
            built_at in 0..150usize,
        ) {
            use std::collections::HashMap;
            let sample = testkit::sample();
            let template: Edge = sample.edges().next().cloned().expect("an edge");
            let ids: Vec<EdgeId> = (0..30).map(|_| EdgeId::generate()).collect();
            let mut table = EdgeTable::default();
            let mut index: Option<EdgeIds> = None;
            let mut model: HashMap<EdgeId, u32> = HashMap::new();
            for (step, (who, what)) in ops.into_iter().enumerate() {
                if step == built_at {
                    index = Some(EdgeIds::of(&table));
                }
                let id = ids[who];
                match (what, model.get(&id).copied()) {
                    // Drop: out of the index, then the slot emptied.
                    (0, Some(slot)) => {
                        if let Some(ix) = index.as_mut() {
                            proptest::prop_assert_eq!(ix.remove(&table, &id), Some(slot));
                        }
                        *table.slot_mut(slot as usize).expect("slot") = None;
                        model.remove(&id);
                    }
                    // Replace in place: the same id, the same slot.
                    (1, Some(slot)) => {
                        let mut e = template.clone();
                        e.id = id;
                        e.weight += 1.0;
                        *table.slot_mut(slot as usize).expect("slot") = Some(e);
                    }
                    // Add: in the table first, then filed.
                    (_, None) => {
                        let mut e = template.clone();
                        e.id = id;
                        let slot = table.len() as u32;
                        table.push(e);
                        if let Some(ix) = index.as_mut() {
                            ix.insert(&table, slot);
                        }
                        model.insert(id, slot);
                    }
                    _ => {}
                }
            }
            let index = index.unwrap_or_else(|| EdgeIds::of(&table));
            for id in &ids {
                proptest::prop_assert_eq!(index.get(&table, id), model.get(id).copied());
            }
            proptest::prop_assert_eq!(index.len(), model.len());
        }
    }
}
