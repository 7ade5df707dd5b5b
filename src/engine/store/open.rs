//! Opening a store: the constructors for each way of opening it, the
//! checks every open makes before and after reading (another tool's file,
//! an empty or damaged one, a rotation in progress, a retired key), and
//! what the keys are unlocked with.

use std::path::Path;

use rusqlite::Connection;

use super::{Catalog, Layout, Objects, Store, file_id, rotate, schema, verified};
use crate::codec::Decode;
use crate::error::{Error, Result};
use crate::keys::{Credentials, Keyring};

/// How a store is opened (see the constructors).
#[derive(Clone, Copy, Default)]
pub(super) struct Opening<'a> {
    /// No seal yet: checked against the manifest alone ([`Store::open_to_seal`]).
    pub(super) unsealed: bool,
    /// Keeps what applying other processes' commits row by row needs.
    pub(super) track: bool,
    /// How much of each record is decoded (anything short of the whole:
    /// no writes).
    pub(super) decode: Decode,
    /// A past state of the store, copied out of git to be read: verified as
    /// any open, but it is older than the store on purpose, so its freshness
    /// is neither checked nor remembered.
    pub(super) snapshot: bool,
    /// Where blobs the store's own directory lacks are read from (a
    /// snapshot's: the work tree's).
    pub(super) blobs: Option<&'a Path>,
}

/// Why another tool's `graph.db` is refused, and how to move its graph:
/// gpp-cli (0.1) has no export command, so the way out is its own read
/// commands turned into node-link JSON, one file per tier.
const FOREIGN_DB: &str = "not a Graphex store: it holds another tool's tables (gpp-cli keeps its own graph.db at \
     this path), and nothing was written to it. gpp-cli has no export command; to move its graph, read it with \
     `gpp graphex list`, `gpp graphex show NAME` and `gpp --json graphex query 'NAME -> * -> *'`, write one \
     node-link JSON file per tier ({\"nodes\": [{\"id\", \"type\", \"description\"}], \"links\": \
     [{\"source\", \"target\", \"relation\"}]}), make a Graphex store in another directory with \
     `graphex init DIR`, and import the files lowest tier first with \
     `graphex --repo DIR import FILE --format node-link --tier TIER` (docs/cli.md: Import and export)";

impl Store {
    /// Opens the store under `root` with whatever `creds` unlock.
    pub fn open(root: &Path, creds: &Credentials) -> Result<Store> {
        Self::open_checked(root, Unlock::Creds(creds), Opening::default())
    }

    /// [`Store::open`] for a command that prints no description and no
    /// property (`status`, `path`, `neighbors`, the text of `query`): its
    /// catalog's summaries keep names, types, tiers, status, confidence and
    /// times, and leave descriptions and properties undecoded (empty). It is
    /// verified as any open; it writes nothing.
    pub fn open_names_only(root: &Path, creds: &Credentials) -> Result<Store> {
        let how = Opening {
            decode: Decode::Names,
            ..Opening::default()
        };
        Self::open_checked(root, Unlock::Creds(creds), how)
    }

    /// [`Store::open_names_only`] for a command that prints counts and node
    /// names but no edge (`status`): its catalog holds no edge at all (the
    /// index's edge rows are still read, counted and verified, and every
    /// snapshot authenticated whole). Nothing that follows edges may use
    /// it; it writes nothing.
    pub fn open_node_names(root: &Path, creds: &Credentials) -> Result<Store> {
        let how = Opening {
            decode: Decode::NodeNames,
            ..Opening::default()
        };
        Self::open_checked(root, Unlock::Creds(creds), how)
    }

    /// [`Store::open`] for a session that lives across commands and keeps
    /// what applying other processes' commits row by row needs (see
    /// [`Store::track_changes`]).
    pub fn open_tracking(root: &Path, creds: &Credentials) -> Result<Store> {
        let how = Opening {
            track: true,
            ..Opening::default()
        };
        Self::open_checked(root, Unlock::Creds(creds), how)
    }

    /// Opens the store with a master key another open of it in this
    /// process lent ([`Store::lend_key`]): at the master level (human-only
    /// is never lent), read and verified as any open, without the
    /// passphrase's KDF.
    pub fn open_lent(root: &Path, key: &crate::keys::LentKey) -> Result<Store> {
        Self::open_checked(root, Unlock::Lent(key), Opening::default())
    }

    /// The master key this store was opened with, for [`Store::open_lent`]
    /// in this process; `None` below the master level.
    pub fn lend_key(&self) -> Option<crate::keys::LentKey> {
        self.keys.lend()
    }

    /// Opens a past state of a store (a git revision copied into a private
    /// directory) to read it: verified as any open; its freshness is not
    /// checked against the store's record nor written to it, and nothing
    /// left owed (a tier raise's wipe) is finished. Nothing should write
    /// to it.
    /// `blobs`: where the blobs its own directory lacks are read from (the
    /// store's own directory: a past state's blobs are mostly there).
    pub fn open_snapshot(root: &Path, creds: &Credentials, blobs: Option<&Path>) -> Result<Store> {
        let how = Opening {
            snapshot: true,
            blobs,
            ..Opening::default()
        };
        Self::open_checked(root, Unlock::Creds(creds), how)
    }

    /// Opens a store that has no master's seal (made by an earlier version,
    /// or its seal was removed) at the master level, checked against its
    /// manifest alone, for [`Store::seal`]. Nothing else should use it.
    pub fn open_to_seal(root: &Path, creds: &Credentials) -> Result<Store> {
        let how = Opening {
            unsealed: true,
            ..Opening::default()
        };
        let store = Self::open_checked(root, Unlock::Creds(creds), how)?;
        store.require_writer("sealing the store")?;
        Ok(store)
    }

    pub(super) fn open_checked(root: &Path, unlock: Unlock<'_>, how: Opening<'_>) -> Result<Store> {
        let layout = Layout::new(root);
        if !layout.db().is_file() {
            return Err(Error::NoStore(root.to_owned()));
        }
        // SQLite would take an empty file for a new database and write a
        // schema into it: an index truncated to nothing is refused instead.
        if std::fs::metadata(layout.db()).is_ok_and(|m| m.len() == 0) {
            return Err(Error::integrity(
                "graph.db",
                "the file is empty (0 bytes): not a Graphex index; restore it from git or a backup",
            ));
        }
        // Opened read-only first: a database of another tool is refused
        // before a byte is written to it.
        // (A probe that cannot open goes on to the ordinary open and its errors.)
        let probe = Connection::open_with_flags(layout.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok();
        if let Some(probe) = &probe
            && schema::foreign(probe).unwrap_or(false)
        {
            return Err(Error::integrity("graph.db", FOREIGN_DB));
        }
        // Nor does a trigger or view written into it ever run. (A file that
        // is no database at all is named by the open below.)
        if let Some(probe) = &probe
            && let Err(e @ Error::Integrity { .. }) = schema::refuse_code(probe)
        {
            return Err(e);
        }
        // Git keeps no empty directory: a fresh clone has none for blobs or
        // proposals yet. Made here when they are missing (never an error:
        // a read-only checkout still opens for reading).
        for dir in [layout.objects(), layout.pending()] {
            if !dir.exists() {
                let _ = std::fs::create_dir_all(&dir);
            }
        }
        let mut conn = Connection::open(layout.db())?;
        let db_file = file_id(&layout.db())?;
        let damaged = |e: Error| match e {
            Error::Db(rusqlite::Error::SqliteFailure(f, _))
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt
                ) =>
            {
                Error::integrity(
                    "graph.db",
                    "not a readable SQLite database (damaged, or not a Graphex store)",
                )
            }
            other => other,
        };
        schema::configure(&conn).map_err(damaged)?;
        schema::migrate(&mut conn).map_err(damaged)?;
        let keys = match unlock_current(&conn, &layout, unlock) {
            // A rotation in another process may be between its commit and
            // its renames: wait for it to finish, then look again. What
            // still fails is what it says.
            Err(e @ (Error::KeyringForged { .. } | Error::KeyRetired { .. } | Error::Rotation(_))) => {
                match crate::keys::rotation::lock(&layout.keys(), true) {
                    Ok(lock) => {
                        drop(lock);
                        unlock_current(&conn, &layout, unlock)?
                    }
                    Err(_) => return Err(e),
                }
            }
            other => other?,
        };
        let objects = match how.blobs {
            Some(other) => Objects::with_fallback(layout.objects(), other.to_owned()),
            None => Objects::new(layout.objects()),
        };
        let mut store = Store {
            layout,
            conn,
            keys,
            objects,
            catalog: Catalog::default(),
            seen_seq: 0,
            data_version: -1,
            verified: verified::VerifiedNodes::new(),
            db_file,
            unsealed: how.unsealed,
            fresh: None,
            counted: std::sync::Mutex::default(),
            track: how.track,
            decode: how.decode,
            deltas: 0,
            #[cfg(test)]
            full_loads: 0,
            #[cfg(test)]
            fault: None,
        };
        store.load_verified()?;
        if !how.unsealed && !how.snapshot && store.keys.verifier().is_some() {
            store.check_fresh();
        }
        // A past state is read, never repaired: its blobs may be the
        // store's own (a textconv reads them in place).
        if how.snapshot {
            return Ok(store);
        }
        // A tier raise that crashed after its commit left old copies.
        if store.finish_wipe(true)? > 0 {
            store.purge_wal();
        }
        if schema::meta(&store.conn, "purge_owed")?.is_some() {
            store.purge_wal();
        }
        Ok(store)
    }
}

/// Unlocks the keys as they are after any committed rotation: its key files
/// are moved into place first, and a key the index has retired is refused.
fn unlock_current(conn: &Connection, layout: &Layout, unlock: Unlock<'_>) -> Result<Keyring> {
    rotate::finish_files(conn, &layout.keys())?;
    let keys = match unlock {
        Unlock::Creds(creds) => Keyring::unlock(&layout.keys(), creds)?,
        Unlock::Created(created) => Keyring::unlock_created(&layout.keys(), created)?,
        Unlock::Lent(key) => Keyring::unlock_lent(&layout.keys(), key)?,
    };
    rotate::clear_marker(conn, &keys, &layout.keys())?;
    if let Some(tier) = rotate::retired_key(conn, &keys)? {
        return Err(Error::KeyRetired {
            tier,
            file: layout.keys().tier(tier).display().to_string(),
            current: rotate::key_version(conn, tier)?,
        });
    }
    Ok(keys)
}

/// What a session unlocks the store with.
#[derive(Clone, Copy)]
pub(super) enum Unlock<'a> {
    /// What the user offered.
    Creds(&'a Credentials),
    /// The secrets of the store this process just created (`create`).
    Created(&'a crate::keys::Created),
    /// A master key another open lent ([`Store::lend_key`]).
    Lent(&'a crate::keys::LentKey),
}
