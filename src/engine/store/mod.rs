//! The store: one repository's graph on disk, opened at an unlock level.
//!
//! # Disk exposure
//! A copy of `.gpp/` without keys shows, for a non-public node or edge, only
//! that it exists: its id, tier, version count and sizes. Names, types,
//! descriptions, properties, relations and even edge endpoints are sealed:
//!
//! - **Blobs** (`.gpp/objects/<ab>/<cdef…>`, the SHA-256 fanned out as git
//!   keeps its objects): the whole node, one file per
//!   version, AES-256-GCM under a fresh data key wrapped by the tier key.
//! - **Index** (`graph.db`): per node a sealed summary (name, type,
//!   description, status, times) under the tier's index key; per edge the
//!   whole edge sealed under the index key of the edge's tier.
//! - **Blind index**: uniqueness and exact-name lookup use
//!   `HMAC-SHA256(K_blind, name)` tokens, `K_blind` derived from the master
//!   identity. Only master-level sessions (the only writers) compute tokens;
//!   other sessions look names up in their decrypted catalog. A token reveals
//!   nothing without the key, but equal names give equal tokens, which is what
//!   makes `UNIQUE` work across tiers a session cannot read: adding a name that
//!   a human-only node holds fails with "taken by a node you cannot read".
//! - **Snapshots**: for fast opening, each tier's summaries and edges are also
//!   kept as one sealed object (under that tier's index key) as of a commit
//!   number; rows written later are applied on top. A snapshot is dropped when
//!   a node or edge enters or leaves its tier.
//! - `secure_delete` is on, and changing a node's tier re-seals its every
//!   version and edge, drops the tier snapshots involved, removes the old
//!   files and truncates the WAL, so no copy readable with a lower key stays
//!   behind in the store (a filesystem may of course keep freed blocks).
//! - An edge removed by `unlink` stays sealed, as its row was, in
//!   `unlinked` (for `undo`), re-sealed like an edge row on tier raises
//!   and key rotations.
//!
//! # Costs
//! [`Store::open`] decrypts every readable tier: CPU-heavy on large graphs
//! (about 0.3 s for 100k nodes and 500k edges on two cores, see
//! `benches/store.rs`); unlocking with a passphrase adds age's scrypt KDF
//! (about one to two seconds by design). Catalog reads are in memory;
//! [`Store::node`] reads and decrypts one blob (about 20 µs); a durable
//! single change costs one to two milliseconds.

pub(crate) mod audit_chain;
mod audit_head;
pub(crate) mod audit_merge;
pub(crate) mod blob_name;
mod bulk;
mod catalog;
mod commit_rows;
#[cfg(test)]
mod commit_rows_tests;
mod create;
mod current;
mod decisions;
mod delta;
mod edge_fold;
pub(crate) mod edge_groups;
mod edge_ids;
mod edge_table;
mod federated;
mod fresh;
mod fresh_trust;
mod id_table;
pub(crate) mod kit;
mod layout;
mod load;
pub(crate) mod manifest;
pub(crate) mod merge_conflicts;
mod migrate;
mod node_index;
pub(crate) mod objects;
mod open;
mod plan;
mod policy;
mod read_many;
mod regroup;
mod report;
mod reseal;
pub(crate) mod rotate;
pub(crate) mod rowmac;
mod saved;
pub(crate) mod schema;
mod schema_v10;
pub(crate) mod seal;
mod seal_accept;
pub(crate) mod seal_log;
mod seal_repair;
mod seal_restore;
mod seal_statement;
mod seal_tags;
pub(crate) mod seal_timeline;
mod snapshot_sign;
mod snapshots;
mod tally;
mod timeline;
pub(crate) mod timeline_pack;
mod timeline_within;
mod tokens;
mod tracked;
mod unlink;
pub(crate) mod unlinked;
mod verified;
mod wipe;
mod write;

#[cfg(test)]
mod delta_tests;
#[cfg(test)]
mod edge_groups_tests;
#[cfg(test)]
mod fresh_tests;
#[cfg(test)]
mod keyring_tests;
#[cfg(test)]
mod manifest_tests;
#[cfg(test)]
mod migrate_tests;
#[cfg(test)]
mod names_only_tests;
#[cfg(test)]
mod ops_tests;
#[cfg(test)]
mod rotate_tests;
#[cfg(test)]
mod rowmac_tests;
#[cfg(test)]
mod saved_tests;
#[cfg(test)]
mod seal_repair_tests;
#[cfg(test)]
mod seal_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod timeline_pack_tests;
#[cfg(test)]
mod wal_tests;

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use open::{Opening, Unlock};

pub use audit_chain::{AUDIT_DOMAIN, audit_chain_hash};
pub use audit_head::{AUDIT_ZERO, audit_head};
pub use bulk::{Batch, BatchResult};
pub use catalog::Catalog;
pub use fresh::{Freshness, check_without_keys, first_sight_text, rollback_text, short as short_statement};
pub use layout::{Layout, update_gitignore, write_gitignore};
pub use merge_conflicts::Conflict;
pub(crate) use merge_conflicts::ConflictRow;
pub use migrate::Migration;
pub(crate) use objects::sync_dir;
pub use objects::{Durability, Objects, blob_in_tree, tree_paths};
pub(crate) use plan::{DecisionRow, Entry, NodeWrite, Plan, RAISE_TIER};
pub use policy::{Approval, ConfigInForce};
pub use report::{StatusReport, TierCount};
pub(crate) use rotate::{key_version, marker as rotation_marker, retired_key};
pub(crate) use rowmac::TimelineRow;
pub use saved::{MAX_SAVED_QUERY_LEN, SavedQuery};
pub use schema::{LEAN_SCHEMA, SCHEMA_VERSION, UNMIGRATED_SCHEMA, count_sealings, forbid_code, meta, sealings};
pub use seal_accept::Acceptance;
pub use seal_repair::{DiffKind, Difference, Reference, SealPlan, diff_kind};
pub use seal_statement::{StatementId, statement_id};
pub use snapshots::REBUILD_AFTER;
pub use timeline::{HistoryVersion, TimelineChange, TimelineEntry};

use crate::codec;
use crate::error::{Error, Result};
#[cfg(test)]
use crate::keys::Credentials;
use crate::keys::{Keyring, Level};
use crate::model::{Edge, EdgeId, Node, NodeId, NodeSummary, Tier};

/// An open store.
pub struct Store {
    layout: Layout,
    conn: Connection,
    keys: Keyring,
    objects: Objects,
    catalog: Catalog,
    /// The commit the catalog reflects; snapshots are only built from it.
    seen_seq: u64,
    /// SQLite's count of other connections' commits when the catalog was
    /// loaded: a write that did not move the commit counter (a tool, an
    /// attacker) changes it, and the next refresh reads and verifies again.
    data_version: i64,
    /// The node rows the manifest verified, checked again on each read.
    verified: verified::VerifiedNodes,
    /// The index file this session opened (device, inode): the manifest's
    /// own connection must open the same one.
    db_file: (u64, u64),
    /// Opened by [`Store::open_to_seal`]: the store has no seal yet, and is
    /// checked against its manifest alone.
    unsealed: bool,
    /// What the open found of the store's freshness (sessions that
    /// authenticate the seal), see `fresh`.
    fresh: Option<Freshness>,
    /// `status`'s counts from the index, for the commit they were taken at
    /// (a long-lived session answers again without scanning the tables).
    counted: std::sync::Mutex<Option<report::Counted>>,
    /// Whether this session keeps what applying another process's commits
    /// row by row needs ([`Store::track_changes`]).
    track: bool,
    /// How much of each record the catalog holds: short of the whole
    /// ([`Store::open_names_only`], [`Store::open_node_names`]), the store
    /// writes nothing.
    decode: crate::codec::Decode,
    /// Commits applied row by row since the last full check.
    deltas: u32,
    /// Full loads of the catalog so far (tests of what a refresh read).
    #[cfg(test)]
    full_loads: u32,
    #[cfg(test)]
    fault: Option<&'static str>,
}

impl Store {
    /// For a process about to exit: the catalog is not freed object by
    /// object when the store drops (tens of milliseconds at 100k nodes) but
    /// goes back with the process. Freeing would not wipe it either. The
    /// store then holds an empty catalog.
    pub fn leave_catalog_to_exit(&mut self) {
        std::mem::forget(std::mem::take(&mut self.catalog));
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.fold_wal();
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({}, {})", self.layout.root().display(), self.keys.level())
    }
}

impl Store {
    /// Checks every history and timeline row against the master's MAC
    /// (master level; `doctor`).
    pub fn check_history(&self) -> Result<()> {
        rowmac::check_all(&self.conn, &self.keys)?;
        if self.unsealed {
            // No statement to check the timeline against (see `doctor`).
            return Ok(());
        }
        seal::check_timeline(&self.conn, &self.keys)
    }

    /// Checks every decision row's signature by the master (a session that
    /// holds the master's verifying key); returns how many there are.
    pub fn check_decision_signatures(&self) -> Result<usize> {
        let sigs: std::collections::HashMap<String, Option<Vec<u8>>> = self
            .conn
            .prepare("SELECT proposal, sig FROM decisions")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let rows = seal::decision_rows(&self.conn, None)?;
        for d in &rows {
            let sig = sigs.get(&d.proposal).and_then(|s| s.as_deref());
            seal::check_decision(&self.keys, d, sig)?;
        }
        Ok(rows.len())
    }

    /// The timeline rows of commit `commit`, each checked against its MAC.
    pub(crate) fn commit_rows(&self, commit: i64) -> Result<Vec<rowmac::TimelineRow>> {
        rowmac::commit_rows(&self.conn, &self.keys, commit)
    }

    /// The edge `unlink` removed as `id`, kept sealed for undo.
    pub(crate) fn unlinked_edge(&self, id: &EdgeId) -> Result<Edge> {
        unlinked::read(&self.conn, &self.keys, id)?.ok_or_else(|| unlinked::missing(id))
    }

    /// The timeline rows up to row `seq`, each checked against its MAC
    /// (master level; below it, as stored).
    pub(crate) fn timeline_rows_through(&self, seq: i64) -> Result<Vec<rowmac::TimelineRow>> {
        rowmac::rows_through(&self.conn, &self.keys, seq)
    }

    /// Checks the timeline rows against the master's seal (master level; a
    /// full scan of the timeline): before an operation that relies on what
    /// the timeline says.
    pub(crate) fn check_timeline_sealed(&self) -> Result<()> {
        seal::check_timeline(&self.conn, &self.keys)
    }

    /// Checks that the audit log still holds the record the master's seal
    /// names (when this session can authenticate the seal).
    pub(crate) fn check_sealed_audit(&self) -> Result<()> {
        if self.unsealed {
            return Ok(());
        }
        seal::check_audit_of(&self.conn, &self.keys)
    }

    /// Moves the master's seal to the audit log's newest record, inside an
    /// append's transaction (master level; otherwise nothing).
    pub(crate) fn seal_audit_head(tx: &Connection, keys: &Keyring) -> Result<()> {
        seal::seal_audit_head(tx, keys)
    }

    /// Runs the mutation `f`, and when another process committed between
    /// this session's last read and `f`'s commit ([`Error::Stale`]: the
    /// plan was made from a graph that is no longer current), reloads and
    /// runs it again, a few times. Concurrent writers (consoles, the CLI,
    /// the MCP server) then each land their change; none is lost and none
    /// sees a lock or staleness error for a race it did not cause.
    pub fn retrying<T>(&mut self, mut f: impl FnMut(&mut Store) -> Result<T>) -> Result<T> {
        const ATTEMPTS: usize = 8;
        for _ in 1..ATTEMPTS {
            match f(self) {
                Err(Error::Stale) => {
                    self.refresh()?;
                }
                other => return other,
            }
        }
        f(self)
    }

    /// The last commit this session has read or written: whatever this
    /// session derives from the graph (lints, previews) holds while it is
    /// unchanged.
    pub fn seen_seq(&self) -> u64 {
        self.seen_seq
    }

    /// The blob files (operations that rewrite them whole: a key rotation).
    pub(crate) fn objects(&self) -> &Objects {
        &self.objects
    }

    /// The keyring, to swap a tier key (a key rotation).
    pub(crate) fn keys_mut(&mut self) -> &mut Keyring {
        &mut self.keys
    }

    /// The keyring, the connection and the blob files at once, for a key
    /// rotation's transaction (their borrows are separate).
    pub(crate) fn rekey_parts(&mut self) -> (&mut Keyring, &mut Connection, &Objects) {
        (&mut self.keys, &mut self.conn, &self.objects)
    }

    /// Records that this session's catalog reflects commit `seq` (after an
    /// operation's own commit).
    pub(crate) fn set_seen_seq(&mut self, seq: u64) {
        self.seen_seq = seq;
        // The commit was not recorded row by row: the next refresh after
        // another process's commit reads in full (and tracks again).
        self.verified.tracked = None;
    }

    /// The index connection (engine modules that keep their own tables).
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The keyring and the connection at once (their borrows are separate).
    pub(crate) fn keys_and_conn(&mut self) -> (&Keyring, &mut Connection) {
        (&self.keys, &mut self.conn)
    }

    /// The unlock level of this session.
    pub fn level(&self) -> Level {
        self.keys.level()
    }

    /// The store's paths.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The keyring (for exporting identities).
    pub fn keys(&self) -> &Keyring {
        &self.keys
    }

    /// Everything this session can read, in memory.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The summary of the node `name`, or `NotFound` (also for unreadable nodes).
    pub fn summary(&self, name: &str) -> Result<&NodeSummary> {
        self.catalog
            .by_name(name)
            .ok_or_else(|| Error::NotFound(name.to_owned()))
    }

    /// The full current version of the node `name`, read from its blob.
    pub fn node(&self, name: &str) -> Result<Node> {
        let id = self.summary(name)?.id;
        self.node_by_id(&id)
    }

    /// The full current version of node `id`, checked against the index.
    pub fn node_by_id(&self, id: &NodeId) -> Result<Node> {
        self.checked_row(id)
            .and_then(|row| row.open(&self.keys, &self.objects))
            .map_err(|e| self.rotated_or(e))
    }

    /// `e`, or [`Error::KeyRotated`] when a key this session holds was
    /// rotated by another process since: rows it can no longer read are
    /// not tampering.
    fn rotated_or(&self, e: Error) -> Error {
        match (&e, rotate::retired_key(&self.conn, &self.keys)) {
            (Error::Integrity { .. }, Ok(Some(tier))) => Error::KeyRotated(tier),
            _ => e,
        }
    }

    /// Version `version` of node `id`, from its history.
    pub fn node_version(&self, id: &NodeId, version: u64) -> Result<Node> {
        let (tier, hash, mac): (i64, String, Option<Vec<u8>>) = self
            .conn
            .prepare_cached(&format!(
                "SELECT tier, {}, mac FROM node_versions WHERE node_id = ?1 AND version = ?2",
                blob_name::BLOB_NAME
            ))?
            .query_row(rusqlite::params![id.as_bytes().as_slice(), sql_version(version)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("{id} version {version}")))?;
        rowmac::check_version(&self.keys, id, sql_version(version), tier, &hash, mac.as_deref())?;
        codec::decode_node(&self.keys, id, version, row_tier(tier)?, &self.objects.read(&hash)?)
            .map_err(|e| self.rotated_or(e))
    }

    /// A `Locked` error unless this session can write (master level).
    pub(crate) fn require_writer(&self, action: &str) -> Result<()> {
        self.refuse_if_names_only(action)?;
        if self.keys.level() >= Level::Master {
            self.refuse_if_rolled_back(action)
        } else {
            Err(self.keys.needs(Level::Master, action))
        }
    }

    /// A store opened for names (and edges) writes nothing: its catalog
    /// lacks what a write may carry over (descriptions, properties, edges).
    pub(crate) fn refuse_if_names_only(&self, action: &str) -> Result<()> {
        let opened = match self.decode {
            crate::codec::Decode::Whole => return Ok(()),
            crate::codec::Decode::Names => "names and edges only (Store::open_names_only)",
            crate::codec::Decode::NodeNames => "node names only (Store::open_node_names)",
        };
        Err(Error::invalid(
            "write",
            action,
            format!("this store was opened to read {opened}"),
        ))
    }

    /// Flushes the WAL into the database and truncates it to zero bytes, so
    /// no older page images stay in the `-wal` file. Returns false when a
    /// reader in another process kept it from completing.
    pub fn checkpoint(&self) -> Result<bool> {
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        Ok(busy == 0)
    }

    /// [`Store::checkpoint`] when the log holds anything (a look at its
    /// size first: cheap enough to call after every request of a
    /// long-lived session). Returns false when a reader kept it from
    /// completing; the log is then at least folded into graph.db.
    pub fn empty_the_log(&self) -> bool {
        let wal = self.layout.db().with_extension("db-wal");
        if std::fs::metadata(&wal).map_or(true, |m| m.len() == 0) {
            return true;
        }
        if self.checkpoint().unwrap_or(false) {
            return true;
        }
        self.fold_wal();
        // A reader kept the checkpoint from folding everything: the log
        // itself is made durable (commits are not synced one by one after
        // `sync_commits_with_the_log`).
        let _ = std::fs::File::open(&wal).and_then(|f| f.sync_all());
        false
    }

    /// For a long-lived session that runs [`Store::empty_the_log`] after
    /// each request and before it answers: its commits are no longer synced
    /// one by one (SQLite's `synchronous = NORMAL` in WAL mode), since the
    /// checkpoint syncs the log before it copies it into graph.db and syncs
    /// graph.db after. A commit is as durable as before by the time anyone
    /// hears of it; two fewer syncs a request.
    pub fn sync_commits_with_the_log(&self) -> Result<()> {
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    }

    /// Folds the WAL into graph.db without waiting for anyone: what this
    /// session committed is in the file git reads even while another
    /// process (an unlock session, the console) keeps the store open, which
    /// keeps SQLite from folding it when this one closes.
    pub fn fold_wal(&self) {
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0));
    }

    /// Checkpoints after old content was replaced, retrying briefly while
    /// other processes read; if it still cannot finish, records that a purge
    /// is owed so the next session to open the store completes it.
    pub(crate) fn purge_wal(&self) {
        for _ in 0..20 {
            if self.checkpoint().unwrap_or(false) {
                let _ = self.conn.execute("DELETE FROM meta WHERE key = 'purge_owed'", []);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let _ = self.conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_owed', '1')",
            [],
        );
    }
}

/// A file's identity: device and inode.
fn file_id(path: &Path) -> Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let m = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    Ok((m.dev(), m.ino()))
}

/// Borrows a BLOB column without copying it.
pub(crate) fn blob<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r [u8]> {
    row.get_ref(i)?
        .as_blob()
        .map_err(|_| Error::integrity("index row", format!("column {i} is not a blob")))
}

pub(crate) fn row_tier(code: i64) -> Result<Tier> {
    Tier::from_code(code).ok_or_else(|| Error::integrity("index row", format!("unknown tier code {code}")))
}

pub(crate) fn row_version(v: i64) -> Result<u64> {
    u64::try_from(v).map_err(|_| Error::integrity("index row", format!("negative version {v}")))
}

/// A version as SQLite stores it (versions never approach `i64::MAX`).
pub(crate) fn sql_version(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(crate) fn uuid_from(bytes: &[u8]) -> Result<uuid::Uuid> {
    uuid::Uuid::from_slice(bytes).map_err(|_| Error::integrity("index row", "malformed id"))
}

pub(crate) fn row_node_id(bytes: &[u8]) -> Result<NodeId> {
    uuid_from(bytes).map(NodeId)
}

pub(crate) fn row_edge_id(bytes: &[u8]) -> Result<EdgeId> {
    uuid_from(bytes).map(EdgeId)
}
