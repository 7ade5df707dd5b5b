//! `.gpp/config.toml` edited by hand (as an agent with write access to the
//! repository could) changes nothing until the master approves it.

use crate::harness::Repo;

/// The tier a `--trust 10` projection of `public` gets, as an agent would
/// ask for it, and what the CLI says on stderr.
fn projected_tier(repo: &Repo) -> (String, String) {
    let mut c = repo.master();
    c.args(["--json", "project", "--node", "public", "--trust", "10"]);
    let out = c.assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    (
        v["tier"].as_str().unwrap().to_owned(),
        String::from_utf8(out.get_output().stderr.clone()).unwrap(),
    )
}

fn write_config(repo: &Repo, text: &str) {
    std::fs::write(repo.root().join(".gpp/config.toml"), text).unwrap();
}

#[test]
fn hand_edited_thresholds_change_nothing_until_approved() {
    let repo = Repo::new().with_four_tiers();
    assert_eq!(projected_tier(&repo).0, "public");
    write_config(&repo, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n");
    let (tier, stderr) = projected_tier(&repo);
    assert_eq!(
        tier, "public",
        "an unapproved edit must not raise what trust 10 receives"
    );
    assert!(
        stderr.contains("differs from the settings the master approved"),
        "{stderr}"
    );
    assert!(stderr.contains("projection.high: null -> 0.0"), "{stderr}");
    // The agent's MCP-side view: the same settings in force.
    let shown = repo.json(repo.locked(), &["config", "show"]);
    assert_eq!(shown["in_force"]["projection"]["high"], serde_json::Value::Null);
    assert_eq!(shown["unapproved"].as_array().unwrap().len(), 2);
    // Approval is the master's, and then the file is in force.
    let agent = repo.agent_identity();
    let mut c = repo.locked();
    c.env("GRAPHEX_AGENT_IDENTITY", &agent).args(["config", "approve"]);
    let err = c.assert().failure().get_output().stderr.clone();
    assert!(
        String::from_utf8_lossy(&err).contains("master"),
        "{}",
        String::from_utf8_lossy(&err)
    );
    let out = repo.ok(&["config", "approve"]);
    assert!(out.contains("projection.low: null -> 0.0"), "{out}");
    let (tier, stderr) = projected_tier(&repo);
    assert_eq!(tier, "agent-readable");
    assert!(!stderr.contains("differs"), "{stderr}");
    assert!(repo.ok(&["config", "approve"]).contains("nothing to approve"));
}

#[test]
fn a_broken_config_file_does_not_stop_anything() {
    let repo = Repo::new().with_four_tiers();
    write_config(&repo, "[graphex.projection]\nlow = \"zero\"\n[graphex.audit\n");
    let (tier, stderr) = projected_tier(&repo);
    assert_eq!(tier, "public");
    assert!(stderr.contains("cannot be used"), "{stderr}");
    // Approving it is refused with the reason.
    let out = repo.master().args(["config", "approve"]).assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("config.toml"), "{err}");
}

#[test]
fn doctor_names_an_unapproved_config_file() {
    let repo = Repo::new();
    // The settings line of `doctor --json` (test stores have other
    // findings, a weak KDF among them).
    let settings = || {
        let out = repo.master().args(["--json", "doctor"]).output().unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (outcome, detail) = crate::doctor::outcome(&report, "settings");
        (outcome.to_owned(), detail.to_owned())
    };
    assert_eq!(settings().0, "ok");
    write_config(&repo, "[graphex.projection]\nreadable_between = true\n");
    let (outcome, detail) = settings();
    assert_eq!(outcome, "finding");
    assert!(detail.contains("projection.readable_between: null -> true"), "{detail}");
    repo.ok(&["config", "approve"]);
    assert_eq!(settings().0, "ok");
}

#[test]
fn a_store_without_its_seal_is_refused_until_sealed_by_a_person() {
    let repo = Repo::new().with_four_tiers();
    let db = repo.root().join(".gpp/graphex/graph.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("DELETE FROM seal", [])
        .unwrap();
    let out = repo.master().arg("status").assert().failure();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("graphex seal"), "{err}");
    let out = repo.master().arg("seal").assert().success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("sealed"), "{err}");
    repo.ok(&["status"]);
    let out = repo.master().arg("seal").assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("already sealed"));
}
