//! `export` and `import`: the demo store round trip, idempotent re-import, a
//! changed node's new version, dry runs, proposals, each foreign format,
//! tier caps, hostile text in the diagram formats, refusals.

use std::path::Path;

use predicates::prelude::*;

use crate::harness::{Repo, bare, json_of, names};
use crate::projection::demo;

fn demo_human(dir: &tempfile::TempDir) -> assert_cmd::Command {
    let mut c = bare(dir.path());
    c.args(["--store", "repo"])
        .env("GRAPHEX_PASSPHRASE", graphex::cli::DEMO_PASSPHRASE)
        .env("GRAPHEX_HUMAN_PASSPHRASE", graphex::cli::DEMO_HUMAN_PASSPHRASE);
    c
}

fn stdout(mut c: assert_cmd::Command) -> String {
    String::from_utf8(c.assert().success().get_output().stdout.clone()).unwrap()
}

/// Nodes without their version numbers (an import starts a history), and
/// edges, both without provenance (an import sets its own).
fn content(export: &serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let mut nodes = export["nodes"].clone();
    for n in nodes.as_array_mut().unwrap() {
        n.as_object_mut().unwrap().remove("version");
        n.as_object_mut().unwrap().remove("provenance");
    }
    let mut edges = export["edges"].clone();
    for e in edges.as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("provenance");
    }
    (nodes, edges)
}

fn import(repo: &Repo, file: &Path, format: &str, extra: &[&str]) -> serde_json::Value {
    let mut c = repo.human();
    c.args(["--json", "import"])
        .arg(file)
        .args(["--format", format])
        .args(extra);
    json_of(c)
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn the_demo_round_trips_into_a_fresh_store_and_reimport_changes_nothing() {
    let dir = demo();
    let file = dir.path().join("demo.json");
    let mut c = demo_human(&dir);
    c.args(["export", "--format", "json", "-o"]).arg(&file);
    c.assert().success().stderr(predicate::str::contains("decrypted"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let mut again = demo_human(&dir);
    again.args(["export", "--format", "json", "-o"]).arg(&file);
    again
        .assert()
        .failure()
        .stderr(predicate::str::contains("already exists"));
    let original: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let tiers: std::collections::BTreeSet<&str> = original["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["tier"].as_str().unwrap())
        .collect();
    assert_eq!(tiers.len(), 4, "the demo holds every tier: {tiers:?}");

    let fresh = Repo::new();
    let r = import(&fresh, &file, "json", &[]);
    assert_eq!(
        r["added"].as_array().unwrap().len(),
        original["nodes"].as_array().unwrap().len()
    );
    assert_eq!(
        r["edges_added"].as_array().unwrap().len(),
        original["edges"].as_array().unwrap().len()
    );
    let mut c = fresh.human();
    c.args(["export", "--format", "json"]);
    let back: serde_json::Value = serde_json::from_str(&stdout(c)).unwrap();
    assert_eq!(content(&back), content(&original));
    let provenance = |v: &serde_json::Value, list: &str| -> std::collections::BTreeSet<String> {
        v[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["provenance"].to_string())
            .collect()
    };
    let ours = r#"{"kind":"inferred","source":"import json demo.json"}"#;
    assert_eq!(provenance(&back, "nodes"), [ours.to_owned()].into());
    assert_eq!(provenance(&back, "edges"), [ours.to_owned()].into());
    assert!(
        provenance(&original, "nodes").len() > 1,
        "the demo has several: {original}"
    );

    let timeline = |repo: &Repo| fresh_len(repo);
    let before = timeline(&fresh);
    let r = import(&fresh, &file, "json", &[]);
    assert!(
        r["added"].as_array().unwrap().is_empty() && r["changed"].as_array().unwrap().is_empty(),
        "{r}"
    );
    assert_eq!(r["edges_unchanged"], original["edges"].as_array().unwrap().len());
    assert_eq!(timeline(&fresh), before, "an import with nothing new commits nothing");
}

fn fresh_len(repo: &Repo) -> usize {
    repo.json(repo.master(), &["timeline", "--limit", "1000"])
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn an_import_writes_its_own_provenance_never_the_files() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "term", "--name", "glossary-term", "-d", "a word"]);
    repo.ok(&["add", "--type", "service", "--name", "b", "-d", "plain"]);
    repo.ok(&["link", "glossary-term", "uses", "b"]);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("out.json");
    repo.master()
        .args(["export", "--format", "json", "-o"])
        .arg(&file)
        .assert()
        .success();
    // The file claims the node came from another project, the edge from an agent.
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    for n in doc["nodes"].as_array_mut().unwrap() {
        n["provenance"] = serde_json::json!({"kind": "federated", "project": "org", "subgraph": "glossary"});
    }
    for e in doc["edges"].as_array_mut().unwrap() {
        e["provenance"] = serde_json::json!({"kind": "agent", "id": "bot", "session": "s", "trust": 99.0});
    }
    let forged = write(tmp.path(), "forged.json", &doc.to_string());
    let fresh = Repo::new();
    import(&fresh, &forged, "json", &[]);
    let shown = fresh.json(fresh.master(), &["show", "glossary-term"]);
    assert_eq!(shown["provenance"]["kind"], "inferred", "{shown}");
    assert_eq!(shown["provenance"]["source"], "import json forged.json", "{shown}");
    let mut text = fresh.master();
    text.args(["show", "glossary-term"]);
    let text = stdout(text);
    assert!(!text.contains("federated"), "{text}");
    let mut back = fresh.master();
    back.args(["export", "--format", "json"]);
    let back: serde_json::Value = serde_json::from_str(&stdout(back)).unwrap();
    assert_eq!(back["edges"][0]["provenance"]["kind"], "inferred", "{back}");
    // A local node: it can be edited.
    fresh.ok(&["update", "glossary-term", "-d", "edited here"]);
}

#[test]
fn a_changed_node_becomes_a_new_version_and_a_dry_run_writes_nothing() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "a", "-d", "first"]);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a.json");
    repo.master()
        .args(["export", "--format", "json", "-o"])
        .arg(&file)
        .assert()
        .success();
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"first\"", "\"second\"");
    let changed = write(tmp.path(), "b.json", &text);
    let dry = import(&repo, &changed, "json", &["--dry-run"]);
    assert_eq!(dry["changed"], serde_json::json!(["a"]));
    assert_eq!(dry["dry_run"], true);
    let before = fresh_len(&repo);
    assert_eq!(repo.json(repo.master(), &["show", "a"])["description"], "first");
    assert_eq!(fresh_len(&repo), before, "a dry run commits nothing");
    let r = import(&repo, &changed, "json", &[]);
    assert_eq!(r["changed"], serde_json::json!(["a"]));
    let history = repo.json(repo.master(), &["history", "a"]);
    assert_eq!(history.as_array().unwrap().len(), 2, "{history}");
    assert_eq!(fresh_len(&repo), before + 1, "one commit for the import");
}

#[test]
fn each_foreign_format_imports_from_a_small_fixture() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let nl = write(
        tmp.path(),
        "nl.json",
        r#"{"directed":true,"multigraph":false,"graph":{},"nodes":[{"id":"Orders Service","kind":"service","owner":"team-a"},{"id":"db"}],
           "links":[{"source":"Orders Service","target":"db","relation":"depends_on","weight":0.5}]}"#,
    );
    let r = import(&repo, &nl, "node-link", &[]);
    assert_eq!(r["added"], serde_json::json!(["orders-service", "db"]));
    let show = repo.json(repo.master(), &["show", "orders-service"]);
    assert_eq!(show["tier"], "agent-restricted", "the default tier: {show}");
    assert_eq!(show["properties"]["owner"], "team-a");
    assert_eq!(show["properties"]["import.name"], "Orders Service");

    let kg = write(
        tmp.path(),
        "graph.json",
        r#"{"nodes":[{"id":"Charge","type":"APIObject","description":"a payment","source_file":"charges.md"},
                     {"id":"charge.succeeded","type":"Event","description":"event"}],
           "links":[{"source":"Charge","target":"charge.succeeded","edge_type":"triggers","weight":1.0}]}"#,
    );
    let r = import(&repo, &kg, "kgraph", &["--tier", "public"]);
    assert_eq!(
        r["edges_added"],
        serde_json::json!(["charge -> triggers -> charge.succeeded"])
    );
    let show = repo.json(repo.locked(), &["show", "charge"]);
    assert_eq!(show["type"], "api-object");

    let ash = tmp.path().join("ash");
    std::fs::create_dir(&ash).unwrap();
    write(&ash, "people.jsonl", "{\"id\":\"p1\",\"name\":\"Bob\"}\n");
    write(
        &ash,
        "memories.jsonl",
        "{\"id\":\"m1\",\"content\":\"Bob likes tea\"}\n",
    );
    write(
        &ash,
        "edges.jsonl",
        "{\"id\":\"e1\",\"edge_type\":\"ABOUT\",\"source_type\":\"memory\",\"source_id\":\"m1\",\"target_type\":\"person\",\"target_id\":\"p1\"}\n",
    );
    let r = import(&repo, &ash, "ash-jsonl", &[]);
    assert_eq!(r["added"], serde_json::json!(["memory-m1", "person-bob"]));
    assert_eq!(
        r["edges_added"],
        serde_json::json!(["memory-m1 -> about -> person-bob"])
    );
    // Re-import: idempotent.
    let r = import(&repo, &ash, "ash-jsonl", &[]);
    assert_eq!(r["unchanged"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["edges_unchanged"], 1);
}

#[test]
fn bad_input_names_file_and_item_and_writes_nothing() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let bad = write(
        tmp.path(),
        "bad.json",
        r#"{"nodes":[{"id":"ok"},{"id":"???"},{"id":"x","type":"Not a type!"}],"links":[{"source":"ok","target":"nowhere"}]}"#,
    );
    repo.master()
        .args(["import"])
        .arg(&bad)
        .args(["--format", "node-link"])
        .assert()
        .failure()
        .stdout(predicate::str::contains("bad.json: node 1: the name \"???\""))
        .stdout(predicate::str::contains("bad.json: node 2 (x):"))
        .stdout(predicate::str::contains(
            "bad.json: link 0: nowhere is neither in the import nor in the store",
        ))
        .stderr(predicate::str::contains("3 item(s) refused; nothing written"));
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
    let broken = write(tmp.path(), "broken.json", "{\"nodes\": [");
    repo.master()
        .args(["import"])
        .arg(&broken)
        .args(["--format", "kgraph"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("broken.json: not valid JSON").and(predicate::str::contains("line 1")));
}

#[test]
fn no_import_sets_the_federated_marker() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let foreign = write(
        tmp.path(),
        "fed.json",
        r#"{"nodes":[{"id":"fake","federated-from":"shop/orders"},{"id":"fine"}],"links":[]}"#,
    );
    for extra in [&[][..], &["--as-proposal"][..], &["--dry-run"][..]] {
        let out = repo
            .master()
            .args(["import"])
            .arg(&foreign)
            .args(["--format", "node-link"])
            .args(extra)
            .assert();
        let out = if extra == ["--dry-run"] {
            out.success()
        } else {
            out.failure()
        };
        out.stdout(predicate::str::contains(
            "fed.json: node 0 (fake): it sets the property federated-from, reserved",
        ));
    }
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
    assert!(repo.ok(&["pending"]).lines().all(|l| !l.contains("fake")));

    // Our own export format, the marker added to a node: refused too.
    let other = Repo::new();
    other.ok(&["add", "--type", "service", "--name", "mine", "-d", "words"]);
    let file = tmp.path().join("own.json");
    let mut c = other.master();
    c.args(["export", "--format", "json", "-o"]).arg(&file);
    c.assert().success();
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    doc["nodes"][0]["properties"] = serde_json::json!({"federated-from": "shop/orders"});
    std::fs::write(&file, doc.to_string()).unwrap();
    repo.master()
        .args(["import"])
        .arg(&file)
        .args(["--format", "json"])
        .assert()
        .failure()
        .stdout(predicate::str::contains(
            "(mine): it sets the property federated-from, reserved",
        ))
        .stderr(predicate::str::contains("1 item(s) refused; nothing written"));
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
}

#[test]
fn as_proposal_lands_in_the_queue() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "p.json",
        r#"{"nodes":[{"id":"n1"},{"id":"n2"}],"links":[{"source":"n1","target":"n2"}]}"#,
    );
    let r = import(&repo, &f, "node-link", &["--as-proposal"]);
    assert!(r["proposal"].is_string(), "{r}");
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
    let pending = repo.json(repo.master(), &["pending"]);
    let text = pending.to_string();
    assert!(text.contains("n1") && text.contains("n2"), "{text}");
}

#[test]
fn exports_never_go_above_the_callers_level_or_tier() {
    let repo = Repo::new().with_four_tiers();
    let tiers_of = |mut c: assert_cmd::Command, extra: &[&str]| -> Vec<String> {
        c.args(["export", "--format", "json"]).args(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(c)).unwrap();
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(tiers_of(repo.human(), &[]).len(), 4);
    let master = tiers_of(repo.master(), &[]);
    assert!(
        !master.contains(&"human-only".to_owned()) && master.len() == 3,
        "{master:?}"
    );
    let mut agent = repo.locked();
    agent.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity());
    assert_eq!(tiers_of(agent, &[]), ["agent-readable", "public"]);
    assert_eq!(tiers_of(repo.human(), &["--tier", "public"]), ["public"]);
    let mut dot = repo.master();
    dot.args(["export", "--format", "mermaid"]);
    assert!(!stdout(dot).contains("human-only"));
    let sub = tiers_of(repo.human(), &["--node", "public", "--depth", "1"]);
    assert_eq!(sub, ["agent-readable", "public"]);
}

#[test]
fn a_mermaid_directive_in_a_description_is_inert_but_visible_in_the_export() {
    let repo = Repo::new();
    let directive = "%%{init: {\"theme\":\"dark\"}}%%";
    repo.ok(&["add", "--type", "service", "--name", "a", "-d", directive]);
    let mut c = repo.master();
    c.args(["export", "--format", "mermaid"]);
    let m = stdout(c);
    assert!(!m.contains("%%{") && !m.contains('%'), "{m}");
    let label = m.lines().find(|l| l.contains("n_a[")).unwrap();
    assert!(label.contains("#37;#37;#123;init: #123;#quot;theme#quot;"), "{label}");
    let shown = [("#quot;", "\""), ("#37;", "%"), ("#123;", "{"), ("#125;", "}")]
        .iter()
        .fold(label.to_owned(), |s, (code, c)| s.replace(code, c));
    assert!(shown.contains(directive), "{shown}");
}

#[test]
fn hostile_text_is_escaped_in_graphml_dot_and_mermaid() {
    let repo = Repo::new();
    let evil = "x\"]; evil[\"<script>alert(1)</script>\n}\ndigraph { \\\" # &amp; \u{1b}[31m";
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "a",
        "-d",
        evil,
        "--prop",
        "k=<b>\"q\"",
    ]);
    repo.ok(&["add", "--type", "service", "--name", "b", "-d", "plain"]);
    repo.ok(&["link", "a", "uses", "b"]);
    let out = |format: &str| {
        let mut c = repo.master();
        c.args(["export", "--format", format]);
        stdout(c)
    };
    let g = out("graphml");
    assert!(
        !g.contains("<script>") && !g.contains("\"q\"") && !g.contains('\u{1b}'),
        "{g}"
    );
    assert!(g.contains("&lt;script&gt;") && g.contains("&amp;amp;"), "{g}");
    let d = out("dot");
    assert_eq!(d.lines().count(), 7, "one line per node and edge: {d}");
    assert!(d.contains("x\\\"]; evil[\\\"<script>") && !d.contains('\u{1b}'), "{d}");
    let m = out("mermaid");
    assert_eq!(m.lines().count(), 4, "one line per node and edge: {m}");
    assert!(
        !m.contains("<script>") && !m.contains("x\"") && m.contains("#quot;") && m.contains("#lt;script#gt;"),
        "{m}"
    );
}

#[test]
fn a_users_sensitivity_mapping_sets_the_tier_of_the_labels_it_names() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let ash = tmp.path().join("ash");
    std::fs::create_dir(&ash).unwrap();
    write(
        &ash,
        "memories.jsonl",
        "{\"id\":\"m1\",\"content\":\"Home address\",\"sensitivity\":\"personal\"}\n\
         {\"id\":\"m2\",\"content\":\"Door code\",\"sensitivity\":\"SENSITIVE\"}\n",
    );
    import(&repo, &ash, "ash-jsonl", &["--sensitivity", "PERSONAL=human-only"]);
    let tier = |name: &str| {
        repo.json(repo.human(), &["show", name])["tier"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(tier("memory-m1"), "human-only", "the user's mapping");
    assert_eq!(tier("memory-m2"), "human-only", "the built-in rule");
    for (args, says) in [
        (
            &["--format", "ash-jsonl", "--sensitivity", "PERSONAL"][..],
            "give LABEL=TIER",
        ),
        (
            &["--format", "ash-jsonl", "--sensitivity", "PERSONAL=secretive"],
            "is not a tier",
        ),
        (
            &["--format", "node-link", "--sensitivity", "PERSONAL=public"],
            "ash-jsonl only",
        ),
    ] {
        repo.human()
            .arg("import")
            .arg(&ash)
            .args(args)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(says));
    }
}
