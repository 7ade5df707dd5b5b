//! Keeping an open store current: a long-lived session (the unlock session,
//! the console, the MCP server) refreshes before each request, applying
//! another process's commits row by row when it tracks them (`delta`) and
//! reading and verifying everything again otherwise.

use super::{Store, file_id, rotate, schema, verified};
use crate::error::{Error, Result};

impl Store {
    /// Reloads the catalog when another process committed since this
    /// session last read or wrote; returns whether it did. Long-lived
    /// sessions (the console, the MCP server) call it before each request.
    ///
    /// A session that tracks changes ([`Store::track_changes`]) applies
    /// commits row by row (see `delta`); a write that moved no commit (a
    /// tool, an attacker) and anything that does not check out that way is
    /// read and verified in full.
    pub fn refresh(&mut self) -> Result<bool> {
        // A connection keeps reading the file it opened: a checkout that
        // replaced graph.db would go unseen.
        if file_id(&self.layout.db())? != self.db_file {
            return Err(Error::IndexReplaced);
        }
        let seq = schema::commit_seq(&self.conn)?;
        if seq == self.seen_seq && self.data_version()? == self.data_version {
            return Ok(false);
        }
        if let Some(tier) = rotate::retired_key(&self.conn, &self.keys)? {
            return Err(Error::KeyRotated(tier));
        }
        if seq == self.seen_seq || !self.apply_foreign() {
            self.load_verified()?;
        }
        self.recheck_fresh();
        Ok(true)
    }

    /// Keeps, from now on, what applying another process's commits row by
    /// row needs (every edge row's tag: about 60 bytes an edge), for a
    /// session that lives across commands; loads and checks again to
    /// gather it.
    pub fn track_changes(&mut self) -> Result<()> {
        if self.track {
            return Ok(());
        }
        self.track = true;
        self.load_verified()
    }

    /// Whether commits were applied row by row since the last full check:
    /// a row changed outside Graphex beside such a commit, which the
    /// manifest still vouches for, is not served (the session keeps the row
    /// it verified, and checks every node row it reads) but is only named by
    /// [`Store::check_in_full`].
    pub fn partly_checked(&self) -> bool {
        self.deltas > 0
    }

    /// Reads and checks everything again, as an open does; a long-lived
    /// session runs it when idle after applying commits row by row.
    pub fn check_in_full(&mut self) -> Result<()> {
        self.load_verified()?;
        self.recheck_fresh();
        Ok(())
    }

    /// Loads the catalog and checks the index against its manifest, both as
    /// of one commit, and the catalog against the verified rows.
    pub(crate) fn load_verified(&mut self) -> Result<()> {
        // A writer in another process may replace a snapshot file between our
        // reading its name and its content, or commit between the two reads:
        // one retry sees a settled state.
        // Read before loading: a commit during the load makes the next
        // refresh load again.
        let version = self.data_version()?;
        #[cfg(test)]
        {
            self.full_loads += 1;
        }
        let mut attempt = || -> Result<()> {
            let (catalog, seq, verified) = self.load_catalog(true)?;
            verified::check_catalog(&catalog, &verified, &self.keys, self.decode.edges())?;
            (self.catalog, self.seen_seq, self.verified) = (catalog, seq, verified);
            self.deltas = 0;
            self.data_version = version;
            *self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
            Ok(())
        };
        match attempt() {
            Ok(()) => Ok(()),
            Err(_) => attempt(),
        }
    }

    pub(super) fn data_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }
}
