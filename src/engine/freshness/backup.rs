//! The copy of the newest store this machine saw at the master level, kept
//! so that a store put back (by git, or by an edit of graph.db in place:
//! `sqlite3`, `cp` over the file) can be restored even when git never held
//! the newer one.
//!
//! It is a real copy, never a link: made with SQLite's online backup (so it
//! holds what the write-ahead log holds too) into a 0600 file in the
//! private state directory, then renamed over the last one, after each
//! master commit and at an open that finds the store fresh. A file beside
//! it names the seal it holds, so an open of an unchanged store copies
//! nothing. Nothing written to graph.db reaches it.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::record::{private_dir, scoped_key, work_tree_key, write_private};

fn dir(state: &Path) -> PathBuf {
    state.join("freshness")
}

/// The backup of the work tree at `root`, for the line of history checked
/// out (each branch keeps its own newest graph).
pub fn backup_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db", scoped_key(root)))
}

/// The file naming the seal the backup holds.
fn holds_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db.seal", scoped_key(root)))
}

/// Where a store set aside by a restore goes: never deleted.
pub fn aside_path(state: &Path, root: &Path, at: i64) -> PathBuf {
    dir(state).join(format!("{}-aside-{at}.db", work_tree_key(root)))
}

/// Whether the backup holds the seal `statement` (hex) already.
pub fn backup_holds(state: &Path, root: &Path, statement: &str) -> bool {
    backup_path(state, root).is_file()
        && std::fs::read_to_string(holds_path(state, root)).is_ok_and(|s| s.trim() == statement)
}

/// Copies the store open on `conn` (whose seal is `statement`, hex) to the
/// backup, unless the backup holds that seal already; returns whether a
/// backup of it is kept.
pub fn keep_backup(state: &Path, root: &Path, conn: &Connection, statement: &str) -> bool {
    if backup_holds(state, root, statement) {
        return true;
    }
    if private_dir(&dir(state)).is_err() {
        return false;
    }
    let path = backup_path(state, root);
    let tmp = path.with_extension(format!("copy{}", std::process::id()));
    let copied = copy(conn, &tmp).is_ok() && std::fs::rename(&tmp, &path).is_ok();
    if !copied {
        let _ = std::fs::remove_file(&tmp);
        return false;
    }
    write_private(&holds_path(state, root), statement.as_bytes()).is_ok()
}

/// SQLite's online backup of `conn` into a new 0600 file at `to`.
fn copy(conn: &Connection, to: &Path) -> rusqlite::Result<()> {
    let _ = std::fs::remove_file(to);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let mut dst = Connection::open(to)?;
    rusqlite::backup::Backup::new(conn, &mut dst)?.run_to_completion(4096, std::time::Duration::ZERO, None)?;
    // One file, no log beside it.
    dst.pragma_update(None, "journal_mode", "DELETE")?;
    Ok(())
}
