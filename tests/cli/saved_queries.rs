//! `graphex queries` and `graphex query --saved`: saved queries through the
//! binary, their refusals, tampering, and the disk canary.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::harness::Repo;

fn linked() -> Repo {
    let repo = Repo::new();
    for name in ["a", "b"] {
        repo.ok(&["add", "--type", "service", "--name", name, "-d", "words"]);
    }
    repo.ok(&["link", "a", "uses", "b"]);
    repo
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn save_list_run_replace_and_delete() {
    let repo = linked();
    assert!(repo.ok(&["queries", "list"]).contains("no saved queries"));
    assert_eq!(
        repo.ok(&["queries", "save", "deps", "a -> * -> *"]),
        "saved query deps\n"
    );
    repo.ok(&["queries", "save", "all", "* -> uses -> *"]);
    let text = repo.ok(&["queries", "list"]);
    assert_eq!(text, "all   * -> uses -> *\ndeps  a -> * -> *\n");
    let v = repo.json(repo.master(), &["queries", "list"]);
    assert_eq!(v[1]["name"], "deps");
    assert_eq!(v[1]["text"], "a -> * -> *");
    assert!(v[1]["saved_at"].as_str().unwrap().ends_with('Z'));
    // The same output as the query itself, in every format.
    for format in ["text", "json", "mermaid", "dot"] {
        let saved = repo.ok(&["query", "--saved", "deps", "--format", format]);
        let direct = repo.ok(&["query", "a -> * -> *", "--format", format]);
        assert_eq!(saved, direct, "{format}");
    }
    assert_eq!(
        repo.json(repo.master(), &["query", "--saved", "deps"]),
        repo.json(repo.master(), &["query", "a -> * -> *"])
    );
    repo.ok(&["queries", "save", "deps", "b <-> * <-> *"]);
    let v = repo.json(repo.master(), &["queries", "list"]);
    assert_eq!(v.as_array().unwrap().len(), 2, "replaced");
    assert_eq!(v[1]["text"], "b <-> * <-> *");
    assert_eq!(repo.ok(&["queries", "delete", "deps"]), "deleted saved query deps\n");
    repo.master()
        .args(["queries", "delete", "deps"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no saved query named \"deps\""));
    repo.master()
        .args(["query", "--saved", "deps"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no saved query named \"deps\" (saved: all)"));
}

#[test]
fn refusals_are_clear() {
    let repo = linked();
    repo.master()
        .args(["queries", "save", "q", "a -> "])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("invalid query").and(predicate::str::contains("expected")));
    repo.master()
        .args(["queries", "save", "Bad", "a -> * -> *"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("uppercase"));
    repo.locked()
        .args(["queries", "list"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("master key"));
    repo.locked()
        .args(["query", "--saved", "q"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("master key"));
    repo.master().args(["query"]).assert().code(2);
    repo.master()
        .args(["query", "a -> * -> *", "--saved", "q"])
        .assert()
        .code(2);
    repo.master().args(["queries", "--help"]).assert().success().stdout(
        predicate::str::contains("list")
            .and(predicate::str::contains("save"))
            .and(predicate::str::contains("delete")),
    );
    repo.master()
        .args(["query", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--saved <NAME>"));
}

#[test]
fn a_row_altered_outside_graphex_is_refused_and_named_by_doctor() {
    let repo = linked();
    repo.ok(&["queries", "save", "deps", "a -> * -> *"]);
    let db = repo.root().join(".gpp/graphex/graph.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM saved_queries", []).unwrap();
    drop(conn);
    repo.master()
        .args(["queries", "list"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "saved queries: they differ from what the master sealed",
        ));
    let out = repo.master().arg("doctor").output().unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("saved queries"), "{report}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_saved_query_leaves_no_plaintext_in_the_repository() {
    let repo = linked();
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "canarysecretnode",
        "-d",
        "x",
        "--tier",
        "agent-restricted",
    ]);
    repo.ok(&[
        "queries",
        "save",
        "canarysavedname",
        "canarysecretnode -> canaryrelq -> *",
    ]);
    let mut all = Vec::new();
    files(repo.root(), &mut all);
    for canary in ["canarysecretnode", "canaryrelq", "canarysavedname"] {
        for f in &all {
            let bytes = std::fs::read(f).unwrap();
            assert!(
                !bytes.windows(canary.len()).any(|w| w == canary.as_bytes()),
                "{canary} in {}",
                f.display()
            );
        }
    }
    let v = repo.json(repo.master(), &["queries", "list"]);
    assert_eq!(v[0]["name"], "canarysavedname");
}
