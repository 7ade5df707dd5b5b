//! Federation over a git remote: `publish --push` commits each bundle on
//! its own ref of a bare repository, and consumers pull it by URL or by a
//! remote's name. Refused, with nothing written: a ref moved back to an
//! older bundle, a ref force-pushed with a bundle signed by another key, a
//! sealed bundle pulled by a project it was not sealed to.

use std::path::Path;

use predicates::prelude::*;

use crate::federation::{consumer_store, key_of, names, publisher, write_config};
use crate::git::{git_command, git_ok};
use crate::harness::Repo;

const REF: &str = "refs/graphex/federation/orders";

/// A bare repository in `dir`, as a hosted remote is.
fn bare_remote(dir: &Path) -> String {
    git_ok(dir, &["init", "-q", "--bare", "remote.git"]);
    format!("file://{}", dir.join("remote.git").display())
}

/// Makes `repo`'s root a git repository whose `origin` is `url`.
fn with_origin(repo: &Repo, url: &str) {
    git_ok(repo.root(), &["init", "-q", "-b", "main"]);
    git_ok(repo.root(), &["remote", "add", "origin", url]);
}

/// Subscribes `repo` to `shop/orders` at `git` (a URL or a remote's name),
/// pinned to `key`, approved.
fn subscribe_git(repo: &Repo, git: &str, key: &str) {
    write_config(
        repo,
        &format!(
            "[graphex.federation]\nsources = [{{ project = \"shop\", subgraph = \"orders\", access = \"read-only\", git = {git:?}, key = \"{key}\" }}]\n"
        ),
    );
    repo.approve_config();
}

/// The commit `reference` names in the repository at `dir`.
fn head_of(dir: &Path, reference: &str) -> String {
    git_ok(dir, &["rev-parse", reference]).trim().to_owned()
}

/// `graphex` in `repo` at master level, with git's environment isolated.
fn graphex_in(repo: &Repo) -> assert_cmd::Command {
    let mut c = repo.master();
    c.env("GIT_CONFIG_GLOBAL", "/dev/null").env("GIT_CONFIG_NOSYSTEM", "1");
    c
}

fn pull(repo: &Repo) -> assert_cmd::assert::Assert {
    graphex_in(repo).args(["federation", "pull", "--json"]).assert()
}

#[test]
fn two_consumers_pull_over_a_bare_remote_and_a_ref_moved_back_is_refused() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let shop = publisher(None);
    with_origin(&shop, &url);
    let out = graphex_in(&shop)
        .args(["federation", "publish", "--push"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(said.contains(&format!("pushed to origin {REF}")), "{said}");
    assert!(said.contains("the ref's first commit"), "{said}");
    let bare = remote.path().join("remote.git");
    let first = head_of(&bare, REF);
    let branches = git_ok(&bare, &["for-each-ref", "refs/heads"]);
    assert!(branches.trim().is_empty(), "never on a branch: {branches}");
    let tree = git_ok(&bare, &["ls-tree", "--name-only", REF]);
    assert_eq!(tree.trim(), "orders.bundle");

    // One consumer names the URL, the other a remote of its own.
    let (a, b) = (consumer_store(), consumer_store());
    let key = key_of(&shop);
    git_ok(a.root(), &["init", "-q"]);
    subscribe_git(&a, &url, &key);
    with_origin(&b, &url);
    subscribe_git(&b, "origin", &key);
    for repo in [&a, &b] {
        let out = pull(repo).success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(names(&v[0], "added"), ["orders-api"], "public only: {v}");
        assert_eq!(v[0]["sequence"], 1);
        assert_eq!(head_of(repo.root(), "refs/graphex/sources/shop/orders"), first);
    }

    // The next bundle follows the first on the ref.
    shop.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "orders-web",
        "-d",
        "new",
        "--tier",
        "public",
    ]);
    let out = graphex_in(&shop)
        .args(["federation", "publish", "orders", "--push=origin", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["pushed"]["parent"], first.as_str());
    let second = head_of(&bare, REF);
    assert_eq!(v["pushed"]["commit"], second.as_str());
    let v: serde_json::Value = serde_json::from_slice(&pull(&a).success().get_output().stdout).unwrap();
    assert_eq!(names(&v[0], "added"), ["orders-web"]);
    assert_eq!(v[0]["previous"], 1);

    // The remote's ref put back to the first bundle: a replay.
    git_ok(&bare, &["update-ref", REF, &first]);
    pull(&a)
        .failure()
        .stderr(predicate::str::contains("backwards").and(predicate::str::contains("replay")));
    assert_eq!(
        head_of(a.root(), "refs/graphex/sources/shop/orders"),
        second,
        "the record stays"
    );
    let refs = git_ok(a.root(), &["for-each-ref", "refs/graphex/incoming"]);
    assert!(refs.trim().is_empty(), "nothing fetched is left behind: {refs}");
    // Even with this repository's record of the ref gone, the bundle's
    // sequence is older than the one pulled: refused.
    git_ok(a.root(), &["update-ref", "-d", "refs/graphex/sources/shop/orders"]);
    pull(&a)
        .failure()
        .stderr(predicate::str::contains("older than #2 already pulled"));
    assert!(a.ok(&["list"]).contains("orders-web"), "nothing was undone");
    // A consumer that never saw #2 takes #1 as it is.
    pull(&b).success();
}

#[test]
fn a_ref_force_pushed_with_another_key_or_sealed_to_another_is_refused() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let a = consumer_store();
    let b = consumer_store();
    // Sealed to `a` only.
    let shop = publisher(Some(&a));
    with_origin(&shop, &url);
    graphex_in(&shop)
        .args(["federation", "publish", "--push"])
        .assert()
        .success();
    let key = key_of(&shop);
    for repo in [&a, &b] {
        git_ok(repo.root(), &["init", "-q"]);
        subscribe_git(repo, &url, &key);
    }
    let v: serde_json::Value = serde_json::from_slice(&pull(&a).success().get_output().stdout).unwrap();
    assert_eq!(
        names(&v[0], "added"),
        ["orders-api", "orders-db", "orders-keys"],
        "the sealed bundle carries every tier up to agent-restricted"
    );
    pull(&b).failure().stderr(predicate::str::contains("sealed"));
    assert!(!b.ok(&["list"]).contains("orders-api"), "nothing written");

    // An impostor with its own key publishes `shop/orders` and forces the
    // remote's ref to its commit.
    let impostor = publisher(None);
    let other = tempfile::tempdir().unwrap();
    let other_url = bare_remote(other.path());
    with_origin(&impostor, &other_url);
    graphex_in(&impostor)
        .args(["federation", "publish", "--push"])
        .assert()
        .success();
    let bare = remote.path().join("remote.git");
    let out = git_command(&bare, &["fetch", "-q", &other_url, &format!("+{REF}:{REF}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = a.ok(&["list"]);
    let recorded = head_of(a.root(), "refs/graphex/sources/shop/orders");
    pull(&a)
        .failure()
        .stderr(predicate::str::contains("signature").or(predicate::str::contains("pinned")));
    assert_eq!(a.ok(&["list"]), before, "nothing written");
    assert_eq!(
        head_of(a.root(), "refs/graphex/sources/shop/orders"),
        recorded,
        "a refused bundle is not recorded as pulled"
    );
}
