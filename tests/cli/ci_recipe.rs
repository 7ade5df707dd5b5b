//! The CI recipe of docs/git-and-ci.md, run as a CI job runs it: in a
//! fresh clone (no state of this machine's repository), on the branch of
//! a pull request, with `origin/main` as the base; first without any key,
//! then with the master identity as the job's secret file.

use std::path::Path;

use crate::git::{commit_all, git_ok, graphex, repo};
use crate::harness::bare;

fn job(dir: &Path, identity: Option<&Path>, args: &[&str]) -> assert_cmd::assert::Assert {
    let mut c = bare(dir);
    if let Some(id) = identity {
        c.env("GRAPHEX_IDENTITY", id);
    }
    c.args(args).assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

#[test]
fn the_documented_ci_job_verifies_without_a_key_and_reports_with_one() {
    let dir = repo();
    let origin = dir.path();
    // On main: an agent-readable node; the branch adds a public one.
    graphex(
        origin,
        &[
            "add",
            "--type",
            "service",
            "--name",
            "inner",
            "-d",
            "inside",
            "--tier",
            "agent-readable",
        ],
    );
    commit_all(origin, "inner");
    git_ok(origin, &["branch", "-f", "feature"]);
    git_ok(origin, &["checkout", "-q", "feature"]);
    graphex(
        origin,
        &["add", "--type", "service", "--name", "outside", "-d", "public words"],
    );
    commit_all(origin, "feature work");
    let identity = origin.join("master.id");
    graphex(origin, &["keys", "export-master", identity.to_str().unwrap()]);
    git_ok(origin, &["checkout", "-q", "main"]);
    // The job's checkout: a clone, on the pull request's branch.
    let ci = tempfile::tempdir().unwrap();
    let clone = ci.path().join("checkout");
    git_ok(
        ci.path(),
        &["clone", "-q", origin.to_str().unwrap(), clone.to_str().unwrap()],
    );
    git_ok(&clone, &["checkout", "-q", "feature"]);
    // Without a key: integrity, no rollback, and public content. (The one
    // finding doctor may make is this test's own cheap passphrase KDF.)
    let doctor = stdout(&job(&clone, None, &["doctor"]));
    let findings: Vec<&str> = doctor.lines().filter(|l| l.starts_with("FINDING")).collect();
    assert!(
        findings
            .iter()
            .all(|l| l.contains("passphrase KDF") && l.contains("GRAPHEX_TEST_KDF_LOG_N")),
        "{doctor}"
    );
    assert!(
        doctor.contains("ok       schema") && doctor.contains("ok       audit chain"),
        "{doctor}"
    );
    job(&clone, None, &["git", "check"]).success();
    let md = stdout(&job(&clone, None, &["diff", "origin/main...HEAD", "--format", "markdown"]).success());
    assert!(md.contains("read at locked"), "{md}");
    assert!(md.contains("+ outside"), "{md}");
    assert!(
        !md.contains("inner"),
        "an agent-readable node is never shown keyless: {md}"
    );
    assert!(
        md.contains("agent-readable: sealed at this level: 1 → 1 node(s)"),
        "{md}"
    );
    job(&clone, None, &["diff", "origin/main...HEAD", "--check"]).success();
    // With the master identity: everything below human-only.
    let md = stdout(
        &job(
            &clone,
            Some(&identity),
            &["diff", "origin/main...HEAD", "--format", "markdown"],
        )
        .success(),
    );
    assert!(md.contains("read at master") && md.contains("+ outside"), "{md}");
    assert!(md.contains("| agent-readable | 1 | 0 |"), "{md}");
    // A tier lowered on the branch fails the job's check.
    git_ok(origin, &["checkout", "-q", "feature"]);
    graphex(origin, &["update", "inner", "--tier", "public"]);
    commit_all(origin, "lower it");
    git_ok(&clone, &["pull", "-q", "--no-rebase", "origin", "feature"]);
    let failed = job(&clone, Some(&identity), &["diff", "origin/main...HEAD", "--check"]).failure();
    assert_eq!(failed.get_output().status.code(), Some(1));
}
