//! `.gpp/config.toml` edited by hand (as an agent with write access to the
//! repository could) changes nothing until the master approves it.

use std::path::Path;

use crate::harness::{PASS, Repo};
use crate::pty::Console;

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
    let out = repo.approve_config();
    assert!(out.contains("projection.low: null -> 0.0"), "{out}");
    let (tier, stderr) = projected_tier(&repo);
    assert_eq!(tier, "agent-readable");
    assert!(!stderr.contains("differs"), "{stderr}");
    assert!(repo.approve_config().contains("nothing to approve"));
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
    repo.approve_config();
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

#[test]
fn seal_shows_the_settings_it_would_put_in_force_and_needs_their_digest() {
    let repo = Repo::new().with_four_tiers();
    // No key: the approved settings and the seal deleted, the thresholds in
    // .gpp/config.toml lowered (trust 10 would read agent-readable).
    let db = repo.root().join(".gpp/graphex/graph.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM meta WHERE key = 'policy'", []).unwrap();
    conn.execute("DELETE FROM seal", []).unwrap();
    drop(conn);
    write_config(&repo, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n");
    let seal = |args: &[&str]| {
        let out = repo.master().arg("seal").args(args).output().unwrap();
        (out.status.success(), String::from_utf8(out.stderr).unwrap())
    };
    // Named without a digest: the values are shown, nothing is sealed.
    let (ok, err) = seal(&["--accept", "settings"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("low = 0.0") && err.contains("high = 0.0"),
        "the values first: {err}"
    );
    let digest = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("to accept exactly this: --accept settings="))
        .expect("the digest is printed")
        .to_owned();
    assert!(err.contains(&format!("--accept settings={digest}")), "{err}");
    assert!(
        repo.master().arg("status").output().unwrap().status.code() == Some(1),
        "still unsealed"
    );
    // The file edited after it was shown: the digest names other settings.
    write_config(&repo, "[graphex.projection]\nlow = 5.0\nhigh = 5.0\n");
    let (ok, err) = seal(&["--accept", &format!("settings={digest}")]);
    assert!(!ok, "{err}");
    assert!(err.contains("changed since it was shown"), "{err}");
    write_config(&repo, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n");
    // As shown: accepted, and only then in force.
    let (ok, err) = seal(&["--accept", &format!("settings={digest}")]);
    assert!(ok, "{err}");
    assert_eq!(projected_tier(&repo).0, "agent-readable");
}

/// `config approve` as run by a script, with `extra` arguments: its exit
/// success and stderr.
fn approve_without_a_terminal(repo: &Repo, extra: &[&str]) -> (bool, String) {
    let out = repo.master().args(["config", "approve"]).args(extra).output().unwrap();
    (out.status.success(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn approve_shows_the_changes_first_and_applies_only_what_was_reviewed() {
    let repo = Repo::new().with_four_tiers();
    write_config(&repo, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n");
    let unapproved = || {
        repo.json(repo.master(), &["config", "show"])["unapproved"]
            .as_array()
            .unwrap()
            .len()
    };
    // No terminal to ask on and no digest: the changes are shown, nothing is applied.
    let (ok, err) = approve_without_a_terminal(&repo, &[]);
    assert!(!ok, "{err}");
    assert!(err.contains("projection.low: null -> 0.0"), "the changes first: {err}");
    assert!(err.contains("graphex config show") && err.contains("--yes"), "{err}");
    assert_eq!(unapproved(), 2, "nothing applied");
    assert_eq!(projected_tier(&repo).0, "public");
    // `config show` names the approval by a digest, in text and JSON.
    let digest = repo.approval_digest().unwrap();
    assert_eq!(digest.len(), 16, "{digest}");
    let text = repo.ok(&["config", "show"]);
    assert!(
        text.contains(&format!("graphex config approve --yes {digest}")),
        "{text}"
    );
    // A digest that is not the change on disk now is refused.
    let (ok, err) = approve_without_a_terminal(&repo, &["--yes", "0123456789abcdef"]);
    assert!(!ok && err.contains("graphex config show"), "{err}");
    assert_eq!(unapproved(), 2, "nothing applied");
    // The file changed after the review: the reviewed digest no longer applies.
    write_config(
        &repo,
        "[graphex.projection]\nlow = 0.0\nhigh = 0.0\nreadable_between = true\n",
    );
    let (ok, err) = approve_without_a_terminal(&repo, &["--yes", &digest]);
    assert!(!ok && err.contains("not the change"), "{err}");
    assert_eq!(unapproved(), 3, "nothing applied");
    assert_eq!(projected_tier(&repo).0, "public");
    // The digest of what is there now applies it.
    let now = repo.approval_digest().unwrap();
    assert_ne!(now, digest);
    let out = repo.ok(&["config", "approve", "--yes", &now]);
    assert!(out.contains("projection.readable_between: null -> true"), "{out}");
    assert_eq!(unapproved(), 0);
    assert_eq!(projected_tier(&repo).0, "agent-readable");
    assert!(repo.approval_digest().is_none());
}

/// `graphex config approve` in a terminal, answering `answer` after
/// `while_asking` ran: the screen when it asked, the screen once `then`
/// shows, and the exit code.
fn approve_in_a_terminal(root: &Path, while_asking: impl Fn(), answer: &str, then: &str) -> (String, String, u32) {
    let mut c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        root,
        &["--store", root.to_str().unwrap(), "config", "approve"],
        &[("GRAPHEX_PASSPHRASE", PASS)],
        100,
        30,
    );
    c.wait_for("[y/N]");
    let asked = c.screen();
    while_asking();
    c.send(answer);
    // The output is read on another thread: wait for it, then the exit.
    c.wait_for(then);
    let after = c.screen();
    (asked, after, c.wait_exit())
}

#[test]
fn approve_in_a_terminal_shows_the_changes_and_asks() {
    let repo = Repo::new().with_four_tiers();
    write_config(&repo, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n");
    let public = || assert_eq!(projected_tier(&repo).0, "public", "nothing applied before the answer");
    let (asked, after, code) = approve_in_a_terminal(repo.root(), public, "\r", "nothing changed");
    assert!(
        asked.contains("projection.low: null -> 0.0"),
        "the change first: {asked}"
    );
    assert!(!asked.contains("approved;"), "{asked}");
    assert_ne!(code, 0, "no is the default: {after}");
    assert_eq!(projected_tier(&repo).0, "public");
    // The file edited while the question waits: yes approves what was shown, which is gone.
    let edit = || {
        write_config(
            &repo,
            "[graphex.projection]\nlow = 0.0\nhigh = 0.0\nreadable_between = true\n",
        )
    };
    let (_, after, code) = approve_in_a_terminal(repo.root(), edit, "y\r", "not the change");
    assert_ne!(code, 0, "{after}");
    assert_eq!(projected_tier(&repo).0, "public");
    let (_, after, code) = approve_in_a_terminal(repo.root(), public, "y\r", "now in force");
    assert_eq!(code, 0, "{after}");
    assert_eq!(projected_tier(&repo).0, "agent-readable");
}

/// The relevance of each item of a projection of `svc`, by name.
fn relevance_of(repo: &Repo) -> Vec<(String, f64)> {
    let v = repo.json(
        repo.master(),
        &["project", "--node", "svc", "--trust", "100", "--preview"],
    );
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap().to_owned(), i["relevance"].as_f64().unwrap()))
        .collect()
}

#[test]
fn cortex_weights_rank_only_once_approved_and_bad_ones_are_refused() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "svc", "-d", "the service"]);
    repo.ok(&["add", "--type", "team", "--name", "alpha", "-d", "the team"]);
    repo.ok(&["add", "--type", "database", "--name", "beta", "-d", "the database"]);
    repo.ok(&["link", "svc", "owned-by", "alpha"]);
    repo.ok(&["link", "svc", "depends-on", "beta"]);
    let before = relevance_of(&repo);
    let names: Vec<&str> = before.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["svc", "alpha", "beta"], "a tie, by name");
    write_config(
        &repo,
        "[graphex.projection.importance]\ndatabase = 20.0\n[graphex.projection.decay]\nowned-by = 0.0\n",
    );
    assert_eq!(relevance_of(&repo), before, "not in force before approval");
    let out = repo.approve_config();
    assert!(out.contains("projection.decay: (none) -> {\"owned-by\":0.0}"), "{out}");
    let after = relevance_of(&repo);
    let names: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["svc", "beta", "alpha"], "{after:?}");
    assert_eq!(after[2].1, 0.0);
    let shown = repo.ok(&["config", "show"]);
    assert!(
        shown.contains("[graphex.projection.decay]") && shown.contains("owned-by = 0.0"),
        "{shown}"
    );
    write_config(&repo, "[graphex.projection.decay]\nowned-by = 2.0\n");
    let mut c = repo.master();
    c.args(["config", "approve"]);
    let err = String::from_utf8(c.assert().failure().get_output().stderr.clone()).unwrap();
    assert!(err.contains("decay.owned-by = 2"), "{err}");
    assert_eq!(relevance_of(&repo), after, "the approved weights stay in force");
}

#[test]
fn a_weight_whose_key_names_no_type_or_relation_is_refused_at_approval() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "runbook", "--name", "fix-it", "-d", "a custom type"]);
    write_config(&repo, "[graphex.projection.importance]\nservcie = 20.0\n");
    let shown = repo.ok(&["config", "show"]);
    assert!(
        shown.contains("approving it would be refused") && !shown.contains("--yes"),
        "{shown}"
    );
    let mut c = repo.master();
    c.args(["config", "approve"]);
    let err = String::from_utf8(c.assert().failure().get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("importance.servcie") && err.contains("known: service, module") && err.contains("runbook"),
        "{err}"
    );
    // A custom type some node has is a key like the built-in ones.
    write_config(&repo, "[graphex.projection.importance]\nrunbook = 20.0\n");
    let out = repo.approve_config();
    assert!(
        out.contains("projection.importance: (none) -> {\"runbook\":20.0}"),
        "{out}"
    );
}
