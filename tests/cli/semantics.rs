//! The spec's semantics on the demo store: deprecated content is visible but
//! flagged and never projected, and the small traps of the issue-27 audit.

use predicates::prelude::*;

use crate::projection::demo;

fn master(dir: &tempfile::TempDir) -> assert_cmd::Command {
    let mut c = crate::harness::bare(dir.path());
    c.args(["--store", "repo"])
        .env("GRAPHEX_PASSPHRASE", graphex::cli::DEMO_PASSPHRASE);
    c
}

fn out(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let o = master(dir).args(args).assert().success();
    String::from_utf8(o.get_output().stdout.clone()).unwrap()
}

fn json(dir: &tempfile::TempDir, args: &[&str]) -> serde_json::Value {
    let mut c = master(dir);
    c.arg("--json").args(args);
    crate::harness::json_of(c)
}

#[test]
fn deprecated_nodes_are_shown_flagged_and_never_projected() {
    let dir = demo();
    let q = out(&dir, &["query", "currency-utils -> supersedes -> *"]);
    assert!(q.contains("float-money (module, deprecated)"), "{q}");
    let q = json(&dir, &["query", "currency-utils -> supersedes -> *"]);
    assert_eq!(q["results"][0]["nodes"]["float-money"]["status"], "deprecated");
    let active_only = out(&dir, &["query", "currency-utils -> supersedes -> * --status active"]);
    assert!(active_only.contains("no results"), "{active_only}");
    let n = out(&dir, &["neighbors", "currency-utils"]);
    assert!(n.contains("float-money (module, public, deprecated)"), "{n}");
    let p = out(&dir, &["path", "orders-service", "float-money"]);
    assert!(p.contains("float-money [deprecated]"), "{p}");
    let p = json(&dir, &["path", "orders-service", "float-money"]);
    assert_eq!(p["steps"][0]["status"], "active");
    let g = out(&dir, &["subgraph", "currency-utils", "--depth", "1"]);
    assert!(g.contains("float-money [deprecated] (module, public)"), "{g}");
    master(&dir)
        .args(["project", "--node", "float-money", "--tier", "public"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("\"float-money\" is deprecated and is not projected")
                .and(predicate::str::contains("currency-utils"))
                .and(predicate::str::contains("no node named").not()),
        );
}

#[test]
fn the_small_traps_are_closed() {
    let dir = demo();
    // show NAME --version N shows that version, not the program's.
    let v1 = out(&dir, &["show", "orders-team", "--version", "1"]);
    assert!(v1.starts_with("orders-team  ["), "{v1}");
    assert!(!v1.contains("graphex"), "{v1}");
    // An unknown proposal id is named as one.
    for cmd in [&["proposal-status", "ffff"][..], &["accept", "ffff"]] {
        master(&dir).args(cmd).assert().code(1).stderr(
            predicate::str::contains("no proposal with an id starting \"ffff\"")
                .and(predicate::str::contains("no node named").not()),
        );
    }
    // No self-loops.
    master(&dir)
        .args(["link", "orders-service", "uses", "orders-service"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot be linked to itself"));
    // Active → deprecated → archived, never straight to archived.
    master(&dir)
        .args(["archive", "orders-team"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("deprecate it first"));
    // A relation no edge uses is an empty result.
    let none = out(&dir, &["query", "orders-service -> zzqx-mirrors -> *"]);
    assert!(none.contains("no results"), "{none}");
    // Times in JSON are RFC 3339, as everywhere.
    let pending = json(&dir, &["pending"]);
    let rfc3339 = |v: &serde_json::Value| v.as_str().is_some_and(|s| s.ends_with('Z'));
    assert!(
        rfc3339(&pending["proposals"][0]["proposal"]["created"]),
        "{}",
        pending["proposals"][0]
    );
    let history = json(&dir, &["history", "orders-service"]);
    let versions = history.as_array().or_else(|| history["versions"].as_array()).unwrap();
    assert!(versions.iter().all(|v| rfc3339(&v["at"])), "{history}");
    let audit = json(&dir, &["audit", "list"]);
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .all(|e| rfc3339(&e["at"]) && rfc3339(&e["record"]["at"])),
        "{audit}"
    );
    let id = pending["proposals"][0]["id"].as_str().unwrap().to_owned();
    out(&dir, &["reject", &id, "--reason", "not now"]);
    let s = json(&dir, &["proposal-status", &id]);
    assert!(s["decision"]["at"].as_str().is_some_and(|s| s.ends_with('Z')), "{s}");
    let t = json(&dir, &["timeline"]);
    assert!(t[0]["at"].as_str().is_some_and(|s| s.ends_with('Z')), "{}", t[0]);
    // A settings approval is not graph commit #0.
    let config = dir.path().join("repo/.gpp/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str("\n[graphex.projection]\ncount_hidden_relations = true\n");
    std::fs::write(&config, text).unwrap();
    let digest = json(&dir, &["config", "show"])["approval"].as_str().unwrap().to_owned();
    out(&dir, &["config", "approve", "--yes", &digest]);
    let t = out(&dir, &["timeline", "--limit", "1"]);
    assert!(
        t.starts_with("note ") && t.contains("approve-config") && !t.contains("#0"),
        "{t}"
    );
}

#[test]
fn an_empty_index_file_is_refused_untouched() {
    let dir = demo();
    let db = dir.path().join("repo/.gpp/graphex/graph.db");
    std::fs::write(&db, b"").unwrap();
    master(&dir)
        .args(["status"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("empty (0 bytes)"));
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
}

#[test]
fn a_bidirectional_edge_reads_both_ways_from_either_end() {
    let dir = demo();
    let linked = out(
        &dir,
        &["link", "redis", "communicates-with", "clickhouse", "--bidirectional"],
    );
    assert!(
        linked.starts_with("linked redis <-> communicates-with <-> clickhouse"),
        "{linked}"
    );
    let far = out(&dir, &["show", "clickhouse"]);
    assert!(far.contains("<-> communicates-with <-> redis"), "{far}");
    let n = out(&dir, &["neighbors", "clickhouse", "--direction", "out"]);
    assert!(n.contains("via clickhouse <-[communicates-with]-> redis"), "{n}");
    let n = json(&dir, &["neighbors", "clickhouse"]);
    let via = n[0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "redis")
        .unwrap()["via"]
        .clone();
    assert_eq!(via["bidirectional"], true, "{via}");
}

#[test]
fn search_reaches_into_bodies_after_names_and_descriptions() {
    let dir = demo();
    out(
        &dir,
        &[
            "add",
            "--type",
            "convention",
            "--name",
            "retry-budget",
            "-d",
            "Retries share one budget",
            "--body",
            "Use the zanzibar backoff table for every upstream call.",
        ],
    );
    let hits = json(&dir, &["search", "zanzibar backoff"]);
    assert_eq!(hits[0]["name"], "retry-budget", "{hits}");
    let none = out(&dir, &["search", "zanzibar nowhere"]);
    assert!(none.contains("no matches"), "{none}");
}

#[test]
fn nodes_in_pending_proposals_are_listed_as_proposed_and_never_projected() {
    let dir = demo();
    let rows = json(&dir, &["list", "--status", "proposed"]);
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "upstream-timeout-budget")
        .unwrap_or_else(|| panic!("{rows}"));
    assert_eq!(row["status"], "proposed");
    assert_eq!(row["proposal"].as_str().map(str::len), Some(64), "{row}");
    let text = out(&dir, &["list", "--status", "proposed"]);
    assert!(text.contains("[proposal "), "{text}");
    master(&dir)
        .args([
            "project",
            "--node",
            "upstream-timeout-budget",
            "--tier",
            "agent-restricted",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no node named"));
}

#[test]
fn a_contradiction_is_listed_flagged_in_projections_until_one_side_is_deprecated() {
    let dir = demo();
    let none = out(&dir, &["contradictions", "--check"]);
    assert!(none.contains("no contradictions"), "{none}");
    out(
        &dir,
        &["restore", "round-half-up-display", "--reason", "back for a while"],
    );
    master(&dir)
        .args(["contradictions", "--check"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "round-half-even contradicts round-half-up-display  (to resolve)",
        ));
    let p = out(
        &dir,
        &[
            "project",
            "--node",
            "round-half-even",
            "--tier",
            "public",
            "--depth",
            "1",
        ],
    );
    assert!(p.contains("(disputed: contradicts round-half-up-display)"), "{p}");
    out(
        &dir,
        &["deprecate", "round-half-up-display", "--reason", "kept round-half-even"],
    );
    out(&dir, &["contradictions", "--check"]);
    let p = out(
        &dir,
        &[
            "project",
            "--node",
            "round-half-even",
            "--tier",
            "public",
            "--depth",
            "1",
        ],
    );
    assert!(!p.contains("disputed"), "{p}");
}
