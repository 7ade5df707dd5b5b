//! `graphex diff` over a scripted git history: an add, an update, a tier
//! lowered, a deprecation, then a merge; in text, JSON and markdown, with
//! `--check`'s exit codes, at the master level and keyless, and with the
//! user's work tree and index left as they were.

use std::path::Path;

use crate::git::{add, commit_all, git_ok, graphex, repo};
use crate::harness::{PASS, bare};

/// `graphex diff ARGS` in `dir` with the master passphrase, or keyless.
fn diff(dir: &Path, keyed: bool, args: &[&str]) -> assert_cmd::assert::Assert {
    let mut c = bare(dir);
    if keyed {
        c.env("GRAPHEX_PASSPHRASE", PASS);
    }
    c.arg("diff").args(args).assert()
}

fn out(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// The history: `feature` adds `beta` (public), rewrites `shared`, lowers
/// `inner` (agent-readable) to public and deprecates `old`; `main` adds
/// `alpha` meanwhile. Made once per test process, copied for each test.
fn history() -> tempfile::TempDir {
    static TEMPLATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(made_history);
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_tree(template.path(), dir.path());
    dir
}

fn made_history() -> tempfile::TempDir {
    let dir = repo();
    let root = dir.path();
    graphex(
        root,
        &[
            "add",
            "--type",
            "service",
            "--name",
            "inner",
            "-d",
            "kept inside",
            "--tier",
            "agent-readable",
        ],
    );
    add(root, "old", "the old way");
    commit_all(root, "inner and old");
    git_ok(root, &["branch", "-f", "feature"]);
    git_ok(root, &["checkout", "-q", "feature"]);
    add(root, "beta", "from the feature branch");
    graphex(root, &["link", "beta", "uses", "shared"]);
    graphex(root, &["update", "shared", "-d", "changed on feature"]);
    graphex(root, &["update", "inner", "--tier", "public"]);
    graphex(root, &["deprecate", "old", "--reason", "replaced by beta"]);
    commit_all(root, "feature work");
    git_ok(root, &["checkout", "-q", "main"]);
    add(root, "alpha", "from main");
    commit_all(root, "main work");
    dir
}

#[test]
fn a_branch_compared_in_text_json_and_markdown_and_checked() {
    let dir = history();
    let root = dir.path();
    let status = git_ok(root, &["status", "--porcelain"]);
    let index = std::fs::read(root.join(".git/index")).unwrap();
    // main...feature: the feature's changes from where it left main (not
    // main's `alpha`), as a pull request shows them.
    let text = out(&diff(root, true, &["main...feature"]).success());
    assert!(text.contains("read at master"), "{text}");
    assert!(text.contains("+ beta [service] added public"), "{text}");
    assert!(text.contains("~ shared [service] changed"), "{text}");
    assert!(
        text.contains("description: \"as it was\" → \"changed on feature\""),
        "{text}"
    );
    assert!(
        text.contains("~ inner [service] changed agent-readable → public"),
        "{text}"
    );
    assert!(text.contains("✗ old [service] deprecated"), "{text}");
    assert!(text.contains("+ beta → uses → shared"), "{text}");
    assert!(!text.contains("alpha"), "main's own change is not the branch's: {text}");
    assert!(text.contains("! tier-lowered"), "{text}");
    // JSON: the same, for scripts.
    let v: serde_json::Value =
        serde_json::from_str(&out(&diff(root, true, &["--json", "main...feature"]).success())).unwrap();
    let kinds: Vec<(String, String)> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_owned(),
                n["change"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("beta", "added"),
            ("inner", "changed"),
            ("old", "deprecated"),
            ("shared", "changed")
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    let public = &v["exposure"][0];
    assert_eq!(public["tier"], "public");
    assert_eq!(public["nodes_gained"], serde_json::json!(["beta", "inner"]));
    assert_eq!(public["nodes_lost"], serde_json::json!(["old"]));
    assert_eq!(v["failing"], 1);
    // Markdown for the pull request.
    let md = out(&diff(root, true, &["--format", "markdown", "main...feature"]).success());
    assert!(
        md.starts_with("### Graphex: what this change does to the graph"),
        "{md}"
    );
    assert!(md.contains("| public | 2 | 1 |"), "{md}");
    assert!(md.contains("- ⚠ `tier-lowered` `inner`"), "{md}");
    assert!(md.contains("```diff\n"), "{md}");
    // --check fails on the lowered tier, and says so.
    let failed = diff(root, true, &["--check", "main...feature"]).failure();
    let said = String::from_utf8_lossy(&failed.get_output().stderr).into_owned();
    assert!(said.contains("diff --check: 1 finding(s)"), "{said}");
    assert_eq!(failed.get_output().status.code(), Some(1));
    // Nothing was checked out: the work tree and the index are as they were.
    assert_eq!(git_ok(root, &["status", "--porcelain"]), status);
    assert_eq!(std::fs::read(root.join(".git/index")).unwrap(), index);
    // Keyless: public content, the rest counted, never shown.
    let locked = out(&diff(root, false, &["main...feature"]).success());
    assert!(locked.contains("read at locked"), "{locked}");
    assert!(locked.contains("+ beta"), "{locked}");
    assert!(
        locked.contains("+ inner"),
        "moved down into public: it appears: {locked}"
    );
    assert!(!locked.contains("description: \"kept inside\""), "{locked}");
    assert!(
        locked.contains("agent-readable: sealed at this level: 1 → 0 node(s)"),
        "{locked}"
    );
}

#[test]
fn the_merge_and_the_work_tree_and_two_stores() {
    let dir = history();
    let root = dir.path();
    let said = git_ok(root, &["merge", "--no-edit", "feature"]);
    assert!(said.contains("merged the graph from feature"), "{said}");
    // The merge brings the feature's changes onto main.
    let merged = out(&diff(root, true, &["HEAD~1", "HEAD"]).success());
    assert!(merged.contains("+ beta") && merged.contains("✗ old"), "{merged}");
    assert!(!merged.contains("alpha"), "already on main: {merged}");
    // No argument: HEAD against the work tree.
    assert!(out(&diff(root, true, &[]).success()).contains("no difference"));
    add(root, "gamma", "not committed yet");
    let work = out(&diff(root, true, &[]).success());
    assert!(work.contains("→ the work tree") && work.contains("+ gamma"), "{work}");
    // Two store directories.
    let copy = tempfile::tempdir().unwrap();
    git_ok(
        root,
        &[
            "worktree",
            "add",
            "-q",
            copy.path().join("w").to_str().unwrap(),
            "HEAD~1",
        ],
    );
    let stores = out(&diff(
        root,
        true,
        &[copy.path().join("w").to_str().unwrap(), root.to_str().unwrap()],
    )
    .success());
    assert!(stores.contains("+ beta") && stores.contains("+ gamma"), "{stores}");
    // Bad input: named, nothing else said.
    let bad = diff(root, true, &["no-such-branch"]).failure();
    let said = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(said.contains("no commit \"no-such-branch\""), "{said}");
    let bad = diff(root, true, &["--", "-x"]).failure();
    assert!(String::from_utf8_lossy(&bad.get_output().stderr).contains("is not a revision"));
}

/// `--as-of`: two points of the store's own timeline, or one against now.
#[test]
fn as_of_compares_points_of_the_timeline() {
    let dir = history();
    let root = dir.path();
    // On main: `shared` (the first entry), `inner` and `old`, then `alpha`.
    let since_first = out(&diff(root, true, &["--as-of", "#1"]).success());
    assert!(since_first.starts_with("as of #1 (entry #1) → now"), "{since_first}");
    for added in ["+ alpha", "+ inner", "+ old"] {
        assert!(since_first.contains(added), "{added}: {since_first}");
    }
    assert!(!since_first.contains("+ shared"), "there at #1: {since_first}");
    let between = out(&diff(root, true, &["--as-of", "#1", "--as-of", "#2"]).success());
    assert!(between.contains("→ as of #2 (entry #2)"), "{between}");
    assert!(!between.contains("alpha"), "after #2: {between}");
    let bad = diff(root, true, &["--as-of", "yesterday"]).failure();
    let said = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(said.contains("yesterday: give a date"), "{said}");
    let both = diff(root, true, &["--as-of", "#1", "HEAD"]).failure();
    assert_eq!(both.get_output().status.code(), Some(2), "a usage error");
}
