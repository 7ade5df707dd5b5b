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
