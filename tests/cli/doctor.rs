//! `graphex doctor`: a clean report exits 0; each kind of damage is named
//! and exits 1, also when the store refuses to open.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::harness::Repo;

/// The doctor's JSON report and exit code, at master level.
fn doctor(repo: &Repo, extra: &[&str]) -> (serde_json::Value, i32) {
    let out = repo.master().args(["--json", "doctor"]).args(extra).output().unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code().unwrap())
}

pub(crate) fn outcome<'a>(report: &'a serde_json::Value, name: &str) -> (&'a str, &'a str) {
    let c = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {report}"));
    (c["outcome"].as_str().unwrap(), c["detail"].as_str().unwrap())
}

/// A demo store (its light KDF is expected) with some content.
fn demo() -> Repo {
    let repo = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    crate::harness::demo_into(repo.root());
    repo
}

fn sql(root: &Path, statement: &str) {
    let conn = rusqlite::Connection::open(root.join(".gpp/graphex/graph.db")).unwrap();
    conn.execute_batch(statement).unwrap();
}

fn demo_master(repo: &Repo) -> assert_cmd::Command {
    let mut c = repo.locked();
    c.env("GRAPHEX_PASSPHRASE", "graphex-demo");
    c
}

fn demo_doctor(repo: &Repo, extra: &[&str]) -> (serde_json::Value, i32) {
    let out = demo_master(repo)
        .args(["--json", "doctor"])
        .args(extra)
        .output()
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code().unwrap())
}

#[test]
fn a_sound_store_passes_and_a_weak_kdf_is_a_finding() {
    let repo = demo();
    let (report, code) = demo_doctor(&repo, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["level"], "master");
    assert_eq!(outcome(&report, "open").0, "ok");
    assert!(outcome(&report, "blobs decrypt").1.contains("decrypt"));
    // A store made with the tests' cheap KDF, not a demo: a finding.
    let test_store = Repo::new();
    let (report, code) = doctor(&test_store, &[]);
    assert_eq!(code, 1);
    let (o, d) = outcome(&report, "passphrase KDF");
    assert_eq!(o, "finding");
    assert!(d.contains("2^4 is weak"), "{d}");
}

#[test]
fn a_rolled_back_or_deleted_row_is_named_though_the_store_will_not_open() {
    for damage in [
        "DELETE FROM edges WHERE id = (SELECT MIN(id) FROM edges)",
        "UPDATE nodes SET version = version + 1 WHERE id = (SELECT MIN(id) FROM nodes WHERE tier = 1)",
    ] {
        let repo = demo();
        sql(repo.root(), damage);
        demo_master(&repo).arg("status").assert().code(1);
        let (report, code) = demo_doctor(&repo, &[]);
        assert_eq!(code, 1, "{damage}");
        let (o, d) = outcome(&report, "open");
        assert_eq!(o, "finding");
        assert!(d.contains("integrity check failed"), "{damage}: {d}");
        assert_eq!(outcome(&report, "schema").0, "ok", "the rest is still inspected");
    }
}

#[test]
fn a_substituted_key_file_is_named() {
    let repo = demo();
    let keys = repo.root().join(".gpp/graphex/keys");
    // Any valid key file of another store is a substitute here (a demo of
    // its own: copies of the shared fixture hold the same keys).
    let other = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    crate::harness::bare(other.root())
        .args(["demo", ".", "--no-console"])
        .assert()
        .success();
    std::fs::copy(
        other.root().join(".gpp/graphex/keys/public.key"),
        keys.join("public.key"),
    )
    .unwrap();
    let (report, code) = demo_doctor(&repo, &[]);
    assert_eq!(code, 1);
    assert!(
        outcome(&report, "open").1.contains("key substitution refused"),
        "{report}"
    );
}

/// Attack: `master.pub` swapped, so sessions without a pin seal proposals
/// to the attacker. The doctor names the file; a locked `propose` warns.
#[test]
fn a_swapped_master_pub_is_named() {
    let repo = Repo::new();
    let file = repo.root().join(".gpp/graphex/keys/master.pub");
    let genuine = std::fs::read_to_string(&file).unwrap();
    let other = Repo::new();
    std::fs::copy(other.root().join(".gpp/graphex/keys/master.pub"), &file).unwrap();
    let (report, code) = doctor(&repo, &[]);
    assert_eq!(code, 1);
    let (result, detail) = outcome(&report, "open");
    assert_eq!(result, "finding");
    assert!(
        detail.contains("key substitution refused") && detail.contains("master.pub") && detail.contains(genuine.trim()),
        "{report}"
    );
    repo.locked()
        .args(["propose", "-"])
        .write_stdin(r#"{"agent":"a","trust":50,"rationale":"r","changes":[{"op":"deprecate","name":"x"}]}"#)
        .assert()
        .stderr(predicates::str::contains("cannot authenticate"));
}

#[test]
fn orphan_blobs_are_found_and_collected_after_the_grace_period() {
    let repo = demo();
    let objects = repo.root().join(".gpp/objects");
    let old = objects.join("ab".repeat(32));
    let fresh = objects.join("cd".repeat(32));
    let tmp = objects.join(".tmp-interrupted-write");
    for p in [&old, &fresh, &tmp] {
        std::fs::write(p, b"left by an interrupted commit").unwrap();
    }
    let long_ago = SystemTime::now() - Duration::from_secs(3600);
    for p in [&old, &tmp] {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    let (report, code) = demo_doctor(&repo, &[]);
    assert_eq!(code, 1);
    assert!(
        outcome(&report, "orphan blobs").1.starts_with("3 blob file(s)"),
        "{report}"
    );
    let (report, _) = demo_doctor(&repo, &["--collect-orphans"]);
    assert_eq!(report["collected"], 2);
    assert!(!old.exists() && !tmp.exists());
    assert!(fresh.exists(), "a young orphan may belong to a commit under way");
    assert!(outcome(&report, "orphan blobs").1.contains("1 left"));
}

/// Attack: history rows deleted by hand leave their blobs named by no row,
/// and `--collect-orphans` used to delete that evidence as leftovers.
#[test]
fn blobs_of_deleted_history_rows_are_tampering_not_orphans() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "billing", "-d", "first words"]);
    repo.ok(&["update", "billing", "-d", "second words"]);
    let db = repo.root().join(".gpp/graphex/graph.db");
    let blob: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT iif(typeof(blob) = 'blob', lower(hex(blob)), blob) FROM node_versions WHERE version = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    sql(repo.root(), "DELETE FROM node_versions WHERE version = 1");
    let file = repo.root().join(".gpp/objects").join(&blob[..2]).join(&blob[2..]);
    // A leftover of a commit that never landed, beside it.
    let leftover = repo.root().join(".gpp/objects").join("ef".repeat(32));
    std::fs::write(&leftover, b"left by an interrupted commit").unwrap();
    for p in [&file, &leftover] {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }
    let (report, code) = doctor(&repo, &[]);
    assert_eq!(code, 1);
    let (result, detail) = outcome(&report, "history rows");
    assert_eq!(result, "finding", "{report}");
    assert!(
        detail.contains("history rows deleted outside Graphex") && detail.contains("version 1"),
        "{detail}"
    );
    assert!(
        outcome(&report, "orphan blobs").1.starts_with("1 blob file(s)"),
        "{report}"
    );
    let (report, _) = doctor(&repo, &["--collect-orphans"]);
    assert_eq!(report["collected"], 1, "{report}");
    assert!(file.exists(), "the evidence is kept");
    assert!(!leftover.exists());
    assert_eq!(outcome(&report, "history rows").0, "finding");
}

#[test]
fn a_damaged_or_truncated_index_is_reported_not_a_crash() {
    let page = 4096;
    for damage in ["page types", "truncated"] {
        let repo = demo();
        let db = repo.root().join(".gpp/graphex/graph.db");
        let mut bytes = std::fs::read(&db).unwrap();
        if damage == "truncated" {
            bytes.truncate(bytes.len() / 2);
        } else {
            // The first byte of a page says what kind of b-tree page it is.
            for p in (2..bytes.len() / page).step_by(2) {
                bytes[p * page] = 0x5a;
            }
        }
        std::fs::write(&db, bytes).unwrap();
        let out = demo_master(&repo).args(["--json", "doctor"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{damage}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        // Whatever can be inspected still is; each failure is a finding.
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(outcome(&report, "schema").0, "finding", "{damage}: {report}");
        assert_eq!(outcome(&report, "key files").0, "ok", "{damage}: {report}");
        assert_eq!(outcome(&report, "open").0, "finding", "{damage}: {report}");
        let out = demo_master(&repo).arg("status").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{damage}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn an_unsealed_store_is_still_checked_and_a_missing_freshness_record_is_said() {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&["status"]);
    // The record deleted: said, not fatal.
    let record = graphex_engine::freshness::RecordFile::new(
        &crate::harness::state_dir(),
        repo.root(),
        graphex_engine::freshness::Kind::Master,
    );
    std::fs::remove_file(record.path()).unwrap();
    let (report, _) = doctor(&repo, &[]);
    let (o, d) = outcome(&report, "freshness");
    assert_eq!(o, "skipped");
    assert!(d.contains("record is missing"), "{d}");
    // The seal gone: "did not open" is not the whole answer.
    sql(repo.root(), "DELETE FROM seal");
    let (report, code) = doctor(&repo, &[]);
    assert_eq!(code, 1);
    let (o, d) = outcome(&report, "open");
    assert_eq!(o, "finding");
    assert!(d.contains("manifest alone"), "{d}");
    assert_eq!(outcome(&report, "history").0, "ok", "{report}");
    assert_eq!(outcome(&report, "audit chain").0, "ok", "{report}");
    assert_eq!(outcome(&report, "decisions").0, "ok", "{report}");
    assert_eq!(outcome(&report, "blobs decrypt").0, "ok", "{report}");
}
