//! The copy of the newest store this machine saw at the master level, kept
//! so that a store put back (by git, or by an edit of graph.db in place:
//! `sqlite3`, `cp` over the file) can be restored even when git never held
//! the newer one.
//!
//! It is a real copy: made with SQLite's online backup (so it holds what
//! the write-ahead log holds too) into a 0600 file in the private state
//! directory, then renamed over the last one. A file beside it names the
//! seal it holds, so an open of an unchanged store copies nothing, and
//! nothing written to graph.db reaches it. A copy costs about a second per
//! 600 MB. It is made after each master commit and at an open that finds
//! the store fresh (once per seal). Only an unlock session, whose commits
//! must stay fast, links a graph.db larger than [`COPY_WITHIN`] at once
//! (a link keeps the newer file when git replaces it, but not when it is
//! edited in place) and copies it when idle ([`copy_owed`]).

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

/// The largest graph.db copied at every commit (larger ones are linked,
/// then copied by an idle unlock session).
pub const COPY_WITHIN: u64 = 64 << 20;

/// Whether the backup holds the seal `statement` (hex) already.
pub fn backup_holds(state: &Path, root: &Path, statement: &str) -> bool {
    backup_path(state, root).is_file()
        && std::fs::read_to_string(holds_path(state, root)).is_ok_and(|s| s.trim() == statement)
}

/// Whether the backup of a store whose seal is `statement` is still owed a
/// copy (it is none, or a link).
pub fn copy_owed(state: &Path, root: &Path, statement: &str) -> bool {
    !backup_holds(state, root, statement)
}

/// Keeps a backup of the store open on `conn` at `db` (whose seal is
/// `statement`, hex), unless the backup holds that seal already: a copy
/// when graph.db is small or `force_copy` asks for one, else a link. Returns
/// whether a backup of it is kept.
pub fn keep_backup(state: &Path, root: &Path, conn: &Connection, db: &Path, statement: &str, force_copy: bool) -> bool {
    keep_within(state, root, conn, db, statement, force_copy, COPY_WITHIN)
}

fn keep_within(
    state: &Path,
    root: &Path,
    conn: &Connection,
    db: &Path,
    statement: &str,
    force_copy: bool,
    within: u64,
) -> bool {
    if backup_holds(state, root, statement) {
        return true;
    }
    if private_dir(&dir(state)).is_err() {
        return false;
    }
    let small = std::fs::metadata(db).is_ok_and(|m| m.len() <= within);
    if !force_copy && !small {
        return link(state, root, db);
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

/// Makes the backup a hard link to `db` (no seal file beside it: a copy
/// is still owed).
fn link(state: &Path, root: &Path, db: &Path) -> bool {
    let path = backup_path(state, root);
    let _ = std::fs::remove_file(holds_path(state, root));
    let tmp = path.with_extension(format!("link{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(db, &tmp).is_err() {
        return false;
    }
    // Renaming one link of a file over another link of it does nothing:
    // the temporary name goes in any case.
    let linked = std::fs::rename(&tmp, &path).is_ok();
    let _ = std::fs::remove_file(&tmp);
    linked
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

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt as _;

    use super::*;

    #[test]
    fn a_small_store_is_copied_a_large_one_linked_then_copied_and_an_edit_in_place_never_reaches_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let (state, root) = (dir.path().join("state"), dir.path().join("repo"));
        std::fs::create_dir_all(&root).unwrap();
        let db = root.join("graph.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES ('newer');")
            .unwrap();
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let backup = backup_path(&state, &root);
        // Large (over the limit): a link at once, a copy still owed; linked
        // again, nothing is left beside it.
        assert!(keep_within(&state, &root, &conn, &db, "s1", false, 1));
        assert!(keep_within(&state, &root, &conn, &db, "s1", false, 1));
        assert_eq!(ino(&backup), ino(&db));
        assert!(copy_owed(&state, &root, "s1"));
        assert_eq!(
            std::fs::read_dir(state.join("freshness")).unwrap().count(),
            1,
            "the link alone"
        );
        // Copied when asked (an idle session): no longer the same file.
        assert!(keep_within(&state, &root, &conn, &db, "s1", true, 1));
        assert_ne!(ino(&backup), ino(&db));
        assert!(!copy_owed(&state, &root, "s1"));
        // An edit in place of graph.db does not reach the copy.
        conn.execute("UPDATE t SET x = 'older'", []).unwrap();
        let kept = Connection::open(&backup).unwrap();
        let x: String = kept.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(x, "newer");
        assert_eq!(std::fs::metadata(&backup).unwrap().mode() & 0o777, 0o600);
        // Small: copied at once.
        assert!(keep_within(&state, &root, &conn, &db, "s2", false, u64::MAX));
        assert!(!copy_owed(&state, &root, "s2"));
        assert_ne!(ino(&backup), ino(&db));
    }
}
