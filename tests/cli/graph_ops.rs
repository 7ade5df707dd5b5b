//! unlink, supersede, and undo of any change.

use predicates::prelude::*;

use crate::harness::Repo;

fn two_nodes() -> Repo {
    let repo = Repo::new();
    for name in ["a", "b"] {
        repo.ok(&["add", "--type", "service", "--name", name, "-d", "words"]);
    }
    repo
}

fn outgoing(repo: &Repo, name: &str) -> Vec<String> {
    let v = repo.json(repo.master(), &["show", name]);
    v["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", e["relation"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect()
}

/// `doctor` finds nothing but the tests' cheap KDF.
fn sound(repo: &Repo) {
    let out = repo.master().arg("doctor").output().unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    let findings: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("FINDING") && !l.contains("passphrase KDF"))
        .collect();
    assert!(findings.is_empty(), "{report}");
    assert!(
        report.contains("every history and timeline row carries the master's MAC"),
        "{report}"
    );
}

#[test]
fn unlink_removes_the_edge_and_undo_puts_it_back() {
    let repo = two_nodes();
    repo.ok(&["link", "a", "uses", "b"]);
    let v = repo.json(repo.master(), &["unlink", "a", "uses", "b"]);
    assert_eq!(
        (v["from"].as_str(), v["relation"].as_str(), v["to"].as_str()),
        (Some("a"), Some("uses"), Some("b"))
    );
    assert!(outgoing(&repo, "a").is_empty());
    repo.master()
        .args(["unlink", "a", "uses", "b"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no edge a -> uses -> b: a has no edge to b"));
    repo.master()
        .args(["unlink", "ghost", "uses", "b"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no node named \"ghost\""));
    repo.locked().args(["unlink", "a", "uses", "b"]).assert().code(1);
    let timeline = repo.ok(&["timeline", "--limit", "1"]);
    assert!(timeline.contains("unlink a -> uses -> b"), "{timeline}");
    let out = repo.ok(&["undo"]);
    assert!(
        out.starts_with("undid commit #") && out.contains(": unlink a -> uses -> b"),
        "{out}"
    );
    assert_eq!(outgoing(&repo, "a"), vec!["uses b"]);
    let timeline = repo.ok(&["timeline", "--limit", "1"]);
    assert!(timeline.contains("undo commit #"), "{timeline}");
    sound(&repo);
}

#[test]
fn supersede_deprecates_in_one_commit_and_undo_walks_back_to_nothing() {
    let repo = two_nodes();
    let out = repo.ok(&["supersede", "a", "b", "--reason", "b is the new one"]);
    assert_eq!(out, "b supersedes a; a is deprecated (v2)\n");
    let a = repo.json(repo.master(), &["show", "a"]);
    assert_eq!(
        (a["status"].as_str(), a["status_reason"].as_str()),
        (Some("deprecated"), Some("b is the new one"))
    );
    assert_eq!(outgoing(&repo, "b"), vec!["supersedes a"]);
    repo.master()
        .args(["supersede", "a", "b"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("the edge b -> supersedes -> a already exists"));
    let v = repo.json(repo.master(), &["undo"]);
    assert_eq!(
        (v["kind"].as_str(), v["action"].as_str()),
        (Some("change"), Some("supersede"))
    );
    assert_eq!(repo.json(repo.master(), &["show", "a"])["status"], "active");
    assert!(outgoing(&repo, "b").is_empty());
    assert!(repo.ok(&["undo"]).contains(": add b"));
    assert!(repo.ok(&["undo"]).contains(": add a"));
    repo.master()
        .arg("undo")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot undo: nothing to undo"));
    sound(&repo);
}

#[test]
fn help_names_the_new_commands() {
    let repo = Repo::new();
    repo.locked()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("unlink").and(predicate::str::contains("supersede")));
    repo.locked()
        .args(["undo", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Undo the last change not undone yet"));
}

#[test]
fn an_old_version_is_shown_and_reverted_to() {
    let repo = two_nodes();
    repo.ok(&["update", "a", "-d", "second words", "-p", "owner=team-b"]);
    repo.ok(&["update", "a", "-d", "third words"]);
    let v1 = repo.json(repo.master(), &["history", "a", "--version", "1"]);
    assert_eq!(v1["description"], "words");
    assert_eq!(v1["version"], 1);
    repo.master()
        .args(["history", "a", "--version", "9"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("versions 1 to 3"));
    let out = repo.ok(&["history", "a", "--version", "1", "--revert"]);
    assert!(out.contains("the content of version 1 is version 4 now"), "{out}");
    let now = repo.json(repo.master(), &["show", "a"]);
    assert_eq!(now["description"], "words");
    assert_eq!(now["version"], 4);
    assert!(
        now["properties"].get("owner").is_none(),
        "a key added later is removed: {now}"
    );
    repo.ok(&["undo"]);
    let back = repo.json(repo.master(), &["show", "a"]);
    assert_eq!(back["description"], "third words");
    sound(&repo);
}
