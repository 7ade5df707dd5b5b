//! A store as it was at a git revision, read from git's objects into a
//! private temporary directory (0700, removed when dropped): a temporary
//! index holds the revision's `.gpp` tree and git writes its files under
//! the directory. The user's work tree and index are never touched.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// A past state of the store, on disk while this lives.
pub struct Snapshot {
    dir: tempfile::TempDir,
    /// The commit it was read from.
    pub commit: String,
}

impl Snapshot {
    /// The store's root inside the snapshot.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("tree")
    }
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir);
    c
}

/// Runs `c`; its standard output, trimmed, or what git said.
fn run(mut c: Command, what: &str) -> Result<String> {
    let out = c.output().with_context(|| format!("{what}: cannot run git"))?;
    if !out.status.success() {
        bail!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The commit `rev` names in the repository holding `root`.
pub fn commit(root: &Path, rev: &str) -> Result<String> {
    if rev.starts_with('-') || rev.is_empty() {
        bail!("{rev:?} is not a revision");
    }
    let mut c = git(root);
    c.args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{rev}^{{commit}}"));
    run(c, &format!("no commit {rev:?} in this repository")).and_then(|id| {
        if id.is_empty() {
            bail!("no commit {rev:?} in this repository")
        }
        Ok(id)
    })
}

/// Where two revisions' histories meet (`A...B` compares from here).
pub fn merge_base(root: &Path, a: &str, b: &str) -> Result<String> {
    let (a, b) = (commit(root, a)?, commit(root, b)?);
    let mut c = git(root);
    c.args(["merge-base", &a, &b]);
    run(c, &format!("{a} and {b} share no history"))
}

/// The store under `root` as it was at `rev`.
pub fn at(root: &Path, rev: &str) -> Result<Snapshot> {
    let commit = commit(root, rev)?;
    let mut c = git(root);
    c.args(["rev-parse", "--show-prefix"]);
    let prefix = run(c, "finding the store in the repository")?;
    let mut c = git(root);
    c.args(["rev-parse", "--show-toplevel"]);
    let top = PathBuf::from(run(c, "finding the repository's top")?);
    let gpp = format!("{prefix}.gpp");
    let dir = tempfile::Builder::new()
        .prefix("graphex-diff-")
        .tempdir()
        .context("making a private temporary directory")?;
    let index = dir.path().join("index");
    let mut c = git(root);
    c.env("GIT_INDEX_FILE", &index)
        .args(["read-tree", "--prefix=.gpp/"])
        .arg(format!("{commit}:{gpp}"));
    run(c, &format!("{rev} has no Graphex store at {gpp}"))?;
    let tree = dir.path().join("tree");
    let mut c = git(&top);
    c.env("GIT_INDEX_FILE", &index)
        .args(["checkout-index", "--all", "--force"])
        .arg(format!("--prefix={}/", tree.display()));
    run(c, &format!("reading {rev}'s store from git"))?;
    let snap = Snapshot { dir, commit };
    if !graphex_engine::store::Layout::new(snap.root()).db().is_file() {
        bail!("{rev} has no Graphex index at {gpp}/graphex/graph.db");
    }
    Ok(snap)
}
