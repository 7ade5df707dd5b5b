//! Federation over git remotes. A published bundle is a commit on its own
//! ref (`refs/graphex/federation/SUBGRAPH` by default: its own history,
//! never a branch) holding one file, `SUBGRAPH.bundle`. A pull fetches that
//! ref and reads its newest commit's bundle, which the caller checks
//! (signature, pinned key, sequence) before anything is applied.
//!
//! Git does the transport, the authentication and the replication: Graphex
//! runs `git` and has no network code or credentials of its own.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result, bail};
use serde::Serialize;

use crate::shared::git_revision;
use crate::shared::git_run::{git, run};

/// The most bytes a fetched bundle may have (as a bundle file).
const MAX_BUNDLE_BYTES: u64 = graphex_engine::interchange::MAX_INPUT_BYTES;

/// What a push did.
#[derive(Debug, Clone, Serialize)]
pub struct Pushed {
    pub remote: String,
    #[serde(rename = "ref")]
    pub reference: String,
    pub commit: String,
    /// The commit it follows (the remote's, when it had the ref).
    pub parent: Option<String>,
}

/// A bundle fetched from a remote.
pub struct Fetched {
    /// How messages name it: `REMOTE REF at COMMIT`.
    pub origin: String,
    pub bytes: Vec<u8>,
    /// The commit it was read from: the caller records it (`record`) once
    /// the bundle is pulled.
    pub commit: String,
}

fn refuse_option(what: &str, value: &str) -> Result<()> {
    if value.is_empty() || value.starts_with('-') {
        bail!("{what} {value:?}: give a URL or a remote's name (git would read this as an option)");
    }
    Ok(())
}

/// Runs `c` with `input` on its standard input; its output, trimmed.
fn run_with_input(mut c: Command, input: &[u8], what: &str) -> Result<String> {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("{what}: cannot run git"))?;
    let mut stdin = child.stdin.take().context("git's input")?;
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().with_context(|| format!("{what}: git"))?;
    let _ = writer.join();
    if !out.status.success() {
        bail!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The commit `remote` holds at `reference`, if it has the ref.
fn remote_head(root: &Path, remote: &str, reference: &str) -> Result<Option<String>> {
    let mut c = git(root);
    c.args(["ls-remote", "--end-of-options", remote, reference]);
    let out = run(c, &format!("asking {remote} for {reference}"))?;
    Ok(out.lines().find_map(|line| {
        let (id, name) = line.split_once('\t')?;
        (name == reference).then(|| id.to_owned())
    }))
}

/// Commits `text` as the newest bundle of `subgraph` on `reference` in the
/// repository holding `root`, on top of what `remote` has there, and pushes
/// it (never forced: a remote that moved meanwhile refuses it). The local
/// ref keeps the commit when the push fails, and the error says how to retry.
pub fn publish(
    root: &Path,
    remote: &str,
    reference: &str,
    subgraph: &str,
    message: &str,
    text: &str,
) -> Result<Pushed> {
    refuse_option("remote", remote)?;
    let parent = remote_head(root, remote, reference)?;
    if parent.is_some() {
        let mut c = git(root);
        c.args(["fetch", "--quiet", "--no-tags", "--end-of-options", remote])
            .arg(format!("+{reference}:{reference}"));
        run(c, &format!("fetching {reference} from {remote}"))?;
    }
    let mut c = git(root);
    c.args(["hash-object", "-w", "--stdin"]);
    let blob = run_with_input(c, text.as_bytes(), "storing the bundle in git")?;
    let file = graphex_engine::federation::bundle_file(subgraph);
    let mut c = git(root);
    c.arg("mktree");
    let tree = run_with_input(
        c,
        format!("100644 blob {blob}\t{file}\n").as_bytes(),
        "making the bundle's tree",
    )?;
    let mut c = git(root);
    c.args(["commit-tree", &tree, "-m", message]);
    if let Some(p) = &parent {
        c.args(["-p", p]);
    }
    let mut ident = git(root);
    ident.args(["var", "GIT_COMMITTER_IDENT"]);
    if run(ident, "").is_err() {
        // No identity configured (a CI runner): the commit says who made it.
        for (k, v) in [
            ("GIT_AUTHOR_NAME", "graphex federation"),
            ("GIT_AUTHOR_EMAIL", "graphex@localhost"),
            ("GIT_COMMITTER_NAME", "graphex federation"),
            ("GIT_COMMITTER_EMAIL", "graphex@localhost"),
        ] {
            c.env(k, v);
        }
    }
    let commit = run(c, "committing the bundle")?;
    let mut c = git(root);
    c.args(["update-ref", "-m", message, reference, &commit]);
    run(c, &format!("setting {reference}"))?;
    let mut c = git(root);
    c.args(["push", "--quiet", "--end-of-options", remote])
        .arg(format!("{reference}:{reference}"));
    run(c, &format!("pushing {reference} to {remote}")).with_context(|| {
        format!(
            "the bundle is committed here on {reference} ({}) but not pushed; `git push {remote} {reference}` \
             retries, or publish again",
            &commit[..12.min(commit.len())]
        )
    })?;
    Ok(Pushed {
        remote: remote.to_owned(),
        reference: reference.to_owned(),
        commit,
        parent,
    })
}

/// Fetches `reference` from `remote` and reads the bundle of `subgraph`
/// in its newest commit. A ref that moved backwards (its new commit an
/// ancestor of the one pulled last, `tracking`: this repository's record,
/// moved by [`record`] only once a bundle is pulled) is refused as a
/// replay; the caller still checks the bundle's signature and sequence.
pub fn fetch(root: &Path, remote: &str, reference: &str, tracking: &str, subgraph: &str) -> Result<Fetched> {
    refuse_option("git remote", remote)?;
    let before = git_revision::commit(root, tracking).ok();
    // Fetched to a ref of its own (git needs one to keep the objects), read,
    // then dropped.
    let incoming = tracking.replacen("refs/graphex/sources/", "refs/graphex/incoming/", 1);
    let mut c = git(root);
    c.args(["fetch", "--quiet", "--no-tags", "--end-of-options", remote])
        .arg(format!("+{reference}:{incoming}"));
    run(c, &format!("fetching {reference} from {remote}"))?;
    let commit = git_revision::commit(root, &incoming).ok();
    let mut c = git(root);
    c.args(["update-ref", "-d", &incoming]);
    let _ = run(c, "");
    let Some(commit) = commit else {
        bail!("fetching {reference} from {remote}: git fetched no commit");
    };
    if let Some(old) = before.filter(|old| *old != commit) {
        let mut c = git(root);
        c.args(["merge-base", "--is-ancestor", &commit, &old]);
        if c.stderr(Stdio::null()).status().is_ok_and(|s| s.success()) {
            bail!(
                "{remote} moved {reference} backwards, from {} to the older {}: a replay of an older bundle; \
                 nothing pulled",
                &old[..12],
                &commit[..12]
            );
        }
    }
    let file = graphex_engine::federation::bundle_file(subgraph);
    let object = format!("{commit}:{file}");
    let mut c = git(root);
    c.args(["cat-file", "-s", &object]);
    let size: u64 = run(c, &format!("{reference} of {remote} holds no {file}"))?
        .parse()
        .context("git cat-file's size")?;
    if size > MAX_BUNDLE_BYTES {
        bail!("{file} of {remote} {reference} is {size} bytes, over the {MAX_BUNDLE_BYTES} a bundle may have");
    }
    let out = git(root)
        .args(["cat-file", "blob", &object])
        .output()
        .context("reading the fetched bundle: cannot run git")?;
    if !out.status.success() {
        bail!(
            "reading {file} of {remote} {reference}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(Fetched {
        origin: format!("{remote} {reference} at {}", &commit[..12]),
        bytes: out.stdout,
        commit,
    })
}

/// Records `commit` as the one pulled last from a source (`tracking`).
pub fn record(root: &Path, tracking: &str, commit: &str) -> Result<()> {
    let mut c = git(root);
    c.args(["update-ref", tracking, commit]);
    run(c, &format!("recording {tracking}")).map(|_| ())
}

/// Where this repository records what it fetched of a source:
/// `refs/graphex/sources/PROJECT/SUBGRAPH`.
pub fn tracking_ref(project: &str, subgraph: &str) -> String {
    format!("refs/graphex/sources/{project}/{subgraph}")
}
