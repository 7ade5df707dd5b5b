//! The other branch of a merge, read from git while the merge driver runs
//! (git puts its files in the work tree only after the driver): its key
//! files and blobs, by the commit `git merge` names in `GITHEAD_<commit>`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use graphex_engine::Error;
use graphex_engine::merge::OtherBranch;

/// The other side of `git merge`, when git named its commit.
pub struct GitBranch {
    root: PathBuf,
    commit: Option<String>,
    /// Where its key files are copied (removed when dropped).
    keys: tempfile::TempDir,
}

impl GitBranch {
    /// The branch `git merge` is merging into the work tree at `root`.
    pub fn from_env(root: &Path) -> std::io::Result<Self> {
        let commit = std::env::vars()
            .filter_map(|(k, _)| k.strip_prefix("GITHEAD_").map(str::to_owned))
            .find(|c| c.len() >= 40 && c.bytes().all(|b| b.is_ascii_hexdigit()));
        // Beside the store, in a private directory (0700).
        let keys = tempfile::Builder::new()
            .prefix(".merge-keys-")
            .tempdir_in(root.join(".gpp").join("graphex"))?;
        Ok(Self {
            root: root.to_owned(),
            commit,
            keys,
        })
    }

    fn show(&self, path: &str) -> graphex_engine::Result<Vec<u8>> {
        let commit = self.commit.as_deref().ok_or_else(no_commit)?;
        let out = Process::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["cat-file", "blob", &format!("{commit}:{path}")])
            .output()
            .map_err(|e| Error::io(&self.root, e))?;
        if !out.status.success() {
            return Err(Error::integrity(
                format!("{path} of the other branch"),
                String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            ));
        }
        Ok(out.stdout)
    }
}

fn no_commit() -> Error {
    Error::integrity(
        "the other branch",
        "git did not name its commit (GITHEAD_*), which `git merge` and `git pull` do: merge with one of them",
    )
}

impl OtherBranch for GitBranch {
    fn keys(&self) -> graphex_engine::Result<Option<PathBuf>> {
        let Some(commit) = self.commit.as_deref() else {
            return Ok(None);
        };
        let out = Process::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["ls-tree", "--name-only", commit, ".gpp/graphex/keys/"])
            .output()
            .map_err(|e| Error::io(&self.root, e))?;
        if !out.status.success() {
            return Ok(None);
        }
        for path in String::from_utf8_lossy(&out.stdout).lines() {
            let Some(name) = Path::new(path).file_name() else {
                continue;
            };
            let to = self.keys.path().join(name);
            std::fs::write(&to, self.show(path)?).map_err(|e| Error::io(&to, e))?;
        }
        Ok(Some(self.keys.path().to_owned()))
    }

    /// Blob `name` as the other branch committed it: fanned out
    /// (`objects/ab/cdef…`), or flat when an older version committed it.
    fn blob(&self, name: &str) -> graphex_engine::Result<Vec<u8>> {
        let [fanned, flat] = graphex_engine::store::tree_paths(name)
            .ok_or_else(|| Error::integrity("object name", format!("{name:?} is not a blob hash")))?;
        self.show(&format!(".gpp/objects/{fanned}"))
            .or_else(|_| self.show(&format!(".gpp/objects/{flat}")))
    }
}
