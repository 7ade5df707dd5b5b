//! The store in a real git repository: `init` sets up the merge driver,
//! and `git merge` of two branches that both changed the graph merges it.

use std::path::Path;
use std::process::Command as Process;

use crate::harness::{HUMAN, PASS, bare};

/// `git` in `dir`, isolated from the machine's config and from any
/// graphex credentials of the environment.
pub(crate) fn git_command(dir: &Path, args: &[&str]) -> Process {
    let mut c = Process::new("git");
    c.current_dir(dir)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", crate::harness::state_dir())
        .env_remove("GRAPHEX_PASSPHRASE")
        .env_remove("GRAPHEX_IDENTITY")
        .env_remove("GRAPHEX_STORE")
        .env_remove("GRAPHEX_PROGRAM")
        .env("PATH", path_with_graphex())
        .stdin(std::process::Stdio::null());
    c
}

/// `PATH` with the directory of the binary under test first: the hooks and
/// the merge driver run `graphex` from `PATH`, as in a teammate's clone.
pub(crate) fn path_with_graphex() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_graphex")).parent().unwrap().to_owned();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&rest))).unwrap()
}

/// [`git_command`] with the master passphrase in its environment (the
/// merge driver reads it).
pub(crate) fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    git_command(dir, args).env("GRAPHEX_PASSPHRASE", PASS).output().unwrap()
}

pub(crate) fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

pub(crate) fn graphex(dir: &Path, args: &[&str]) -> String {
    let out = bare(dir).env("GRAPHEX_PASSPHRASE", PASS).args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

pub(crate) fn add(dir: &Path, name: &str, description: &str) {
    graphex(dir, &["add", "--type", "service", "--name", name, "-d", description]);
}

pub(crate) fn commit_all(dir: &Path, message: &str) {
    git_ok(dir, &["add", "-A"]);
    git_ok(dir, &["commit", "-q", "-m", message]);
}

/// A git repository with a store holding `shared`, committed on `main`,
/// and a branch `feature` of it.
pub(crate) fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git_ok(root, &["init", "-q", "-b", "main"]);
    let out = bare(root)
        .args(["init", "."])
        .env("GRAPHEX_PASSPHRASE", PASS)
        .env("GRAPHEX_HUMAN_PASSPHRASE", HUMAN)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(said.contains(".gitattributes"), "{said}");
    add(root, "shared", "as it was");
    commit_all(root, "base");
    git_ok(root, &["branch", "feature"]);
    dir
}

#[test]
fn init_in_a_git_repository_sets_up_the_driver_and_install_is_idempotent() {
    let dir = repo();
    let root = dir.path();
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap();
    assert!(
        attributes.contains(".gpp/graphex/graph.db merge=graphex"),
        "{attributes}"
    );
    let driver = git_ok(root, &["config", "--get", "merge.graphex.driver"]);
    assert!(driver.contains("merge-driver %O %A %B %P"), "{driver}");
    let hook = std::fs::read_to_string(root.join(".git/hooks/post-merge")).unwrap();
    // Nothing names the binary that installed them: they travel with the repository.
    let exe = env!("CARGO_BIN_EXE_graphex");
    assert!(!driver.contains(exe) && !hook.contains(exe), "{driver}\n{hook}");
    assert!(hook.contains("${GRAPHEX_PROGRAM:-graphex}"), "{hook}");
    let again = graphex(root, &["git", "install"]);
    assert!(again.contains("nothing to change"), "{again}");
    // Nothing of a store in use is tracked.
    let tracked = git_ok(root, &["ls-files"]);
    assert!(!tracked.contains("-wal") && !tracked.contains("-shm"), "{tracked}");
}

#[test]
fn branches_with_disjoint_changes_merge_with_both() {
    let dir = repo();
    let root = dir.path();
    git_ok(root, &["checkout", "-q", "feature"]);
    add(root, "beta", "from the feature branch");
    graphex(root, &["link", "beta", "uses", "shared"]);
    graphex(root, &["update", "shared", "-d", "changed on feature"]);
    commit_all(root, "feature work");
    git_ok(root, &["checkout", "-q", "main"]);
    add(root, "alpha", "from main");
    commit_all(root, "main work");
    let said = git_ok(root, &["merge", "--no-edit", "feature"]);
    assert!(said.contains("merged the graph from feature"), "{said}");
    let status = git_ok(root, &["status", "--porcelain"]);
    assert!(status.trim().is_empty(), "the merge was committed whole: {status}");
    let list = graphex(root, &["list"]);
    assert!(
        list.contains("alpha") && list.contains("beta") && list.contains("shared"),
        "{list}"
    );
    let shown = graphex(root, &["show", "shared"]);
    assert!(shown.contains("changed on feature"), "{shown}");
    assert!(graphex(root, &["show", "beta"]).contains("uses"));
    // Every blob both branches wrote is there, and the store checks out clean.
    let out = bare(root)
        .env("GRAPHEX_PASSPHRASE", PASS)
        .arg("doctor")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let findings: Vec<&str> = report.lines().filter(|l| l.starts_with("FINDING")).collect();
    // The test store's cheap KDF is the only finding.
    assert!(
        findings.len() == 1 && findings[0].contains("passphrase KDF"),
        "{report}"
    );
    assert!(
        report.contains("ok       blobs present") && report.contains("ok       history"),
        "{report}"
    );
}

#[test]
fn a_node_changed_on_both_branches_lands_in_the_queue_as_a_merge_proposal() {
    let dir = repo();
    let root = dir.path();
    git_ok(root, &["checkout", "-q", "feature"]);
    graphex(root, &["update", "shared", "-d", "theirs says that"]);
    commit_all(root, "feature edit");
    git_ok(root, &["checkout", "-q", "main"]);
    graphex(root, &["update", "shared", "-d", "ours says this"]);
    commit_all(root, "main edit");
    let said = git_ok(root, &["merge", "--no-edit", "feature"]);
    assert!(said.contains("1 nodes changed on both branches"), "{said}");
    assert!(graphex(root, &["show", "shared"]).contains("ours says this"));
    let card = graphex(root, &["pending"]);
    for needle in [
        "agent:merge",
        "Merge of branch feature",
        "base v1 → ours v2",
        "base v1 → theirs v2",
        "theirs says that",
    ] {
        assert!(card.contains(needle), "{needle:?} missing from:\n{card}");
    }
    let id = card.split_whitespace().nth(1).unwrap().to_owned();
    graphex(root, &["accept", &id]);
    assert!(graphex(root, &["show", "shared"]).contains("theirs says that"));
}

#[test]
fn a_merge_without_the_master_key_is_a_conflict_that_keeps_this_branch() {
    let dir = repo();
    let root = dir.path();
    git_ok(root, &["checkout", "-q", "feature"]);
    add(root, "beta", "b");
    commit_all(root, "feature");
    git_ok(root, &["checkout", "-q", "main"]);
    add(root, "alpha", "a");
    commit_all(root, "main");
    let before = std::fs::read(root.join(".gpp/graphex/graph.db")).unwrap();
    let out = git_command(root, &["merge", "--no-edit", "feature"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("needs the master key"), "{said}");
    assert_eq!(std::fs::read(root.join(".gpp/graphex/graph.db")).unwrap(), before);
}

#[test]
fn a_rotation_on_one_branch_and_adds_on_the_other_merge_into_a_store_that_opens() {
    let dir = repo();
    let root = dir.path();
    git_ok(root, &["checkout", "-q", "feature"]);
    graphex(root, &["keys", "rotate", "--tier", "agent-readable"]);
    add(root, "beta", "under the new key");
    commit_all(root, "feature rotates");
    git_ok(root, &["checkout", "-q", "main"]);
    graphex(
        root,
        &[
            "add",
            "--type",
            "service",
            "--name",
            "alpha",
            "-d",
            "under the old key",
            "--tier",
            "agent-readable",
        ],
    );
    graphex(
        root,
        &[
            "update",
            "shared",
            "-d",
            "changed under the old key",
            "--tier",
            "agent-readable",
        ],
    );
    commit_all(root, "main adds");
    // Ours' blobs are sealed again into new files: git stops so they are committed.
    let out = git(root, &["merge", "--no-edit", "feature"]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("git add .gpp && git commit"),
        "{said}"
    );
    commit_all(root, "merge feature");
    let list = graphex(root, &["list"]);
    assert!(list.contains("alpha") && list.contains("beta"), "{list}");
    assert!(graphex(root, &["show", "shared"]).contains("changed under the old key"));
    let out = bare(root)
        .env("GRAPHEX_PASSPHRASE", PASS)
        .arg("doctor")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        report.contains("ok       open") && report.contains("ok       blobs decrypt"),
        "{report}"
    );
    // A fresh clone of the merge opens too: every file it needs was committed.
    let clone = tempfile::tempdir().unwrap();
    git_ok(clone.path(), &["clone", "-q", root.to_str().unwrap(), "c"]);
    let c = clone.path().join("c");
    assert!(graphex(&c, &["show", "alpha"]).contains("under the old key"));
    assert!(graphex(&c, &["show", "beta"]).contains("under the new key"));
}
