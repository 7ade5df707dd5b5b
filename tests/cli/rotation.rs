//! `graphex keys rotate` and what `doctor` says about rotations.

use crate::doctor::outcome as check;
use crate::harness::{Repo, json_of, names};

/// The doctor's report, and its findings but the light test KDF's.
fn doctor(repo: &Repo, extra: &[&str]) -> (serde_json::Value, Vec<String>) {
    let out = repo.human().args(["--json", "doctor"]).args(extra).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "finding" && c["name"] != "passphrase KDF")
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(out.status.code(), Some(1), "the test KDF is always a finding");
    (v, findings)
}

#[test]
fn rotating_every_key_keeps_the_graph_and_doctor_reports_the_versions() {
    let repo = Repo::new().with_four_tiers();
    let agent_id = repo.agent_identity();
    // Without the human passphrase, every tier but human-only, saying so.
    let out = repo.master().args(["--json", "keys", "rotate"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rotated: Vec<&str> = v["rotated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tier"].as_str().unwrap())
        .collect();
    assert_eq!(rotated, ["public", "agent-readable", "agent-restricted"], "{v}");
    assert!(
        v["skipped"][0].as_str().unwrap().contains("GRAPHEX_HUMAN_PASSPHRASE"),
        "{v}"
    );
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("skipped human-only"));
    let out = repo
        .human()
        .args(["keys", "rotate", "--tier", "human-only"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout);
    assert!(text.contains("rotated the human-only key to version 2"), "{text}");

    let all = json_of({
        let mut c = repo.human();
        c.args(["--json", "list"]);
        c
    });
    assert_eq!(
        names(&all),
        ["agent-readable", "agent-restricted", "human-only", "public"]
    );
    // The agent's identity file, exported before, still opens its tier.
    let out = repo
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", &agent_id)
        .args(["show", "agent-readable"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("agent-readable words"));

    let (report, findings) = doctor(&repo, &[]);
    assert!(findings.is_empty(), "{report}");
    let (outcome, detail) = check(&report, "key rotation");
    assert_eq!(outcome, "ok");
    assert!(
        detail.contains("public v2, agent-readable v2, agent-restricted v2, human-only v2"),
        "{detail}"
    );
}

#[test]
fn staged_files_of_an_interrupted_rotation_are_reported_and_collected() {
    let repo = Repo::new();
    let keys = repo.root().join(".gpp/graphex/keys");
    std::fs::write(keys.join("agent-readable.age.next"), b"interrupted").unwrap();
    std::fs::write(keys.join("keyring.auth.next"), b"interrupted").unwrap();
    // Never used: the store opens as before.
    repo.ok(&["status"]);
    let (report, findings) = doctor(&repo, &[]);
    assert_eq!(findings, ["key rotation"]);
    let (outcome, detail) = check(&report, "key rotation");
    assert_eq!(outcome, "finding");
    assert!(
        detail.contains("agent-readable.age.next, keyring.auth.next"),
        "{detail}"
    );
    let (report, findings) = doctor(&repo, &["--collect-orphans"]);
    assert!(findings.is_empty(), "{report}");
    assert!(check(&report, "key rotation").1.contains("removed"));
    assert!(!keys.join("keyring.auth.next").exists());
}

#[test]
fn rotation_refuses_what_it_cannot_do() {
    let repo = Repo::new();
    let out = repo
        .master()
        .args(["keys", "rotate", "--tier", "secret"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        err.contains("--tier secret") && err.contains("expected one of"),
        "{err}"
    );
    let agent = repo.agent_identity();
    let out = repo
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", &agent)
        .args(["keys", "rotate"])
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(err.contains("master"), "{err}");
}
