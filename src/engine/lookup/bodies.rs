//! An index of node bodies for search. Bodies live in the blobs, not the
//! catalog, so reading them all is slow (one decryption each): the index
//! is kept by its owner (the MCP server keeps one per session) and brought
//! up to date by [`Bodies::refresh`], which reads only the nodes whose
//! version changed since. Bodies are kept lowercased, for word matching.

use rustc_hash::FxHashMap;

use crate::model::{NodeId, Status, Tier};
use crate::store::Store;

/// Lowercased bodies by node, with the version each was read at.
#[derive(Debug, Default)]
pub struct Bodies {
    by_node: FxHashMap<NodeId, (u64, String)>,
    /// The commit and tier of the last refresh: nothing to read again
    /// until another commit.
    seen: Option<(u64, Tier)>,
}

impl Bodies {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the body of every node at or below `cap` (not archived) whose
    /// version the index does not hold yet; returns how many were read.
    /// I/O- and CPU-heavy on the first call over a large store.
    pub fn refresh(&mut self, store: &Store, cap: Tier) -> usize {
        if self.seen == Some((store.seen_seq(), cap)) {
            return 0;
        }
        self.seen = Some((store.seen_seq(), cap));
        let mut read = 0;
        for n in store.catalog().nodes() {
            if n.tier > cap || n.status == Status::Archived {
                continue;
            }
            if self.by_node.get(&n.id).is_some_and(|(v, _)| *v == n.version) {
                continue;
            }
            // A blob that fails to open is searched without its body; `doctor`
            // and `show` report it.
            let body = store
                .node_by_id(&n.id)
                .ok()
                .and_then(|full| full.body)
                .map(|b| b.to_lowercase())
                .unwrap_or_default();
            self.by_node.insert(n.id, (n.version, body));
            read += 1;
        }
        read
    }

    /// Whether the body of `id` holds every one of `words` (lowercase).
    pub fn holds(&self, id: &NodeId, words: &[String]) -> bool {
        self.by_node
            .get(id)
            .is_some_and(|(_, body)| !body.is_empty() && words.iter().all(|w| body.contains(w.as_str())))
    }
}
