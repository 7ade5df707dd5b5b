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
