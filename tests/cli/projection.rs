//! `project` on the demo store.

use predicates::prelude::*;

use crate::harness::{bare, json_of};

/// The demo store, as `graphex demo` makes it, in a new directory's `repo`.
pub(crate) fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::demo_into(&dir.path().join("repo"));
    dir
}

fn master(dir: &tempfile::TempDir) -> assert_cmd::Command {
    let mut c = bare(dir.path());
    c.args(["--store", "repo"])
        .env("GRAPHEX_PASSPHRASE", graphex::cli::DEMO_PASSPHRASE);
    c
}

fn names_at(dir: &tempfile::TempDir, tier: &str) -> Vec<String> {
    let mut c = master(dir);
    c.env("GRAPHEX_HUMAN_PASSPHRASE", graphex::cli::DEMO_HUMAN_PASSPHRASE)
        .args(["--json", "list", "--all", "--tier", tier]);
    json_of(c)
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn projections_hold_only_their_tier_and_fit_the_budget() {
    let dir = demo();
    let hidden: Vec<String> = ["agent-readable", "agent-restricted", "human-only"]
        .iter()
        .flat_map(|t| names_at(&dir, t))
        .collect();
    let out = master(&dir)
        .args([
            "project",
            "--node",
            "orders-service",
            "--tier",
            "public",
            "--budget",
            "600",
        ])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("## Project Context: orders-service\n"), "{text}");
    for name in &hidden {
        assert!(
            !text.contains(name.as_str()),
            "{name} leaked into a public projection:\n{text}"
        );
    }
    let mut c = master(&dir);
    c.args([
        "--json",
        "project",
        "orders-service -> * -> *",
        "--trust",
        "95",
        "--agent",
        "claude-code",
        "--budget",
        "250",
    ]);
    let p = json_of(c);
    assert_eq!(
        (p["tier"].as_str(), p["agent"].as_str()),
        (Some("agent-readable"), Some("claude-code"))
    );
    assert!(p["tokens"].as_u64().unwrap() <= 250);
    assert!(
        !p["cut"].as_array().unwrap().is_empty(),
        "a small budget cuts items, and says which"
    );
    let mut c = master(&dir);
    c.args([
        "--json",
        "project",
        "--node",
        "orders-service",
        "--trust",
        "95",
        "--local",
    ]);
    assert_eq!(json_of(c)["tier"], "agent-restricted");
    // Human-only is never projected: asking for it is a usage error, not a quiet lowering.
    let mut c = master(&dir);
    c.env("GRAPHEX_HUMAN_PASSPHRASE", graphex::cli::DEMO_HUMAN_PASSPHRASE)
        .args(["project", "--node", "orders-service", "--tier", "human-only"]);
    c.assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("human-only content is never projected"));
}

#[test]
fn bad_requests_are_named() {
    let dir = demo();
    master(&dir)
        .args(["project", "--node", "orders-service", "--trust", "150"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("from 0 to 100"));
    master(&dir)
        .args(["project", "ordrs-service -> * -> *", "--tier", "public"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("did you mean: orders-service"));
    master(&dir)
        .args([
            "project",
            "--node",
            "orders-service",
            "--tier",
            "public",
            "--budget",
            "2",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("too small"));
}

#[test]
fn store_configuration_adds_scrub_patterns() {
    let dir = demo();
    let config = dir.path().join("repo/.gpp/config.toml");
    std::fs::write(&config, "[graphex.projection]\nscrub = [\"ERR-XXXX\"]\n").unwrap();
    // In force once the master approves it, with the digest `config show` gives.
    let out = master(&dir).args(["--json", "config", "show"]).assert().success();
    let shown: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let digest = shown["approval"].as_str().unwrap();
    master(&dir)
        .args(["config", "approve", "--yes", digest])
        .assert()
        .success();
    let out = master(&dir)
        .args(["project", "--node", "error-code-format", "--tier", "public"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("[redacted]") && !text.contains("ERR-XXXX"), "{text}");
    std::fs::write(&config, "[graphex.projection]\nscrubb = []\n").unwrap();
    // A typo is reported, never applied, and stops nothing: the approved
    // patterns stay in force.
    let out = master(&dir)
        .args(["project", "--node", "error-code-format", "--tier", "public"])
        .assert()
        .success()
        .stderr(predicate::str::contains("unknown field `scrubb`"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("[redacted]") && !text.contains("ERR-XXXX"), "{text}");
    master(&dir)
        .args(["config", "approve"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown field `scrubb`"));
}

#[test]
fn projections_are_audited_and_the_log_verifies() {
    let dir = demo();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "project",
            "--node",
            "orders-service",
            "--trust",
            "95",
            "--agent",
            "claude-code",
        ];
        args.extend_from_slice(extra);
        master(&dir).args(&args).assert().success();
    };
    run(&["--preview"]);
    run(&["--preview"]);
    run(&[]);
    let mut c = master(&dir);
    c.args(["--json", "audit", "list"]);
    let log = json_of(c);
    let kinds: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[..2],
        ["projection", "preview"],
        "newest first; the repeated preview was not recorded"
    );
    assert!(
        kinds[2..].iter().all(|k| *k == "proposal"),
        "before them, the demo queue's submissions: {kinds:?}"
    );
    assert_eq!(log[0]["record"]["agent"], "claude-code");
    assert!(!log[0]["record"]["emitted"].as_array().unwrap().is_empty());
    let mut locked = bare(dir.path());
    locked.args(["--store", "repo", "--json", "audit", "list"]);
    let sealed = json_of(locked);
    assert!(
        sealed.as_array().unwrap().iter().all(|e| e["record"].is_null()),
        "agent-readable records stay sealed"
    );
    master(&dir)
        .args(["audit", "verify"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("intact: {} record(s)", kinds.len())));
    delete_first_audit_record(&dir);
    master(&dir)
        .args(["audit", "verify"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("record 1"));
}

/// Deletes the first audit record behind the program's back.
fn delete_first_audit_record(dir: &tempfile::TempDir) {
    let db = rusqlite::Connection::open(dir.path().join("repo/.gpp/graphex/graph.db")).unwrap();
    db.execute("DELETE FROM audit WHERE seq = 1", []).unwrap();
}

#[test]
fn exposure_report_and_what_if() {
    let dir = demo();
    let mut c = master(&dir);
    c.args(["--json", "exposure"]);
    let r = json_of(c);
    assert_eq!(r["covers_up_to"], "agent-restricted");
    assert_eq!(r["tiers"].as_array().unwrap().len(), 3);
    assert!(
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["lint"] == "public-edge-to-higher")
    );
    master(&dir)
        .args(["exposure", "--check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("finding(s)"));
    let mut c = master(&dir);
    c.args([
        "--json",
        "exposure",
        "--what-if",
        "currency-utils=agent-restricted",
        "--depth",
        "1",
    ]);
    let changes = json_of(c);
    assert!(
        changes
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["center"] == "orders-service" && x["tier"] == "public")
    );
    master(&dir)
        .args(["exposure", "--what-if", "currency-utils"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("NODE=TIER"));
    master(&dir).args(["exposure", "--query", "x"]).assert().code(2);
}

/// The console's Projection pane shows exactly what `project --preview`
/// gives: the same bytes and the same hash, tier by tier.
#[test]
fn the_console_preview_is_the_clis_byte_for_byte() {
    use graphex::app::panes::projection::work::{Spec, Subject, preview};
    let dir = demo();
    let creds = graphex_engine::Credentials {
        passphrase: Some(graphex::cli::DEMO_PASSPHRASE.into()),
        ..graphex_engine::Credentials::default()
    };
    let mut store = graphex_engine::Store::open(&dir.path().join("repo"), &creds).unwrap();
    let config = store.config().unwrap().config;
    let settings = config.projection_settings().unwrap();
    let spec = Spec {
        subject: Subject::Node {
            name: "orders-service".into(),
            depth: 2,
        },
        agent: "console-preview".into(),
        budget: 1500,
    };
    let shown = preview(&mut store, &config, &settings, &spec, &mut Default::default(), None).unwrap();
    drop(store);
    for t in &shown.tiers {
        let mut c = master(&dir);
        c.args([
            "--json",
            "project",
            "--preview",
            "--node",
            "orders-service",
            "--depth",
            "2",
            "--budget",
            "1500",
            "--agent",
            "console-preview",
            "--tier",
            &t.tier.to_string(),
        ]);
        let cli = json_of(c);
        assert_eq!(cli["text"].as_str().unwrap(), t.text, "{} text", t.tier);
        assert_eq!(cli["hash"].as_str().unwrap(), t.hash, "{} hash", t.tier);
    }
}

#[test]
fn project_without_tier_or_trust_is_the_agent_readable_projection() {
    let repo = crate::harness::Repo::new().with_four_tiers();
    let hash = |extra: &[&str]| {
        let mut args = vec!["project", "public -> * -> *", "--format", "json", "--preview"];
        args.extend(extra);
        repo.json(repo.master(), &args)["hash"].as_str().unwrap().to_owned()
    };
    assert_eq!(hash(&[]), hash(&["--tier", "agent-readable"]));
    assert_ne!(hash(&[]), hash(&["--tier", "public"]), "the tier matters here");
}
