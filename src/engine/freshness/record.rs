//! The freshness record: one small JSON file per work tree and kind of
//! session, under the user's state directory, 0600 in 0700 directories,
//! written atomically (a temporary file renamed over the old one).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The environment variable that moves the state directory (tests, or a
/// user who keeps it elsewhere).
pub const ENV_STATE_DIR: &str = "GRAPHEX_STATE_DIR";

/// Where this user's Graphex state lives: `$GRAPHEX_STATE_DIR`, else
/// `$XDG_STATE_HOME/graphex`, else `~/.local/state/graphex`; `None` when
/// none can be found (no home).
pub fn state_dir() -> Option<PathBuf> {
    // Unit tests never write to the user's own state directory.
    #[cfg(test)]
    if std::env::var_os(ENV_STATE_DIR).is_none() {
        return Some(std::env::temp_dir().join("graphex-engine-test-state"));
    }
    let non_empty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(dir) = non_empty(ENV_STATE_DIR) {
        return Some(dir);
    }
    if let Some(xdg) = non_empty("XDG_STATE_HOME") {
        return Some(xdg.join("graphex"));
    }
    non_empty("HOME").map(|h| h.join(".local/state/graphex"))
}

/// Which session's record: the master's (a person) or an agent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Master,
    Agent,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Master => "master",
            Kind::Agent => "agent",
        }
    }
}

/// What a machine last saw of a store in one work tree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The store's id (`meta.store_id`, fixed at `init`; informational).
    pub store_id: String,
    /// The master's public signing key (hex) that authenticated it.
    #[serde(default)]
    pub signer: String,
    /// The statement's id, hex.
    pub statement: String,
    /// Its commit number.
    pub seq: u64,
    /// Its bytes, hex: what `graphex seal` compares a store that lost its
    /// seal with (after checking its MAC).
    #[serde(default)]
    pub bytes: String,
    /// Its MAC under the master's seal key, hex (master records): checked
    /// before the bytes are trusted.
    #[serde(default)]
    pub mac: String,
    /// The git commit checked out then (`None` outside git).
    pub commit: Option<String>,
    /// When it was recorded (milliseconds since the epoch).
    pub at: i64,
    /// The highest bundle sequence pulled per federation source.
    #[serde(default)]
    pub federation: BTreeMap<String, u64>,
    /// The line of history it is kept for: the branch checked out
    /// (`refs/heads/main`), or `detached <commit>`; `None` outside git and
    /// in records made before records were kept per branch.
    #[serde(default)]
    pub scope: Option<String>,
}

/// The master keys (their public signing halves, hex) this machine
/// recorded for the store in the work tree at `root`, from its master
/// records on every branch: what a client checks an unlock session's
/// signature with. Empty when none was ever recorded here.
pub fn pinned_signers(root: &Path) -> Vec<String> {
    state_dir().map_or_else(Vec::new, |state| pinned_signers_in(&state, root))
}

/// [`pinned_signers`] from the state directory `state`.
pub fn pinned_signers_in(state: &Path, root: &Path) -> Vec<String> {
    let key = work_tree_key(root);
    let Ok(entries) = std::fs::read_dir(state.join("freshness")) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&key) && name.ends_with("-master.json")
        })
        .filter_map(|e| RecordFile::load_from(&e.path()).ok().flatten())
        .map(|r| r.signer)
        .filter(|s| !s.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The record file of one work tree, line of history and kind.
#[derive(Clone, Debug)]
pub struct RecordFile {
    path: PathBuf,
    /// The work tree's record from before records were kept per branch:
    /// read (once) where the branch has none yet.
    legacy: Option<PathBuf>,
    scope: Option<String>,
}

/// The line of history checked out in the work tree at `root`: its branch
/// (`refs/heads/main`), else `detached <commit>`; `None` outside git.
pub fn scope_of(root: &Path) -> Option<String> {
    if let Some(branch) = super::git::branch(root) {
        return Some(branch);
    }
    super::git::head(root).map(|c| format!("detached {c}"))
}

/// The work tree's key, with the line of history checked out when in git:
/// what names its records and its backup.
pub fn scoped_key(root: &Path) -> String {
    let key = work_tree_key(root);
    match scope_of(root) {
        Some(scope) => {
            let digest = Sha256::digest(scope.as_bytes());
            let short: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
            format!("{key}-{short}")
        }
        None => key,
    }
}

/// A short, stable name for a work tree: its canonical path hashed.
pub fn work_tree_key(root: &Path) -> String {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let digest = Sha256::digest(canon.as_os_str().as_encoded_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

impl RecordFile {
    /// The record of the store at `root` for `kind`, under `state`.
    pub fn new(state: &Path, root: &Path, kind: Kind) -> RecordFile {
        let dir = state.join("freshness");
        let scope = scope_of(root);
        let legacy = dir.join(format!("{}-{}.json", work_tree_key(root), kind.as_str()));
        RecordFile {
            path: dir.join(format!("{}-{}.json", scoped_key(root), kind.as_str())),
            legacy: scope.is_some().then_some(legacy),
            scope,
        }
    }

    /// The line of history this record is for (`None` outside git).
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// The record of the store at `root` under the user's state directory.
    pub fn for_store(root: &Path, kind: Kind) -> Option<RecordFile> {
        state_dir().map(|s| Self::new(&s, root, kind))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The record, `None` when there is none. A file that does not parse
    /// is an error naming it (never silently a fresh start).
    pub fn load(&self) -> Result<Option<Record>> {
        match Self::load_from(&self.path)? {
            Some(r) => Ok(Some(r)),
            None => match &self.legacy {
                Some(legacy) => Self::load_from(legacy),
                None => Ok(None),
            },
        }
    }

    fn load_from(path: &Path) -> Result<Option<Record>> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                Error::integrity(
                    path.display().to_string(),
                    format!("the freshness record does not parse ({e}); delete it to start a new one"),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Writes `record` atomically, 0600, its directories 0700.
    pub fn save(&self, record: &Record) -> Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        private_dir(dir)?;
        let record = Record {
            scope: self.scope.clone(),
            ..record.clone()
        };
        let bytes = serde_json::to_vec_pretty(&record).map_err(|e| Error::io(&self.path, std::io::Error::other(e)))?;
        write_private(&self.path, &bytes)
    }
}

/// Makes `dir` (and missing parents) with mode 0700.
pub(crate) fn private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io(dir, e))
}

/// Writes `bytes` to `path` through a 0600 temporary file in the same
/// directory, synced, then renamed over it.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_private_atomic_and_a_broken_one_is_named() {
        use std::os::unix::fs::PermissionsExt as _;
        let state = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let file = RecordFile::new(state.path(), repo.path(), Kind::Master);
        assert_eq!(file.load().unwrap(), None);
        let record = Record {
            store_id: "s".into(),
            statement: "ab".into(),
            seq: 3,
            commit: Some("c".repeat(40)),
            at: 5,
            ..Record::default()
        };
        file.save(&record).unwrap();
        assert_eq!(file.load().unwrap(), Some(record));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(file.path()), 0o600);
        assert_eq!(mode(file.path().parent().unwrap()), 0o700);
        // Another work tree, or the agent's record, is another file.
        let other = RecordFile::new(state.path(), repo.path(), Kind::Agent);
        assert_ne!(other.path(), file.path());
        std::fs::write(file.path(), "{not json").unwrap();
        let err = file.load().unwrap_err().to_string();
        assert!(err.contains("freshness record does not parse"), "{err}");
    }
}
