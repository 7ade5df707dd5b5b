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

    /// Where blob `hash` is written: `.gpp/objects/ab/cdef…` (an older
    /// version's flat `objects/abcdef…` is read too, see `Objects`).
    pub fn blob(&self, hash: &str) -> PathBuf {
        super::objects::fanned_path(&self.objects(), hash)
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

/// Writes `.gpp/.gitignore` when there is none (a user's own is left as
/// it is; [`update_gitignore`] adds what it lacks).
pub fn write_gitignore(layout: &Layout) -> crate::error::Result<()> {
    let path = layout.gpp().join(".gitignore");
    if path.exists() {
        return Ok(());
    }
    std::fs::write(&path, GITIGNORE).map_err(|e| crate::error::Error::io(&path, e))
}

/// The patterns of [`GITIGNORE`] (its lines but comments and blanks).
fn gitignore_patterns() -> impl Iterator<Item = &'static str> {
    GITIGNORE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Brings `.gpp/.gitignore` up to date: writes it whole when there is none,
/// else appends the patterns of [`GITIGNORE`] it lacks (a store made before
/// federation lacks `graphex/federation/out/`, one made before merges
/// `graphex/.merge-*/`), never removing or reordering the user's lines.
/// Returns the patterns added (empty when none was missing).
pub fn update_gitignore(layout: &Layout) -> crate::error::Result<Vec<String>> {
    let path = layout.gpp().join(".gitignore");
    let io = |e| crate::error::Error::io(&path, e);
    let current = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(&path, GITIGNORE).map_err(io)?;
            return Ok(gitignore_patterns().map(str::to_owned).collect());
        }
        Err(e) => return Err(io(e)),
    };
    let present: std::collections::HashSet<&str> = current.lines().map(str::trim).collect();
    let missing: Vec<String> = gitignore_patterns()
        .filter(|p| !present.contains(p))
        .map(str::to_owned)
        .collect();
    if missing.is_empty() {
        return Ok(missing);
    }
    let mut text = current.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# Added by Graphex: files of a store in use or shared on purpose, never part of it.\n");
    for p in &missing {
        text.push_str(p);
        text.push('\n');
    }
    std::fs::write(&path, text).map_err(io)?;
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_gitignore_adds_the_federation_and_merge_lines_an_older_store_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(layout.gpp()).unwrap();
        let path = layout.gpp().join(".gitignore");
        // None yet: written whole.
        let added = update_gitignore(&layout).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), GITIGNORE);
        assert!(added.contains(&"graphex/federation/out/".to_owned()), "{added:?}");
        assert!(update_gitignore(&layout).unwrap().is_empty(), "up to date");
        // A store's from before merges and federation, with a line of the user's.
        let old: String = GITIGNORE
            .lines()
            .filter(|l| !l.contains("federation") && !l.contains(".merge-") && !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            + "my-own-file";
        std::fs::write(&path, &old).unwrap();
        let added = update_gitignore(&layout).unwrap();
        assert_eq!(added, ["graphex/.merge-*/", "graphex/federation/out/"]);
        let now = std::fs::read_to_string(&path).unwrap();
        assert!(now.starts_with(&format!("{old}\n")), "the user's lines kept: {now}");
        assert!(now.ends_with("graphex/.merge-*/\ngraphex/federation/out/\n"), "{now}");
        assert!(update_gitignore(&layout).unwrap().is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), now);
        // write_gitignore leaves an existing file alone.
        write_gitignore(&layout).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), now);
    }
}
