//! A map from row ids to small fixed values, as a session keeps one entry
//! per index row (a million nodes, five million edges): the rows read at
//! open in one vector sorted by id, and the changes since in a small hash
//! map over it. A hash map of every row costs about twice as much (its
//! buckets are a power of two, each with a control byte, and it grows by
//! holding two tables at once).

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Changes from which the overlay is merged into the sorted entries: a
/// sixteenth of them, and at least this many.
const MERGE_AT: usize = 4096;

/// Entries by key: `sorted` (unique keys, in order once settled) and
/// `changed` over it (`None`: removed).
#[derive(Debug, Clone)]
pub(super) struct IdTable<K, V> {
    sorted: Vec<(K, V)>,
    settled: bool,
    changed: FxHashMap<K, Option<V>>,
}

impl<K, V> Default for IdTable<K, V> {
    fn default() -> Self {
        Self {
            sorted: Vec::new(),
            settled: true,
            changed: FxHashMap::default(),
        }
    }
}

impl<K: Copy + Ord + Hash, V: Copy> IdTable<K, V> {
    /// Room for `n` more entries loaded with [`IdTable::load`].
    pub(super) fn reserve(&mut self, n: usize) {
        self.sorted.reserve_exact(n);
    }

    /// Adds an entry read at open, whose key no other entry has (a row's
    /// primary key); [`IdTable::settle`] must follow before any lookup.
    pub(super) fn load(&mut self, key: K, value: V) {
        self.sorted.push((key, value));
        self.settled = false;
    }

    /// Takes over the entries `other` loaded (the other half of an open).
    pub(super) fn absorb(&mut self, mut other: IdTable<K, V>) {
        other.merge_changes();
        if self.sorted.is_empty() {
            self.sorted = other.sorted;
            self.settled = other.settled;
        } else if !other.sorted.is_empty() {
            self.merge_changes();
            self.sorted.append(&mut other.sorted);
            self.settled = false;
        }
    }

    /// Sorts what was loaded (ids made in time order mostly arrive in
    /// order, which the sort finds in one pass). Keys loaded twice keep
    /// one entry, so a lookup always has one answer.
    pub(super) fn settle(&mut self) {
        if !self.settled {
            self.sorted.sort_unstable_by_key(|e| e.0);
            self.sorted.dedup_by(|a, b| a.0 == b.0);
            self.sorted.shrink_to_fit();
            self.settled = true;
        }
    }

    fn position(&self, key: &K) -> Result<usize, usize> {
        debug_assert!(self.settled, "an id table is looked up before it is settled");
        if self.settled {
            self.sorted.binary_search_by(|(k, _)| k.cmp(key))
        } else {
            self.sorted.iter().position(|(k, _)| k == key).ok_or(0)
        }
    }

    pub(super) fn get(&self, key: &K) -> Option<&V> {
        match self.changed.get(key) {
            Some(v) => v.as_ref(),
            None => self.position(key).ok().map(|i| &self.sorted[i].1),
        }
    }

    pub(super) fn insert(&mut self, key: K, value: V) {
        self.changed.insert(key, Some(value));
        self.merge_when_large();
    }

    pub(super) fn remove(&mut self, key: &K) -> Option<V> {
        let was = self.get(key).copied();
        if was.is_some() {
            if self.position(key).is_ok() {
                self.changed.insert(*key, None);
            } else {
                self.changed.remove(key);
            }
        }
        was
    }

    /// Every value (in no particular order).
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        let kept = self
            .sorted
            .iter()
            .filter(|(k, _)| !self.changed.contains_key(k))
            .map(|(_, v)| v);
        kept.chain(self.changed.values().flatten())
    }

    fn merge_when_large(&mut self) {
        if self.changed.len() >= MERGE_AT.max(self.sorted.len() / 16) {
            self.merge_changes();
        }
    }

    /// Adds or replaces many entries, as inserts in order would (a key
    /// given twice keeps the later value): one by one into the overlay when
    /// they are few, in one merge when they are many (a bulk commit's rows).
    pub(super) fn extend(&mut self, mut entries: Vec<(K, V)>) {
        if entries.len() < MERGE_AT {
            for (k, v) in entries {
                self.insert(k, v);
            }
            return;
        }
        self.merge_changes();
        // Stable: of equal keys, the later stays later, and is kept.
        entries.sort_by_key(|e| e.0);
        let mut changes: Vec<(K, Option<V>)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match changes.last_mut() {
                Some(last) if last.0 == k => last.1 = Some(v),
                _ => changes.push((k, Some(v))),
            }
        }
        self.merge(changes);
    }

    /// Folds the overlay into the sorted entries, in one merge.
    fn merge_changes(&mut self) {
        if self.changed.is_empty() {
            return;
        }
        let changes: Vec<(K, Option<V>)> = self.changed.drain().collect();
        self.changed.shrink_to_fit();
        self.merge(changes);
    }

    /// Merges `changes` (distinct keys; `None` removes) into the sorted
    /// entries, which they override.
    fn merge(&mut self, mut changes: Vec<(K, Option<V>)>) {
        self.settle();
        changes.sort_unstable_by_key(|e| e.0);
        let old = std::mem::take(&mut self.sorted);
        let mut merged = Vec::with_capacity(old.len() + changes.len());
        let mut old = old.into_iter().peekable();
        for (key, value) in changes {
            while let Some(entry) = old.next_if(|(k, _)| *k < key) {
                merged.push(entry);
            }
            old.next_if(|(k, _)| *k == key);
            if let Some(v) = value {
                merged.push((key, v));
            }
        }
        merged.extend(old);
        merged.shrink_to_fit();
        self.sorted = merged;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_entries_answer_once_settled_and_changes_override_them() {
        let mut t: IdTable<u32, char> = IdTable::default();
        for (k, v) in [(5, 'e'), (1, 'a'), (3, 'c')] {
            t.load(k, v);
        }
        t.settle();
        assert_eq!(
            (t.get(&1), t.get(&3), t.get(&5), t.get(&2)),
            (Some(&'a'), Some(&'c'), Some(&'e'), None)
        );
        t.insert(3, 'C');
        t.insert(2, 'b');
        assert_eq!(t.remove(&1), Some('a'));
        assert_eq!(t.remove(&1), None, "removed once");
        assert_eq!(t.remove(&2), Some('b'), "an entry only in the overlay");
        assert_eq!((t.get(&1), t.get(&2), t.get(&3)), (None, None, Some(&'C')));
        let mut values: Vec<char> = t.values().copied().collect();
        values.sort_unstable();
        assert_eq!(values, vec!['C', 'e']);
        t.merge_changes();
        assert!(t.changed.is_empty());
        assert_eq!(t.sorted, vec![(3, 'C'), (5, 'e')]);
    }

    #[test]
    fn many_changes_are_merged_and_every_answer_stays_the_same() {
        let mut t: IdTable<u32, u32> = IdTable::default();
        let mut model = std::collections::BTreeMap::new();
        for k in (0..20_000u32).rev().step_by(2) {
            t.load(k, k);
            model.insert(k, k);
        }
        t.settle();
        for k in 0..12_000u32 {
            if k % 3 == 0 {
                assert_eq!(t.remove(&k), model.remove(&k), "remove {k}");
            } else {
                t.insert(k, k + 1);
                model.insert(k, k + 1);
            }
        }
        assert!(t.changed.len() < MERGE_AT, "merged along the way");
        for k in 0..20_001u32 {
            assert_eq!(t.get(&k), model.get(&k), "key {k}");
        }
        let mut values: Vec<u32> = t.values().copied().collect();
        values.sort_unstable();
        let mut want: Vec<u32> = model.values().copied().collect();
        want.sort_unstable();
        assert_eq!(values, want);
    }

    #[test]
    fn a_bulk_extend_replaces_and_adds_as_inserts_would() {
        let mut t: IdTable<u32, u32> = IdTable::default();
        for k in 0..10_000u32 {
            t.load(k * 2, 0);
        }
        t.settle();
        t.insert(1, 7);
        assert_eq!(t.remove(&4), Some(0));
        // Many: merged at once; they replace what they name.
        t.extend((0..(MERGE_AT as u32 * 2)).map(|k| (k * 3, 9)).collect());
        assert!(t.changed.is_empty(), "the overlay went into the merge");
        assert_eq!(
            (t.get(&1), t.get(&3), t.get(&4), t.get(&6)),
            (Some(&7), Some(&9), None, Some(&9))
        );
        assert_eq!((t.get(&2), t.get(&12_000), t.get(&12_001)), (Some(&0), Some(&9), None));
        // A key given twice keeps its later value, once.
        let mut twice: Vec<(u32, u32)> = (0..MERGE_AT as u32).map(|k| (100_000 + k, 1)).collect();
        twice.push((100_000, 2));
        let before = t.values().count();
        t.extend(twice);
        assert_eq!(t.get(&100_000), Some(&2));
        assert_eq!(t.values().count(), before + MERGE_AT);
        for k in 0..MERGE_AT as u32 {
            assert!(t.remove(&(100_000 + k)).is_some());
        }
        // Few: into the overlay.
        t.extend(vec![(2, 5), (5, 5)]);
        assert_eq!((t.get(&2), t.get(&5)), (Some(&5), Some(&5)));
        let distinct: std::collections::BTreeSet<u32> = (0..10_000u32)
            .map(|k| k * 2)
            .chain((0..MERGE_AT as u32 * 2).map(|k| k * 3))
            .chain([1, 5])
            .collect();
        assert_eq!(t.values().count(), distinct.len() - 1, "every key once, 4 removed");
    }

    /// What a table may be asked, in any order (keys from a small range,
    /// so operations meet; sizes around `MERGE_AT`, so merges happen).
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u16, u8),
        Remove(u16),
        Extend(Vec<(u16, u8)>),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (0..6000u16, any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (0..6000u16).prop_map(Op::Remove),
            1 => proptest::collection::vec((0..6000u16, any::<u8>()), 0..5000).prop_map(Op::Extend),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn every_answer_is_a_sorted_map_s(
            loaded in proptest::collection::btree_map(0..6000u16, proptest::prelude::any::<u8>(), 0..3000),
            ops in proptest::collection::vec(op(), 0..60),
        ) {
            let mut t: IdTable<u16, u8> = IdTable::default();
            for (k, v) in loaded.iter().rev() {
                t.load(*k, *v);
            }
            t.settle();
            let mut model = loaded;
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        t.insert(k, v);
                        model.insert(k, v);
                    }
                    Op::Remove(k) => proptest::prop_assert_eq!(t.remove(&k), model.remove(&k)),
                    Op::Extend(entries) => {
                        model.extend(entries.iter().copied());
                        t.extend(entries);
                    }
                }
            }
            for k in 0..6000u16 {
                proptest::prop_assert_eq!(t.get(&k), model.get(&k));
            }
            let mut values: Vec<u8> = t.values().copied().collect();
            let mut want: Vec<u8> = model.values().copied().collect();
            values.sort_unstable();
            want.sort_unstable();
            proptest::prop_assert_eq!(values, want);
        }
    }

    #[test]
    fn two_halves_loaded_apart_are_one_table() {
        let (mut a, mut b): (IdTable<u32, u8>, IdTable<u32, u8>) = Default::default();
        a.load(4, 1);
        a.load(2, 1);
        b.load(3, 2);
        b.load(2, 9);
        a.absorb(b);
        a.settle();
        assert_eq!(a.get(&3), Some(&2));
        assert!(a.get(&2).is_some(), "a key loaded twice keeps one entry");
        assert_eq!(a.values().count(), 3);
    }
}
