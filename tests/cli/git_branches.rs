//! Each branch's graph only moves forward: whatever moves a branch (pull,
//! `pull --rebase`, `rebase`, a force push taken with `reset --hard`,
//! revert, cherry-pick), a graph
//! that does not descend from the one this machine last saw on that branch
//! opens read-only; a legitimate change through the same operation does
//! not. Another branch, a detached commit and a linked work tree keep
//! records of their own, and a first sight says what it trusts.

use std::path::Path;

use crate::git::{add, commit_all, git, git_ok, graphex, repo};
use crate::harness::{PASS, bare};

fn head(root: &Path) -> String {
    git_ok(root, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// stderr of `graphex ARGS` at the master level (it may fail).
fn said(root: &Path, args: &[&str]) -> (bool, String) {
    let out = bare(root).env("GRAPHEX_PASSPHRASE", PASS).args(args).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn rolled_back(root: &Path) -> bool {
    let (_, err) = said(root, &["list"]);
    err.contains("not the newest this machine saw")
}

fn write_refused(root: &Path) -> bool {
    let (ok, err) = said(root, &["add", "--type", "service", "--name", "probe", "-d", "x"]);
    !ok && err.contains("graphex freshness restore")
}

/// The reviewer's repository (`main` with a security fix in the graph,
/// pushed), the bare remote, and the commit from before the fix.
struct World {
    reviewer: tempfile::TempDir,
    remote: tempfile::TempDir,
    before_fix: String,
}

fn world() -> World {
    let reviewer = repo();
    let root = reviewer.path();
    let before_fix = head(root);
    add(root, "security-fix", "the policy as fixed");
    commit_all(root, "fix the policy");
    let remote = tempfile::tempdir().unwrap();
    git_ok(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    git_ok(root, &["remote", "add", "origin", remote.path().to_str().unwrap()]);
    git_ok(root, &["push", "-q", "origin", "main"]);
    World {
        reviewer,
        remote,
        before_fix,
    }
}

impl World {
    fn root(&self) -> &Path {
        self.reviewer.path()
    }

    /// A teammate's clone: `change` runs in it, then its main is pushed
    /// (`force`: as a force push).
    fn teammate_pushes(&self, force: bool, change: impl FnOnce(&Path)) {
        let clone = tempfile::tempdir().unwrap();
        let mate = clone.path().join("mate");
        git_ok(
            clone.path(),
            &[
                "clone",
                "-q",
                self.remote.path().to_str().unwrap(),
                mate.to_str().unwrap(),
            ],
        );
        change(&mate);
        let push: &[&str] = if force {
            &["push", "-q", "-f", "origin", "main"]
        } else {
            &["push", "-q", "origin", "main"]
        };
        git_ok(&mate, push);
    }

    /// In a clone: the graph of the commit before the fix put back, with a
    /// code change, as one ordinary commit.
    fn older_graph_commit(&self, mate: &Path) {
        let out = git(
            self.root(),
            &["show", &format!("{}:.gpp/graphex/graph.db", self.before_fix)],
        );
        std::fs::write(mate.join(".gpp/graphex/graph.db"), out.stdout).unwrap();
        std::fs::write(mate.join("code.rs"), "fn innocent() {}\n").unwrap();
        commit_all(mate, "refactor: tidy code");
    }

    /// One local commit of the reviewer's (code only).
    fn local_commit(&self) {
        std::fs::write(self.root().join("notes.txt"), "local work\n").unwrap();
        commit_all(self.root(), "local notes");
    }
}

#[test]
fn pull_rebase_bringing_an_older_graph_is_refused_and_a_newer_one_is_not() {
    let w = world();
    w.teammate_pushes(false, |mate| w.older_graph_commit(mate));
    w.local_commit();
    let _ = git(w.root(), &["pull", "-q", "--rebase", "origin", "main"]);
    assert!(
        git_ok(w.root(), &["log", "-1", "--format=%s"]).contains("local notes"),
        "rebased"
    );
    assert!(rolled_back(w.root()), "the rebased branch's graph went back");
    assert!(write_refused(w.root()));
    let shown = graphex(w.root(), &["freshness"]);
    assert!(
        shown.contains("ROLLED BACK") && shown.contains("branch main"),
        "{shown}"
    );

    // A teammate's newer graph through the same operation: fresh.
    let w = world();
    w.teammate_pushes(false, |mate| {
        add(mate, "teammate-node", "built on the fix");
        commit_all(mate, "teammate adds a node");
    });
    w.local_commit();
    let _ = git(w.root(), &["pull", "-q", "--rebase", "origin", "main"]);
    assert!(!rolled_back(w.root()));
    assert!(graphex(w.root(), &["list"]).contains("teammate-node"));
}

#[test]
fn a_force_push_taken_with_reset_hard_is_refused_and_a_plain_one_is_not() {
    let w = world();
    let before = w.before_fix.clone();
    w.teammate_pushes(true, |mate| {
        git_ok(mate, &["reset", "-q", "--hard", &before]);
        std::fs::write(mate.join("code.rs"), "fn other() {}\n").unwrap();
        commit_all(mate, "rewrite history");
    });
    git_ok(w.root(), &["fetch", "-q", "origin"]);
    git_ok(w.root(), &["reset", "-q", "--hard", "origin/main"]);
    assert!(rolled_back(w.root()), "a force-pushed older graph");
    assert!(write_refused(w.root()));
    // `freshness restore` brings the newer graph back (from this machine's copy).
    let (ok, err) = said(w.root(), &["freshness", "restore", "--yes"]);
    assert!(ok, "{err}");
    assert!(graphex(w.root(), &["list"]).contains("security-fix"));

    let w = world();
    w.teammate_pushes(false, |mate| {
        add(mate, "next", "a later graph");
        commit_all(mate, "next");
    });
    git_ok(w.root(), &["fetch", "-q", "origin"]);
    git_ok(w.root(), &["reset", "-q", "--hard", "origin/main"]);
    assert!(!rolled_back(w.root()));
}

#[test]
fn a_plain_rebase_onto_an_older_graph_is_refused_and_onto_a_newer_one_is_not() {
    for older in [true, false] {
        let w = world();
        w.teammate_pushes(false, |mate| {
            if older {
                w.older_graph_commit(mate);
            } else {
                add(mate, "teammate-node", "built on the fix");
                commit_all(mate, "teammate adds a node");
            }
        });
        w.local_commit();
        git_ok(w.root(), &["fetch", "-q", "origin"]);
        let _ = git(w.root(), &["rebase", "-q", "origin/main"]);
        assert!(
            git_ok(w.root(), &["log", "-1", "--format=%s"]).contains("local notes"),
            "rebased"
        );
        assert_eq!(rolled_back(w.root()), older, "older graph: {older}");
        assert_eq!(write_refused(w.root()), older);
    }
}

#[test]
fn a_cherry_pick_of_an_older_graph_is_refused_and_of_code_is_not() {
    let w = world();
    // A teammate pushes a branch: a code commit, then one that puts the
    // graph from before the fix back beside a code change.
    let clone = tempfile::tempdir().unwrap();
    let mate = clone.path().join("mate");
    let remote = w.remote.path().to_str().unwrap();
    git_ok(clone.path(), &["clone", "-q", remote, mate.to_str().unwrap()]);
    git_ok(&mate, &["checkout", "-q", "-b", "other"]);
    std::fs::write(mate.join("tidy.rs"), "fn tidy() {}\n").unwrap();
    commit_all(&mate, "code only");
    let code_only = head(&mate);
    w.older_graph_commit(&mate);
    let older_graph = head(&mate);
    git_ok(&mate, &["push", "-q", "origin", "other"]);
    git_ok(w.root(), &["fetch", "-q", "origin"]);
    w.local_commit();
    git_ok(w.root(), &["cherry-pick", &code_only]);
    assert!(!rolled_back(w.root()), "a code commit picked leaves the graph");
    git_ok(w.root(), &["cherry-pick", &older_graph]);
    assert!(rolled_back(w.root()), "the older graph picked onto main");
    assert!(write_refused(w.root()));
}

#[test]
fn a_revert_of_the_graph_is_refused_and_a_revert_of_code_is_not() {
    let w = world();
    std::fs::write(w.root().join("code.rs"), "fn f() {}\n").unwrap();
    commit_all(w.root(), "code");
    let _ = git(w.root(), &["revert", "--no-edit", "HEAD"]);
    assert!(!rolled_back(w.root()), "reverting code leaves the graph");
    let fix = git_ok(w.root(), &["log", "--format=%H", "--grep=fix the policy"])
        .trim()
        .to_owned();
    let _ = git(w.root(), &["revert", "--no-edit", &fix]);
    assert!(
        rolled_back(w.root()),
        "reverting the graph's commit puts an older graph back"
    );
}

#[test]
fn each_branch_worktree_and_detached_commit_keeps_its_own_record_and_a_first_sight_says_so() {
    let w = world();
    let root = w.root();
    // The feature branch holds the graph from before the fix: another
    // branch, seen for the first time, is trusted and said so.
    // (The checkout's hook, or else the first command, says it.)
    let hooked = git_ok(root, &["checkout", "-q", "feature"]);
    let (ok, err) = said(root, &["list"]);
    assert!(ok, "{err}");
    let first = format!("{hooked}{err}");
    assert!(
        first.contains("first sight") && first.contains("branch feature"),
        "{first}"
    );
    let (_, again) = said(root, &["list"]);
    assert!(!again.contains("first sight"), "said once: {again}");
    add(root, "feature-work", "writes work on the branch");
    commit_all(root, "feature work");
    // Back on main: its own record, fresh; and feature's graph, had it
    // come to main, would be refused there.
    git_ok(root, &["checkout", "-q", "main"]);
    assert!(!rolled_back(root));
    let out = git(root, &["show", &format!("{}:.gpp/graphex/graph.db", w.before_fix)]);
    std::fs::write(root.join(".gpp/graphex/graph.db"), out.stdout).unwrap();
    assert!(rolled_back(root), "main's record is main's");
    git_ok(root, &["checkout", "-q", "--", ".gpp"]);
    assert!(!rolled_back(root));
    // A linked work tree on another branch: a record of its own.
    let trees = tempfile::tempdir().unwrap();
    let linked = trees.path().join("wt");
    let hooked = git_ok(
        root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "other",
            linked.to_str().unwrap(),
            &w.before_fix,
        ],
    );
    let (ok, err) = said(&linked, &["list"]);
    let first = format!("{hooked}{err}");
    assert!(
        ok && first.contains("first sight") && first.contains("branch other"),
        "{first}"
    );
    assert!(!rolled_back(root));
    // A detached commit: its own record too.
    let hooked = git_ok(root, &["checkout", "-q", &w.before_fix]);
    let (ok, err) = said(root, &["list"]);
    let first = format!("{hooked}{err}");
    assert!(
        ok && first.contains("first sight") && first.contains("detached"),
        "{first}"
    );
    git_ok(root, &["checkout", "-q", "main"]);
    assert!(!rolled_back(root));
}

#[test]
fn a_fresh_clone_trusts_once_and_freshness_trust_names_the_graph_to_trust() {
    let w = world();
    let clones = tempfile::tempdir().unwrap();
    let clone = clones.path().join("clone");
    git_ok(
        clones.path(),
        &[
            "clone",
            "-q",
            w.remote.path().to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    // Someone put the older graph in the clone's work tree before its
    // first open: the first sight trusts it, and says which.
    let out = git(w.root(), &["show", &format!("{}:.gpp/graphex/graph.db", w.before_fix)]);
    std::fs::write(clone.join(".gpp/graphex/graph.db"), out.stdout).unwrap();
    let (ok, err) = said(&clone, &["status"]);
    assert!(ok && err.contains("first sight of this store on this machine"), "{err}");
    let doctor = bare(&clone)
        .env("GRAPHEX_PASSPHRASE", PASS)
        .args(["doctor"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("freshness"));
    // The reviewer names the revision to trust: origin/main, which holds
    // the fix; the graph in the work tree does not descend from it.
    let (ok, err) = said(&clone, &["freshness", "trust", "origin/main"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("trusted graph commit") && err.contains("branch main"),
        "{err}"
    );
    assert!(err.contains("not the newest"), "{err}");
    assert!(rolled_back(&clone));
    git_ok(&clone, &["checkout", "-q", "--", ".gpp"]);
    assert!(!rolled_back(&clone));
    // A revision that holds no graph sealed by this store's key is refused.
    let (ok, err) = said(&clone, &["freshness", "trust", "no-such-branch"]);
    assert!(!ok && err.contains("git knows no commit"), "{err}");
}
