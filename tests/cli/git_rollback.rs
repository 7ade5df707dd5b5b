//! Rollback through git: an agent's branch that only puts back an older,
//! validly sealed graph.db (and an innocent code change) is merged by
//! plain git without the merge driver. The hooks say so loudly, the store
//! opens read-only, and `graphex freshness restore` brings the newer graph
//! back; moving to another branch or an old commit is no error.

use std::path::Path;

use crate::git::{add, commit_all, git, git_ok, graphex, repo};
use crate::harness::{PASS, bare};

/// The agent's branch, made in its own clone: the graph.db of `old` put
/// back, plus a code change; fetched into the human's repository.
fn agent_branch(root: &Path, old: &str) {
    let clone = tempfile::tempdir().unwrap();
    let agent = clone.path().join("agent");
    git_ok(root, &["clone", "-q", root.to_str().unwrap(), agent.to_str().unwrap()]);
    git_ok(&agent, &["checkout", "-q", "-b", "agent"]);
    let bytes = git_command_bytes(root, &["show", &format!("{old}:.gpp/graphex/graph.db")]);
    std::fs::write(agent.join(".gpp/graphex/graph.db"), bytes).unwrap();
    std::fs::write(agent.join("code.rs"), "fn innocent() {}\n").unwrap();
    git_ok(&agent, &["add", "-A"]);
    git_ok(&agent, &["commit", "-q", "-m", "refactor: tidy code"]);
    git_ok(root, &["fetch", "-q", agent.to_str().unwrap(), "agent:agent"]);
}

fn git_command_bytes(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git(dir, args);
    assert!(out.status.success(), "git {args:?}");
    out.stdout
}

fn head(root: &Path) -> String {
    git_ok(root, &["rev-parse", "HEAD"]).trim().to_owned()
}

fn graphex_fails(root: &Path, args: &[&str]) -> String {
    let out = bare(root).env("GRAPHEX_PASSPHRASE", PASS).args(args).assert().failure();
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// A repository whose graph got a security fix on main, and an agent's
/// branch that puts back the graph from before it.
fn attacked() -> tempfile::TempDir {
    let dir = repo();
    let root = dir.path();
    let old = head(root);
    add(root, "security-fix", "the policy as fixed");
    commit_all(root, "fix the policy");
    agent_branch(root, &old);
    dir
}

#[test]
fn a_merge_that_brings_back_an_older_graph_is_caught_and_restored() {
    let dir = attacked();
    let root = dir.path();

    // A fast-forward: only the agent's side changed graph.db, so git never
    // runs the merge driver. The post-merge hook speaks up.
    let out = git(root, &["merge", "agent"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("the graph went back"), "{said}");
    assert!(
        said.contains("refactor: tidy code"),
        "names the commit that brought it: {said}"
    );
    assert!(!root.join("missing").exists());

    // Every command says so; reads work, writes are refused.
    let out = bare(root)
        .env("GRAPHEX_PASSPHRASE", PASS)
        .args(["list"])
        .assert()
        .success();
    let warned = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(warned.contains("not the newest this machine saw"), "{warned}");
    let refused = graphex_fails(root, &["add", "--type", "service", "--name", "x", "-d", "x"]);
    assert!(
        refused.contains("graphex freshness restore") && refused.contains("graph commit"),
        "{refused}"
    );
    let shown = graphex(root, &["freshness"]);
    assert!(shown.contains("ROLLED BACK"), "{shown}");

    // Restored: the newer graph is back, the older one kept aside.
    let done = graphex(root, &["freshness", "restore", "--yes"]);
    assert!(done.contains("restored graph commit"), "{done}");
    assert!(graphex(root, &["list"]).contains("security-fix"));
    add(root, "after-restore", "writes work again");
    assert!(graphex(root, &["freshness"]).contains("fresh"));
}

#[test]
fn a_commit_of_an_older_graph_is_refused_before_it_is_made() {
    let dir = attacked();
    let root = dir.path();
    // Main moves on with code only: the merge is a real merge commit, and
    // the pre-merge-commit hook refuses to make it.
    std::fs::write(root.join("main.rs"), "fn main() {}\n").unwrap();
    commit_all(root, "code on main");
    let before = head(root);
    let out = git(root, &["merge", "--no-edit", "agent"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("commit refused"), "{said}");
    assert_eq!(head(root), before, "no merge commit was made");
    git_ok(root, &["merge", "--abort"]);
    assert!(graphex(root, &["list"]).contains("security-fix"));
}

#[test]
fn another_branch_or_an_old_commit_is_no_error_and_merges_through_the_driver_pass() {
    let dir = repo();
    let root = dir.path();
    let base = head(root);
    // A teammate's branch whose graph differs.
    git_ok(root, &["checkout", "-q", "feature"]);
    add(root, "beta", "from the feature branch");
    commit_all(root, "feature work");
    git_ok(root, &["checkout", "-q", "main"]);
    add(root, "alpha", "from main");
    commit_all(root, "main work");
    for target in ["feature", "main"] {
        let out = git(root, &["checkout", "-q", target]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("went back"));
        add(root, &format!("on-{target}"), "a write on the branch checked out");
        commit_all(root, &format!("more on {target}"));
    }
    // An old commit, then back: no error either way.
    for target in [base.as_str(), "main"] {
        let out = git(root, &["checkout", "-q", target]);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("went back"));
        let out = bare(root)
            .env("GRAPHEX_PASSPHRASE", PASS)
            .args(["list"])
            .assert()
            .success();
        assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("not the newest"));
    }
    // Both branches changed the graph: the driver merges, and the result
    // descends from both.
    let said = git_ok(root, &["merge", "--no-edit", "feature"]);
    assert!(!said.contains("went back"), "{said}");
    add(root, "after-merge", "writes work");
    let list = graphex(root, &["list"]);
    assert!(list.contains("beta") && list.contains("alpha"), "{list}");
}

#[test]
fn seal_puts_back_deleted_settings_from_git_and_never_approves_the_edited_file() {
    let dir = repo();
    let root = dir.path();
    let config = root.join(".gpp/config.toml");
    std::fs::write(&config, "[graphex.projection]\nlow = 80.0\nhigh = 95.0\n").unwrap();
    let shown: serde_json::Value = serde_json::from_str(&graphex(root, &["--json", "config", "show"])).unwrap();
    let digest = shown["approval"].as_str().unwrap().to_owned();
    graphex(root, &["config", "approve", "--yes", &digest]);
    commit_all(root, "stricter thresholds");
    // No key at all: the approved settings and the seal deleted, the file
    // edited to hand agent-readable content to any agent.
    let conn = rusqlite::Connection::open(root.join(".gpp/graphex/graph.db")).unwrap();
    conn.execute_batch("DELETE FROM meta WHERE key = 'policy'; DELETE FROM seal;")
        .unwrap();
    drop(conn);
    std::fs::write(&config, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n").unwrap();
    // Asked with no one to answer: nothing changes, and the difference is named.
    let refused = graphex_fails(root, &["seal"]);
    assert!(refused.contains("settings:"), "{refused}");
    assert!(refused.contains("nothing restored or sealed"), "{refused}");
    graphex_fails(root, &["status"]);
    // Confirmed: the settings come back from git, the edit stays unapproved.
    let out = bare(root)
        .env("GRAPHEX_PASSPHRASE", PASS)
        .args(["seal", "--yes"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        said.contains("will restore settings from") && said.contains("sealed"),
        "{said}"
    );
    let shown: serde_json::Value = serde_json::from_str(&graphex(root, &["--json", "config", "show"])).unwrap();
    let text = shown.to_string();
    assert!(text.contains("80"), "the approved thresholds are back in force: {text}");
    assert!(
        shown["approval"].is_string(),
        "the edited file waits for approval: {text}"
    );
}

#[test]
fn a_missing_binary_never_blocks_git_and_says_so() {
    let dir = repo();
    let root = dir.path();
    // The program the hooks run is not there (a moved build, a clone without it).
    std::fs::write(root.join("code.rs"), "fn f() {}\n").unwrap();
    let out = git(root, &["add", "-A"]);
    assert!(out.status.success());
    let out = crate::git::git_command(root, &["commit", "-q", "-m", "code"])
        .env("GRAPHEX_PROGRAM", "/nonexistent/graphex")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(
            "the graphex program (/nonexistent/graphex) was not found: the graph was not checked (pre-commit)"
        ),
        "{said}"
    );
    // The merge driver, too, says so, and leaves a conflict rather than a silent text merge.
    let driver = git_ok(root, &["config", "--get", "merge.graphex.driver"]);
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(driver.trim().replace("%O %A %B %P", "a b c d"))
        .env("GRAPHEX_PROGRAM", "/nonexistent/graphex")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("graph.db was not merged"));
}
