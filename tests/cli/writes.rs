//! add, update, link, and their bad input.

use predicates::prelude::*;

use crate::harness::Repo;

#[test]
fn add_then_show_round_trips_every_field() {
    let repo = Repo::new();
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "orders-service",
        "-d",
        "Core orders engine",
        "--tier",
        "agent-readable",
        "--prop",
        "owner=orders-team",
        "--prop",
        "lang=rust",
        "--body",
        "long text",
        "--confidence",
        "0.9",
    ]);
    let v = repo.json(repo.master(), &["show", "orders-service"]);
    assert_eq!(v["type"], "service");
    assert_eq!(v["description"], "Core orders engine");
    assert_eq!(v["tier"], "agent-readable");
    assert_eq!(v["status"], "active", "human add is Active directly");
    assert_eq!(v["properties"]["owner"], "orders-team");
    assert_eq!(v["body"], "long text");
    assert_eq!(v["confidence"], 0.9);
    assert_eq!(v["version"], 1);
    assert_eq!(v["provenance"]["kind"], "human");
}

#[test]
fn bad_input_is_named() {
    let repo = Repo::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &["add", "--type", "service", "--name", "Orders", "-d", "x"],
            "uppercase",
        ),
        (&["add", "--type", "service", "--name", "a/b", "-d", "x"], "'/'"),
        (&["add", "--type", "Service", "--name", "a", "-d", "x"], "invalid type"),
        (
            &["add", "--type", "service", "--name", "a", "-d", "x", "--tier", "secret"],
            "expected one of public",
        ),
        (
            &[
                "add", "--type", "service", "--name", "a", "-d", "x", "--prop", "novalue",
            ],
            "KEY=VALUE",
        ),
        (
            &[
                "add",
                "--type",
                "service",
                "--name",
                "a",
                "-d",
                "x",
                "--confidence",
                "2",
            ],
            "from 0 to 1",
        ),
        (
            &["add", "--type", "service", "--name", "a", "-d", "  "],
            "description cannot be empty",
        ),
        (&["link", "a", "uses", "b"], "no node named"),
        (&["update", "ghost", "-d", "x"], "no node named \"ghost\""),
        (&["update", "ghost"], "nothing to change"),
    ];
    for (args, needle) in cases {
        repo.master()
            .args(*args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(*needle));
    }
    repo.ok(&["add", "--type", "service", "--name", "a", "-d", "x"]);
    repo.master()
        .args(["add", "--type", "service", "--name", "a", "-d", "again"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already exists"));
    repo.master()
        .args(["update", "a"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing to change"));
}

#[test]
fn writing_needs_the_master_key() {
    let repo = Repo::new();
    repo.locked()
        .args(["add", "--type", "service", "--name", "a", "-d", "x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("needs the master key"));
    let agent = Repo::new().with_four_tiers();
    let id = agent.agent_identity();
    agent
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", &id)
        .args(["add", "--type", "service", "--name", "b", "-d", "x"])
        .assert()
        .code(1);
    repo.master()
        .args([
            "add",
            "--type",
            "service",
            "--name",
            "h",
            "-d",
            "x",
            "--tier",
            "human-only",
        ])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("human-only content is locked")
                .and(predicate::str::contains("hint: set GRAPHEX_HUMAN_PASSPHRASE")),
        );
}

#[test]
fn update_writes_a_new_version_and_raising_a_tier_hides_the_node() {
    let repo = Repo::new();
    repo.ok(&[
        "add", "--type", "module", "--name", "m", "-d", "one", "--prop", "a=1", "--prop", "b=2",
    ]);
    repo.ok(&["add", "--type", "module", "--name", "n", "-d", "peer"]);
    repo.ok(&["link", "m", "depends-on", "n"]);
    repo.ok(&[
        "update", "m", "-d", "two", "--prop", "a=", "--prop", "c=3", "--type", "service",
    ]);
    let v = repo.json(repo.master(), &["show", "m"]);
    assert_eq!(
        (v["version"].as_u64(), v["description"].as_str(), v["type"].as_str()),
        (Some(2), Some("two"), Some("service"))
    );
    assert_eq!(v["properties"], serde_json::json!({"b": "2", "c": "3"}));
    repo.ok(&["update", "m", "--tier", "agent-restricted"]);
    repo.locked().args(["show", "m"]).assert().code(1);
    let n = repo.json(repo.locked(), &["show", "n"]);
    assert!(
        n["incoming"].as_array().unwrap().is_empty(),
        "the edge moved up with its secret end"
    );
    let n = repo.json(repo.master(), &["show", "n"]);
    assert_eq!(n["incoming"][0]["tier"], "agent-restricted");
}

#[test]
fn link_validates_and_refuses_duplicates() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "a", "-d", "x"]);
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "b",
        "-d",
        "y",
        "--tier",
        "agent-readable",
    ]);
    let out = repo.ok(&[
        "link",
        "a",
        "communicates-with",
        "b",
        "--bidirectional",
        "--weight",
        "0.7",
    ]);
    assert!(
        out.contains("linked a <-> communicates-with <-> b [agent-readable]"),
        "{out}"
    );
    repo.master()
        .args(["link", "a", "communicates-with", "b"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already exists"));
    repo.master()
        .args(["link", "a", "Bad Rel", "b"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("relation"));
    repo.master()
        .args(["link", "a", "uses", "bb"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("did you mean b"));
    repo.ok(&["link", "a", "custom-rel", "b", "--tier", "agent-restricted"]);
    let v = repo.json(repo.master(), &["show", "a"]);
    let tiers: Vec<_> = v["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tier"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tiers, ["agent-readable", "agent-restricted"]);
}

#[test]
fn importance_and_tags_are_kept_per_node_and_checked() {
    let repo = crate::harness::Repo::new();
    repo.ok(&[
        "add",
        "-t",
        "service",
        "--name",
        "orders",
        "-d",
        "Orders",
        "--importance",
        "0.8",
        "--tags",
        "core,payments",
    ]);
    let shown = repo.ok(&["--json", "show", "orders"]);
    let v: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(v["properties"]["importance"], "0.8", "{v}");
    assert_eq!(v["properties"]["tags"], "core,payments", "{v}");
    let out = repo
        .master()
        .args(["update", "orders", "--importance", "2"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--importance must be from 0 to 1"),
        "{out:?}"
    );
    let out = repo
        .master()
        .args(["update", "orders", "--tags", "Core"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a lowercase word"),
        "{out:?}"
    );
    repo.ok(&["update", "orders", "--tags", ""]);
    let v: serde_json::Value = serde_json::from_str(&repo.ok(&["--json", "show", "orders"])).unwrap();
    assert!(v["properties"].get("tags").is_none(), "{v}");
}
