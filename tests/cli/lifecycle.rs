//! deprecate, archive, restore and illegal transitions.

use predicates::prelude::*;

use crate::harness::{Repo, names};

#[test]
fn lifecycle_moves_and_list_hides_archived() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "convention", "--name", "c", "-d", "rule"]);
    repo.ok(&["deprecate", "c", "--reason", "superseded by d"]);
    let v = repo.json(repo.master(), &["show", "c"]);
    assert_eq!(
        (v["status"].as_str(), v["status_reason"].as_str()),
        (Some("deprecated"), Some("superseded by d"))
    );
    repo.master()
        .args(["deprecate", "c"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cannot move \"c\" from deprecated to deprecated",
        ));
    repo.ok(&["archive", "c"]);
    assert!(names(&repo.json(repo.master(), &["list"])).is_empty());
    assert_eq!(names(&repo.json(repo.master(), &["list", "--all"])), ["c"]);
    assert_eq!(
        names(&repo.json(repo.master(), &["list", "--status", "archived"])),
        ["c"]
    );
    repo.ok(&["restore", "c"]);
    let v = repo.json(repo.master(), &["show", "c"]);
    assert_eq!((v["status"].as_str(), v["version"].as_u64()), (Some("active"), Some(4)));
    repo.master()
        .args(["restore", "c"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("from active to active"));
    repo.master()
        .args(["archive", "nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no node named"));
}

#[test]
fn confirm_writes_a_version_that_says_when_and_scores_show_the_recency_term() {
    let repo = Repo::new();
    repo.ok(&[
        "add",
        "--type",
        "convention",
        "--name",
        "c",
        "-d",
        "rule",
        "--tier",
        "public",
    ]);
    repo.ok(&[
        "add", "--type", "service", "--name", "s", "-d", "svc", "--tier", "public",
    ]);
    repo.ok(&["link", "s", "uses", "c", "--tier", "public"]);
    let score = || {
        let v = repo.json(
            repo.master(),
            &["project", "--node", "s", "--tier", "public", "--format", "json"],
        );
        let items = v["items"].as_array().unwrap().clone();
        items.into_iter().find(|i| i["name"] == "c").unwrap()
    };
    assert_eq!(score()["freshness"].as_f64(), Some(10.0), "touched today");
    repo.ok(&["confirm", "c"]);
    let v = repo.json(repo.master(), &["show", "c"]);
    assert_eq!(v["version"].as_u64(), Some(2));
    let confirmed = v["properties"]["confirmed"].as_str().unwrap().to_owned();
    assert!(confirmed.ends_with('Z') && confirmed.contains('T'), "{confirmed}");
    assert_eq!(v["description"].as_str(), Some("rule"), "nothing else changed");
    repo.master()
        .args(["confirm", "nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nope"));
}
