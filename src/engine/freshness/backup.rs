//! The copy of the newest store this machine saw, kept so that a store put
//! back by git can be restored even when git never held the newer one.
//!
//! It is a hard link to `graph.db` where the state directory is on the same
//! file system: free, and since git replaces a file it checks out (a new
//! file, not a rewrite), the link keeps the newer content when an older
//! file takes its place. Elsewhere there is no backup and restoring relies
//! on git (`graphex freshness` says which).

use std::path::{Path, PathBuf};

use super::record::{private_dir, work_tree_key};

fn dir(state: &Path) -> PathBuf {
    state.join("freshness")
}

/// The backup of the work tree at `root`.
pub fn backup_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db", work_tree_key(root)))
}

/// Where a store set aside by a restore goes: never deleted.
pub fn aside_path(state: &Path, root: &Path, at: i64) -> PathBuf {
    dir(state).join(format!("{}-aside-{at}.db", work_tree_key(root)))
}

/// Makes the backup a link to `db` unless it is one already; returns
/// whether a backup is kept (false across file systems).
pub fn keep_backup(state: &Path, root: &Path, db: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let path = backup_path(state, root);
    let same = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    };
    if same(&path, db) {
        return true;
    }
    if private_dir(&dir(state)).is_err() {
        return false;
    }
    let tmp = path.with_extension(format!("link{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(db, &tmp).is_err() {
        return false;
    }
    std::fs::rename(&tmp, &path).is_ok() || {
        let _ = std::fs::remove_file(&tmp);
        false
    }
}
