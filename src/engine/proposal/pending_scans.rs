//! The pending proposals as last scanned, for a reader that asks often
//! (the console: its queue, and the Graph pane's proposed nodes on every
//! recentre). A scan decrypts every file in `pending/`; it is kept while
//! nothing it comes from changed: the store, the index's commit (decisions,
//! merge proposals), the unlock level and `pending/`'s listing (names,
//! sizes, times: a proposal's file is named by its content).

use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::pending::ScanResult;
use crate::error::Result;
use crate::keys::Level;
use crate::store::Store;

/// A hash of the listing of `dir`: names, sizes and modification times
/// (0 when it cannot be read).
pub fn listing_signature(dir: &Path) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut entries: Vec<(std::ffi::OsString, u64, Option<std::time::SystemTime>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| {
                    let m = e.metadata().ok();
                    (
                        e.file_name(),
                        m.as_ref().map_or(0, std::fs::Metadata::len),
                        m.and_then(|m| m.modified().ok()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries.hash(&mut h);
    h.finish()
}

/// What a scan was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    root: PathBuf,
    commit: u64,
    level: Level,
    listing: u64,
}

/// The last scan of the queue, with what it was made from.
#[derive(Default)]
pub struct PendingScans {
    last: Option<(Key, Arc<ScanResult>)>,
    scans: u64,
}

impl PendingScans {
    /// The pending proposals ([`Store::pending`]): the last scan while
    /// nothing it comes from changed, else a new one. The key is taken
    /// before the scan, so a file that arrives or is quarantined meanwhile
    /// makes the next call scan again.
    pub fn scan(&mut self, store: &Store) -> Result<Arc<ScanResult>> {
        let key = Key {
            root: store.layout().root().to_path_buf(),
            commit: store.seen_seq(),
            level: store.level(),
            listing: listing_signature(&store.layout().pending()),
        };
        if let Some((k, scan)) = &self.last
            && *k == key
        {
            return Ok(Arc::clone(scan));
        }
        self.last = None;
        let scan = Arc::new(store.pending()?);
        self.scans += 1;
        self.last = Some((key, Arc::clone(&scan)));
        Ok(scan)
    }

    /// How many scans were made (the rest were the last one again).
    pub fn scans(&self) -> u64 {
        self.scans
    }

    /// Forgets the last scan (it quotes proposals: it goes with the keys).
    pub fn clear(&mut self) {
        self.last = None;
    }
}
