//! A store as it was at a git revision, read from git's objects into a
//! private temporary directory (0700, removed when dropped): a temporary
//! index holds the revision's `.gpp` tree and git writes its files under
//! the directory. The user's work tree and index are never touched.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use super::git_run::{git, run};

/// A past state of the store, on disk while this lives.
pub struct Snapshot {
    dir: tempfile::TempDir,
    /// The commit it was read from.
    pub commit: String,
    /// The work tree's blobs, which the snapshot reads those it lacks from
    /// (`Store::open_snapshot`).
    pub blobs: PathBuf,
}

impl Snapshot {
    /// The store's root inside the snapshot.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("tree")
    }
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

/// The store under `root` as it was at `rev`: its `.gpp/graphex`
/// directory and `config.toml` written out, and the blobs this work tree
/// lacks written out of git; the others are read from the work tree's
/// copies (content-addressed: the same name is the same content, and every
/// read checks it).
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
        .args(["read-tree", "--prefix=.gpp/graphex/"])
        .arg(format!("{commit}:{gpp}/graphex"));
    run(c, &format!("{rev} has no Graphex store at {gpp}"))?;
    let tree = dir.path().join("tree");
    let mut c = git(&top);
    c.env("GIT_INDEX_FILE", &index)
        .args(["checkout-index", "--all", "--force"])
        .arg(format!("--prefix={}/", tree.display()));
    run(c, &format!("reading {rev}'s store from git"))?;
    let snap = Snapshot {
        dir,
        commit,
        blobs: graphex_engine::store::Layout::new(root).objects(),
    };
    let layout = graphex_engine::store::Layout::new(snap.root());
    if !layout.db().is_file() {
        bail!("{rev} has no Graphex index at {gpp}/graphex/graph.db");
    }
    if let Some(config) = blob(root, &format!("{}:{gpp}/config.toml", snap.commit)) {
        std::fs::write(layout.gpp().join("config.toml"), config)?;
    }
    objects(root, &format!("{}:{gpp}/objects", snap.commit), &layout.objects())?;
    Ok(snap)
}

/// The bytes of `object` (`COMMIT:PATH`), when git has it.
fn blob(root: &Path, object: &str) -> Option<Vec<u8>> {
    let out = git(root).args(["cat-file", "blob", object]).output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// The revision's blobs (`tree`, `COMMIT:PATH` of its objects directory)
/// that this work tree lacks, written into `to` from git.
fn objects(root: &Path, tree: &str, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    let mut c = git(root);
    c.args(["ls-tree", "-r", "-z", "--name-only", tree]);
    let Ok(out) = c.output() else { return Ok(()) };
    if !out.status.success() {
        // No blob committed at that revision.
        return Ok(());
    }
    // Fanned out (`ab/cdef…`) or, committed by an older version, flat;
    // any other name (`..`, a path of its own, whatever a commit made with
    // git's plumbing holds) is not a blob and is never written.
    let here = graphex_engine::store::Objects::new(graphex_engine::store::Layout::new(root).objects());
    let mut missing = Vec::new();
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        if let Some(hash) = graphex_engine::store::blob_in_tree(&name)
            && !here.exists(&hash)
        {
            missing.push(name);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    // The rest in one `git cat-file --batch`.
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut child = git(root)
        .args(["cat-file", "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("running git cat-file")?;
    let mut stdin = child.stdin.take().context("git's input")?;
    let names = missing.clone();
    let prefix = tree.to_owned();
    let writer = std::thread::spawn(move || {
        for n in names {
            if writeln!(stdin, "{prefix}/{n}").is_err() {
                break;
            }
        }
    });
    let mut out = std::io::BufReader::new(child.stdout.take().context("git's output")?);
    for name in &missing {
        let mut head = String::new();
        out.read_line(&mut head)?;
        let size: usize = match head.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, "blob", size] => size.parse().context("git cat-file's size")?,
            _ => bail!("blob {name} of {tree}: {}", head.trim()),
        };
        let mut bytes = vec![0; size + 1];
        out.read_exact(&mut bytes)?;
        bytes.pop();
        let dest = to.join(name);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // A new file in this private directory, never one that is there.
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&dest)?;
        file.write_all(&bytes)?;
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(())
}
