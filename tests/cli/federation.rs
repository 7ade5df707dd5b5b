//! `federation publish|pull|key` between two stores: what leaves (dry run,
//! tiers, never human-only), what a pull does (tagged read-only nodes,
//! markers in show, list and projections), and what it refuses (settings
//! not approved, a wrong key, a tampered or replayed bundle, local edits).

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::harness::Repo;

/// A publisher with `orders-*` nodes of three tiers, a human-only one and
/// one outside the pattern, publishing `orders` (approved) sealed to
/// `consumer` (or in plain text without one).
pub(crate) fn publisher(consumer: Option<&Repo>) -> Repo {
    let repo = Repo::new();
    for (name, tier) in [
        ("orders-api", "public"),
        ("orders-db", "agent-readable"),
        ("orders-keys", "agent-restricted"),
        ("billing", "public"),
    ] {
        repo.ok(&[
            "add",
            "--type",
            "service",
            "--name",
            name,
            "-d",
            &format!("{name} words"),
            "--tier",
            tier,
        ]);
    }
    repo.human()
        .args([
            "add",
            "--type",
            "decision",
            "--name",
            "orders-secret",
            "-d",
            "secret",
            "--tier",
            "human-only",
        ])
        .assert()
        .success();
    repo.ok(&["link", "orders-api", "depends-on", "orders-db"]);
    repo.ok(&["link", "orders-api", "depends-on", "billing"]);
    repo.ok(&["link", "orders-db", "uses", "orders-keys"]);
    let to = consumer.map(recipient_of);
    write_config(&repo, &publishing("\"orders-*\"", to.as_deref()));
    repo.approve_config();
    repo
}

/// The publisher's settings: `orders` of `nodes`, sealed `to` a recipient.
fn publishing(nodes: &str, to: Option<&str>) -> String {
    let to = to.map(|r| format!(", to = [\"{r}\"]")).unwrap_or_default();
    format!(
        "[graphex.federation]\nproject = \"shop\"\npublish = [{{ subgraph = \"orders\", nodes = [{nodes}]{to} }}]\n"
    )
}

/// A store's age recipient, as `graphex federation key` prints it.
pub(crate) fn recipient_of(repo: &Repo) -> String {
    let v = repo.json(repo.master(), &["federation", "key"]);
    v["recipient"].as_str().unwrap().to_owned()
}

/// A consumer store with one node of its own, not subscribed yet.
pub(crate) fn consumer_store() -> Repo {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "local", "-d", "ours"]);
    repo
}

/// Names the publisher's bundle and `key` in the consumer's settings.
fn subscribe(repo: &Repo, bundle: &Path, key: &str, approve: bool) {
    write_config(repo, &source(bundle, key));
    if approve {
        repo.approve_config();
    }
}

/// One hex digit of a sealed bundle's payload changed.
fn tampered(text: &str) -> String {
    let at = text.find("\"payload\": \"").unwrap() + 20;
    let mut out = text.to_owned();
    let digit = if &text[at..=at] == "0" { "1" } else { "0" };
    out.replace_range(at..=at, digit);
    out
}

pub(crate) fn write_config(repo: &Repo, text: &str) {
    std::fs::write(repo.root().join(".gpp/config.toml"), text).unwrap();
}

fn bundle_path(repo: &Repo) -> PathBuf {
    repo.root().join(".gpp/graphex/federation/out/orders.bundle")
}

pub(crate) fn key_of(repo: &Repo) -> String {
    let v = repo.json(repo.master(), &["federation", "key"]);
    v["hex"].as_str().unwrap().to_owned()
}

fn source(bundle: &Path, key: &str) -> String {
    format!(
        "[graphex.federation]\nsources = [{{ project = \"shop\", subgraph = \"orders\", access = \"read-only\", path = {:?}, key = \"{key}\" }}]\n",
        bundle.display().to_string()
    )
}

pub(crate) fn names(v: &serde_json::Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            n.as_str()
                .map_or_else(|| n["name"].as_str().unwrap().to_owned(), str::to_owned)
        })
        .collect()
}

#[test]
fn a_dry_run_shows_what_would_leave_and_a_publish_writes_a_private_bundle() {
    let reader = consumer_store();
    let repo = publisher(Some(&reader));
    let dry = repo.json(repo.human(), &["federation", "publish", "--dry-run"]);
    assert_eq!(names(&dry, "nodes"), ["orders-api", "orders-db", "orders-keys"]);
    let tiers: Vec<&str> = dry["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["tier"].as_str().unwrap())
        .collect();
    assert_eq!(tiers, ["public", "agent-readable", "agent-restricted"]);
    let edges: Vec<String> = dry["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["from"].as_str().unwrap(),
                e["relation"].as_str().unwrap(),
                e["to"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(edges, ["orders-api depends-on orders-db", "orders-db uses orders-keys"]);
    assert!(!bundle_path(&repo).exists(), "a dry run writes nothing");
    let text = repo.ok(&["federation", "publish", "orders", "--dry-run"]);
    assert!(text.contains("node orders-keys (service, agent-restricted)"), "{text}");
    assert!(
        text.contains("edge orders-api -> depends-on -> orders-db (agent-readable)"),
        "{text}"
    );
    assert!(!text.contains("orders-secret") && !text.contains("billing"), "{text}");

    let out = repo.ok(&["federation", "publish"]);
    assert!(out.contains("published shop/orders bundle #1"), "{out}");
    let file = std::fs::read_to_string(bundle_path(&repo)).unwrap();
    assert!(
        file.contains("\"sealed\": true") && !file.contains("orders-"),
        "sealed: no name in the clear"
    );
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(
        std::fs::metadata(bundle_path(&repo)).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let ignore = std::fs::read_to_string(repo.root().join(".gpp/.gitignore")).unwrap();
    assert!(ignore.contains("graphex/federation/out/"), "{ignore}");
    let second = repo.json(repo.master(), &["federation", "publish"]);
    assert_eq!(second["sequence"], 2);
    // A locked session cannot publish: the key is the master's.
    repo.locked().args(["federation", "publish"]).assert().failure();
    // Without recipients the bundle is plain text: public only, the rest stays home.
    let plain = publisher(None);
    let dry = plain.ok(&["federation", "publish", "--dry-run"]);
    assert!(dry.contains("not published: orders-db (not public"), "{dry}");
    assert!(dry.contains("not published: orders-keys (not public"), "{dry}");
    assert!(dry.contains("plain text: public only"), "{dry}");
    let dry = plain.json(plain.master(), &["federation", "publish", "--dry-run"]);
    assert_eq!(names(&dry, "nodes"), ["orders-api"]);
    assert_eq!(names(&dry, "kept_home"), ["orders-db", "orders-keys"]);
    plain.ok(&["federation", "publish"]);
    let file = std::fs::read_to_string(bundle_path(&plain)).unwrap();
    assert!(
        file.contains("orders-api words") && !file.contains("orders-db") && !file.contains("orders-keys"),
        "{file}"
    );
}

#[test]
fn a_plain_bundle_after_sealed_ones_names_none_of_their_nodes() {
    let reader = consumer_store();
    let repo = publisher(Some(&reader));
    let first = repo.json(repo.master(), &["federation", "publish"]);
    assert_eq!(names(&first, "nodes"), ["orders-api", "orders-db", "orders-keys"]);
    // `to` removed and the restricted node no longer matched: plain text.
    write_config(&repo, &publishing("\"orders-api\", \"orders-db\"", None));
    repo.approve_config();
    let out = repo.ok(&["federation", "publish"]);
    assert!(out.contains("0 tombstone(s)"), "{out}");
    assert!(!out.contains("orders-keys"), "{out}");
    let file = std::fs::read_to_string(bundle_path(&repo)).unwrap();
    assert!(file.contains("\"sealed\": false"), "{file}");
    assert!(file.contains("orders-api words"), "{file}");
    assert!(!file.contains("orders-keys") && !file.contains("orders-db"), "{file}");
}

#[test]
fn a_pull_needs_approved_settings_and_brings_read_only_marked_nodes() {
    let repo = consumer_store();
    let publisher = publisher(Some(&repo));
    publisher.ok(&["federation", "publish"]);
    let key = key_of(&publisher);
    subscribe(&repo, &bundle_path(&publisher), &key, false);
    // The file names the source, but nobody approved it: nothing is pulled.
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("nothing to pull").and(predicate::str::contains("differs")));
    repo.approve_config();
    let pulled = repo.json(repo.master(), &["federation", "pull", "orders"]);
    assert_eq!(names(&pulled[0], "added"), ["orders-api", "orders-db", "orders-keys"]);

    let list = repo.ok(&["list"]);
    assert!(list.contains("[federated: shop/orders] orders-api words"), "{list}");
    assert!(
        !list.lines().any(|l| l.starts_with("local") && l.contains("federated")),
        "{list}"
    );
    let show = repo.ok(&["show", "orders-keys"]);
    assert!(show.contains("[federated: shop/orders] read-only"), "{show}");
    assert!(show.contains("agent-restricted"), "{show}");
    let json = repo.json(repo.master(), &["show", "orders-api"]);
    assert_eq!(json["federated_from"], "shop/orders");
    let projected = repo.ok(&["project", "--node", "orders-api", "--tier", "agent-readable"]);
    assert!(
        projected.contains("federated from shop/orders (read-only here)"),
        "{projected}"
    );

    for args in [
        vec!["update", "orders-api", "-d", "edited"],
        vec!["deprecate", "orders-api", "--reason", "x"],
        vec!["archive", "orders-api"],
        vec!["unlink", "orders-api", "depends-on", "orders-db"],
        vec!["link", "orders-api", "uses", "local"],
    ] {
        repo.master()
            .args(&args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(
                "orders-api is federated from shop/orders: read-only",
            ));
    }
    repo.master()
        .args([
            "add",
            "--type",
            "service",
            "--name",
            "fake",
            "-d",
            "x",
            "--prop",
            "federated-from=shop/orders",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("reserved"));
    // An agent's proposal touching a pulled node is flagged.
    let agent = repo.agent_identity_once();
    let out = repo
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", agent)
        .args(["propose", "-"])
        .write_stdin(
            r#"{"agent":"a","trust":95,"session":"s","rationale":"r",
                "changes":[{"op":"update_node","name":"orders-api","set":{"description":"mine now"}}]}"#,
        )
        .assert()
        .success();
    let id = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_owned();
    let pending = repo.ok(&["pending"]);
    assert!(
        pending.contains("orders-api is federated from shop/orders and read-only here; accepting is refused"),
        "{pending}"
    );
    repo.master()
        .args(["accept", &id])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "orders-api is federated from shop/orders: read-only",
        ));
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-api"])["description"],
        "orders-api words"
    );
}

#[test]
fn a_wrong_key_or_a_tampered_bundle_is_refused_and_nothing_is_written() {
    let repo = consumer_store();
    let publisher = publisher(Some(&repo));
    publisher.ok(&["federation", "publish"]);
    let stranger = Repo::new();
    let wrong = key_of(&stranger);
    subscribe(&repo, &bundle_path(&publisher), &wrong, true);
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not the pinned key"));
    repo.master().args(["show", "orders-api"]).assert().failure();

    // An agent swaps the pinned key in the file: the approved one stays in force.
    let key = key_of(&publisher);
    write_config(&repo, &source(&bundle_path(&publisher), &key));
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not the pinned key").and(predicate::str::contains("differs")));
    repo.approve_config();

    let tampered_file = repo.root().join("tampered.bundle");
    let text = std::fs::read_to_string(bundle_path(&publisher)).unwrap();
    std::fs::write(&tampered_file, tampered(&text)).unwrap();
    write_config(&repo, &source(&tampered_file, &key));
    repo.approve_config();
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("signature does not verify"));
    repo.master().args(["show", "orders-db"]).assert().failure();
    // Sealed to another project: this one cannot open it.
    write_config(&repo, &source(&bundle_path(&publisher), &key));
    repo.approve_config();
    let elsewhere = self::publisher(Some(&stranger));
    elsewhere.ok(&["federation", "publish"]);
    write_config(&repo, &source(&bundle_path(&elsewhere), &key_of(&elsewhere)));
    repo.approve_config();
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not sealed to this project"));
    repo.master().args(["show", "orders-db"]).assert().failure();
}

#[test]
fn updates_and_tombstones_flow_one_way_and_an_older_bundle_is_refused() {
    let repo = consumer_store();
    let publisher = publisher(Some(&repo));
    publisher.ok(&["federation", "publish"]);
    let first = std::fs::read(bundle_path(&publisher)).unwrap();
    subscribe(&repo, &bundle_path(&publisher), &key_of(&publisher), true);
    repo.ok(&["federation", "pull"]);

    publisher.ok(&["update", "orders-api", "-d", "new words"]);
    publisher.ok(&["update", "orders-keys", "--tier", "public"]);
    write_config(
        &publisher,
        &publishing("\"orders-api\", \"orders-keys\"", Some(&recipient_of(&repo))),
    );
    publisher.approve_config();
    let second = publisher.json(publisher.master(), &["federation", "publish"]);
    assert_eq!(names(&second, "tombstones"), ["orders-db"]);

    let pulled = repo.json(repo.master(), &["federation", "pull"]);
    assert_eq!(names(&pulled[0], "archived"), ["orders-db"]);
    assert_eq!(names(&pulled[0], "tier_kept"), ["orders-keys"]);
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-api"])["description"],
        "new words"
    );
    let keys = repo.json(repo.master(), &["show", "orders-keys"]);
    assert_eq!(keys["tier"], "agent-restricted", "a pull never lowers a tier");
    let db = repo.json(repo.master(), &["show", "orders-db"]);
    assert_eq!(db["status"], "archived");

    std::fs::write(bundle_path(&publisher), first).unwrap();
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("older than #2 already pulled"));
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-api"])["description"],
        "new words"
    );
}

#[test]
fn a_local_node_with_a_published_name_is_kept_and_reported() {
    let repo = consumer_store();
    let publisher = publisher(Some(&repo));
    publisher.ok(&["federation", "publish"]);
    subscribe(&repo, &bundle_path(&publisher), &key_of(&publisher), true);
    repo.ok(&["add", "--type", "service", "--name", "orders-db", "-d", "our own"]);
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stdout(predicate::str::contains(
            "not pulled: orders-db: a local node has this name",
        ))
        .stderr(predicate::str::contains("1 node(s) not pulled"));
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-db"])["description"],
        "our own"
    );
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-api"])["federated_from"],
        "shop/orders"
    );
}

#[test]
fn a_failing_source_after_pulled_ones_reports_them_and_says_so() {
    let repo = consumer_store();
    let publisher = publisher(Some(&repo));
    publisher.ok(&["federation", "publish"]);
    let key = key_of(&publisher);
    let two = |second: &Path| {
        format!(
            "[graphex.federation]\nsources = [\n  {{ project = \"shop\", subgraph = \"orders\", access = \"read-only\", path = {:?}, key = \"{key}\" }},\n  {{ project = \"shop\", subgraph = \"extra\", access = \"read-only\", path = {:?}, key = \"{key}\" }},\n]\n",
            bundle_path(&publisher).display().to_string(),
            second.display().to_string()
        )
    };
    // The second source's bundle is missing.
    write_config(&repo, &two(&repo.root().join("missing.bundle")));
    repo.approve_config();
    repo.master()
        .args(["federation", "pull"])
        .assert()
        .failure()
        .stdout(predicate::str::contains("pulled shop/orders bundle #1: 3 added"))
        .stderr(
            predicate::str::contains("pulling shop/extra (the sources before it were pulled and committed")
                .and(predicate::str::contains("reported above: shop/orders"))
                .and(predicate::str::contains("missing.bundle")),
        );
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-api"])["federated_from"],
        "shop/orders"
    );
    // Tampered, with --json: the completed reports are printed first.
    let bad = repo.root().join("tampered.bundle");
    std::fs::write(
        &bad,
        tampered(&std::fs::read_to_string(bundle_path(&publisher)).unwrap()),
    )
    .unwrap();
    write_config(&repo, &two(&bad));
    repo.approve_config();
    let out = repo
        .master()
        .args(["--json", "federation", "pull"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("signature does not verify")
                .and(predicate::str::contains("reported above: shop/orders")),
        );
    let done: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(done.as_array().unwrap().len(), 1, "{done}");
    assert_eq!(done[0]["source"], "shop/orders");
    // A dry run says the earlier ones were only checked.
    repo.master()
        .args(["federation", "pull", "--dry-run"])
        .assert()
        .failure()
        .stdout(predicate::str::contains("would pull shop/orders"))
        .stderr(predicate::str::contains(
            "dry run; the sources before it were checked: shop/orders",
        ));
    // The failing one alone: nothing before it, nothing claimed.
    repo.master()
        .args(["federation", "pull", "shop/extra"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("pulling shop/extra:").and(predicate::str::contains("before it").not()));
}

#[test]
fn a_publish_from_a_store_made_before_federation_updates_its_gitignore() {
    let repo = publisher(None);
    let path = repo.root().join(".gpp/.gitignore");
    let old: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("federation") && !l.contains(".merge-"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + "mine/\n";
    std::fs::write(&path, &old).unwrap();
    // A dry run writes nothing, not even there.
    repo.ok(&["federation", "publish", "--dry-run"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    repo.master()
        .args(["federation", "publish"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "added to .gpp/.gitignore (a store made before these lines): graphex/.merge-*/, graphex/federation/out/",
        ));
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.starts_with(&old) && now.ends_with("graphex/federation/out/\n"),
        "{now}"
    );
    repo.master()
        .args(["federation", "publish"])
        .assert()
        .success()
        .stderr(predicate::str::contains(".gitignore").not());
}
