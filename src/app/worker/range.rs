//! The base of a revision range for the Projection pane (`graphex diff
//! --console main...HEAD`): the store at a git revision, read into a
//! private temporary directory, opened with this worker's credentials and
//! kept while the console runs; the previews compare it with now.

use graphex_engine::Store;
use graphex_engine::compare::changed_names;

use super::{Reply, Worker};
use crate::shared::git_revision::{self, Snapshot};

/// A revision's store, and the directory that holds it.
pub struct RangeBase {
    pub store: Store,
    _snapshot: Snapshot,
}

impl Worker {
    pub(super) fn open_range(&mut self, rev: &str, label: &str) {
        let result = self.read_range(rev).map_err(|e| format!("{label}: {e:#}"));
        self.send(Reply::RangeOpened {
            label: label.to_owned(),
            result,
        });
    }

    /// Opens the base and names the nodes changed since it.
    fn read_range(&mut self, rev: &str) -> anyhow::Result<Vec<String>> {
        let snapshot = git_revision::at(&self.root, rev)?;
        let base = Store::open_snapshot(&snapshot.root(), &self.creds, Some(&snapshot.blobs))?;
        let changed = changed_names(base.catalog(), self.current()?.catalog());
        self.range = Some(RangeBase {
            store: base,
            _snapshot: snapshot,
        });
        Ok(changed)
    }
}
