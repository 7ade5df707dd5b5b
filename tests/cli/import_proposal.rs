//! `import --as-proposal` below the master level (as the README promises:
//! it needs no master key, like `propose`), and dry runs that count a
//! duplicate item as refused, never as added.

use predicates::prelude::*;

use crate::harness::{Repo, names};

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A store with one public node, and a file adding `new-one`, changing
/// `known` and linking them.
fn setup() -> (Repo, tempfile::TempDir, std::path::PathBuf) {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "known", "-d", "before"]);
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "p.json",
        r#"{"nodes":[{"id":"known","type":"service","description":"after"},{"id":"new-one"}],
           "links":[{"source":"new-one","target":"known","relation":"uses"}]}"#,
    );
    (repo, tmp, f)
}

fn pending_text(repo: &Repo) -> String {
    repo.json(repo.master(), &["pending"]).to_string()
}

#[test]
fn an_agent_identity_imports_as_a_proposal() {
    let (repo, _tmp, f) = setup();
    let mut agent = repo.locked();
    agent.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity());
    agent
        .args(["--json", "import"])
        .arg(&f)
        .args(["--format", "node-link", "--as-proposal"]);
    let r = crate::harness::json_of(agent);
    assert!(r["proposal"].is_string(), "{r}");
    assert_eq!(r["added"], serde_json::json!(["new-one"]), "{r}");
    assert_eq!(r["changed"], serde_json::json!(["known"]), "{r}");
    assert_eq!(r["refused_count"], 0, "{r}");
    // Nothing written; the reviewer sees all three changes.
    assert_eq!(names(&repo.json(repo.master(), &["list", "--all"])), ["known"]);
    let text = pending_text(&repo);
    assert!(
        text.contains("new-one") && text.contains("after") && text.contains("uses"),
        "{text}"
    );
    // Accepted at the master level, it lands as the import would have.
    let id = r["proposal"].as_str().unwrap();
    repo.ok(&["accept", id]);
    let shown = repo.json(repo.master(), &["show", "new-one"]);
    assert_eq!(shown["tier"], "agent-readable", "{shown}");
    assert_eq!(repo.json(repo.master(), &["show", "known"])["description"], "after");
}

#[test]
fn a_session_with_no_keys_imports_as_a_proposal_too() {
    let (repo, _tmp, f) = setup();
    repo.locked()
        .args(["import"])
        .arg(&f)
        .args(["--format", "node-link", "--as-proposal"])
        .assert()
        .success()
        .stdout(predicate::str::contains("is in the queue"))
        .stderr(predicate::str::contains("cannot authenticate"));
    assert!(pending_text(&repo).contains("new-one"));
    assert_eq!(names(&repo.json(repo.master(), &["list", "--all"])), ["known"]);
}

#[test]
fn below_the_master_level_a_tier_above_what_a_proposal_may_ask_is_still_refused() {
    let (repo, tmp, _) = setup();
    let f = write(tmp.path(), "q.json", r#"{"nodes":[{"id":"deep"}],"links":[]}"#);
    let mut agent = repo.locked();
    agent.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity());
    agent
        .args(["import"])
        .arg(&f)
        .args(["--format", "node-link", "--as-proposal", "--tier", "agent-restricted"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "may propose content up to the agent-readable tier",
        ));
    assert!(!pending_text(&repo).contains("deep"));
}

#[test]
fn a_dry_run_counts_duplicates_as_refused_not_added() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "d.json",
        r#"{"nodes":[{"id":"d1"},{"id":"D1"},{"id":"d1"},{"id":"d2"}],
           "links":[{"source":"d1","target":"d2"},{"source":"d1","target":"d2"}]}"#,
    );
    let r = repo.json(
        repo.master(),
        &["import", f.to_str().unwrap(), "--format", "node-link", "--dry-run"],
    );
    assert_eq!(r["added"], serde_json::json!(["d1", "d2"]), "{r}");
    assert_eq!(r["refused_count"], 3, "two duplicate nodes and a duplicate link: {r}");
    assert_eq!(r["edges_added"].as_array().unwrap().len(), 1, "{r}");
    let mut text = repo.master();
    text.args(["import"])
        .arg(&f)
        .args(["--format", "node-link", "--dry-run"]);
    text.assert()
        .success()
        .stdout(predicate::str::contains("2 added, 0 changed, 0 unchanged, 3 refused"));
}
