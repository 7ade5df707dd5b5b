//! show, list, status at each unlock level.

use predicates::prelude::*;

use crate::harness::{Repo, names};

#[test]
fn list_shows_exactly_the_readable_tiers() {
    let repo = Repo::new().with_four_tiers();
    assert_eq!(names(&repo.json(repo.locked(), &["list"])), ["public"]);
    assert_eq!(
        names(&repo.json(repo.master(), &["list"])),
        ["agent-readable", "agent-restricted", "public"]
    );
    assert_eq!(names(&repo.json(repo.human(), &["list"])).len(), 4);
    assert_eq!(
        names(&repo.json(repo.human(), &["list", "--tier", "human-only"])),
        ["human-only"]
    );
    assert_eq!(
        names(&repo.json(repo.human(), &["list", "--type", "decision"])),
        ["human-only"]
    );
    repo.locked()
        .args(["list"])
        .assert()
        .success()
        .stderr(predicate::str::contains("locked, showing public content only"));
    repo.master()
        .args(["list", "--status", "bogus"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("status"));
}

#[test]
fn show_hides_what_the_level_cannot_read() {
    let repo = Repo::new().with_four_tiers();
    repo.locked()
        .args(["show", "agent-readable"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no node named").and(predicate::str::contains("not visible")));
    let text = repo.master().args(["show", "public"]).assert().success();
    let out = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(
        out.contains("public  [service · public · active · v1]") && out.contains("-> uses -> agent-readable"),
        "{out}"
    );
    let locked = repo.json(repo.locked(), &["show", "public"]);
    assert!(
        locked["outgoing"].as_array().unwrap().is_empty(),
        "locked: no edge to a hidden node"
    );
}

#[test]
fn status_counts_every_tier_but_details_only_readable_ones() {
    let repo = Repo::new().with_four_tiers();
    let locked = repo.json(repo.locked(), &["status"]);
    assert_eq!(locked["level"], "locked");
    assert_eq!(locked["total_nodes"], 4);
    let readable: Vec<bool> = locked["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["readable"].as_bool().unwrap())
        .collect();
    assert_eq!(readable, [true, false, false, false]);
    assert_eq!(locked["by_type"], serde_json::json!({"service": 1}));
    let human = repo.json(repo.human(), &["status"]);
    assert_eq!(human["by_type"], serde_json::json!({"service": 3, "decision": 1}));
    assert!(human["last_update"].as_str().unwrap().ends_with('Z'));
    let text = repo.locked().args(["status"]).assert().success();
    assert!(String::from_utf8_lossy(&text.get_output().stdout).contains("not shown"));
}
