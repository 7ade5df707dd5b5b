//! Where things live in a repository: `.gpp/graphex/` for the index, keys and
//! pending proposals, `.gpp/objects/` for node blobs.

use std::path::{Path, PathBuf};

use crate::keys::KeyPaths;

/// The paths of one store, from the repository root that holds `.gpp/`.
#[derive(Clone, Debug)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// The layout under repository root `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Walks up from `start` to the first directory holding `.gpp/graphex`.
    pub fn discover(start: &Path) -> Option<Self> {
        start
            .ancestors()
            .find(|dir| dir.join(".gpp").join("graphex").join("graph.db").is_file())
            .map(Self::new)
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `.gpp/`
    pub fn gpp(&self) -> PathBuf {
        self.root.join(".gpp")
    }
    /// `.gpp/graphex/`
    pub fn graphex(&self) -> PathBuf {
        self.gpp().join("graphex")
    }
    /// `.gpp/graphex/graph.db`
    pub fn db(&self) -> PathBuf {
        self.graphex().join("graph.db")
    }
    /// `.gpp/graphex/keys/`
    pub fn keys(&self) -> KeyPaths {
        KeyPaths::new(self.graphex().join("keys"))
    }
    /// `.gpp/graphex/pending/`
    pub fn pending(&self) -> PathBuf {
        self.graphex().join("pending")
    }
    /// `.gpp/objects/`
    pub fn objects(&self) -> PathBuf {
        self.gpp().join("objects")
    }
}

/// What git must not track in a store: SQLite's write-ahead log and shared
/// memory while a process has the store open (each command folds the log
/// into `graph.db` when it closes), the rotation lock, the temporary
/// files of writes under way, and federation bundles (decrypted content).
pub const GITIGNORE: &str = "\
# Graphex: files of a store in use, never part of it (graph.db holds
# everything once the last process closes it).
graphex/graph.db-wal
graphex/graph.db-shm
graphex/graph.db-journal
graphex/keys/.rotation.lock
graphex/keys/.*.tmp
graphex/.merge-*/
objects/.tmp-*
# Federation bundles hold decrypted content: shared on purpose, never committed.
graphex/federation/out/
";

/// Writes `.gpp/.gitignore` when there is none (a user's own is left as it is).
pub fn write_gitignore(layout: &Layout) -> crate::error::Result<()> {
    let path = layout.gpp().join(".gitignore");
    if path.exists() {
        return Ok(());
    }
    std::fs::write(&path, GITIGNORE).map_err(|e| crate::error::Error::io(&path, e))
}
