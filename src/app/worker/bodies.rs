//! The index of node bodies the Graph pane's jump searches. Reading every
//! body means decrypting every blob (seconds on a large store), so the
//! index is made a slice at a time while the engine thread has nothing else
//! to do, starting with the first jump, and is used once it holds the
//! current commit at the session's level; until then a jump searches names
//! and descriptions. Locking wipes it: it holds decrypted text.

use graphex_engine::lookup::Bodies;
use graphex_engine::store::Store;

/// Bodies read per slice: a few milliseconds, so a request waits no longer.
const SLICE: usize = 300;

#[derive(Default)]
pub struct BodyIndex {
    index: Bodies,
    /// A jump asked for it (never before: most sessions never jump).
    wanted: bool,
}

impl BodyIndex {
    /// Starts (or keeps) making the index.
    pub fn want(&mut self) {
        self.wanted = true;
    }

    /// Whether slices are left to make for `store`.
    pub fn unfinished(&self, store: Option<&Store>) -> bool {
        self.wanted && store.is_some_and(|s| !self.index.is_current(s, s.level().max_tier()))
    }

    /// Makes one slice.
    pub fn step(&mut self, store: &Store) {
        let mut read = 0;
        self.index
            .refresh_some(store, store.level().max_tier(), SLICE, &mut read);
    }

    /// The index, when it holds `store`'s commit at its level.
    pub fn current(&self, store: &Store) -> Option<&Bodies> {
        self.index
            .is_current(store, store.level().max_tier())
            .then_some(&self.index)
    }

    /// Drops everything it holds (the console locked).
    pub fn wipe(&mut self) {
        *self = BodyIndex::default();
    }
}
