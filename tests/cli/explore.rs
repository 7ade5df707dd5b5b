//! query, path, neighbors, search, glossary, conventions on the demo store.

use assert_cmd::Command;
use predicates::prelude::*;

use crate::harness::{bare, json_of};

/// A demo store and commands at a given level.
struct Demo {
    dir: tempfile::TempDir,
}

impl Demo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        bare(dir.path())
            .args(["demo", "repo", "--no-console"])
            .assert()
            .success();
        Self { dir }
    }

    fn cmd(&self, level: &str) -> Command {
        let mut c = bare(self.dir.path());
        c.args(["--store", "repo"]);
        if level != "locked" {
            c.env("GRAPHEX_PASSPHRASE", graphex::cli::DEMO_PASSPHRASE);
        }
        if level == "human" {
            c.env("GRAPHEX_HUMAN_PASSPHRASE", graphex::cli::DEMO_HUMAN_PASSPHRASE);
        }
        c
    }

    fn json(&self, level: &str, args: &[&str]) -> serde_json::Value {
        let mut c = self.cmd(level);
        c.arg("--json").args(args);
        json_of(c)
    }

    fn text(&self, level: &str, args: &[&str]) -> String {
        let out = self.cmd(level).args(args).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    }
}

fn path_strings(v: &serde_json::Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn query_formats_and_the_spec_json() {
    let d = Demo::new();
    let v = d.json("master", &["query", "orders-service -> depends-on -> currency-utils"]);
    assert_eq!(path_strings(&v), ["orders-service depends-on currency-utils"]);
    assert_eq!(v["results"][0]["nodes"]["currency-utils"]["type"], "module");
    assert_eq!(v["total_results"], 1);
    let same = d.json(
        "master",
        &[
            "query",
            "orders-service->depends-on->currency-utils",
            "--format",
            "json",
        ],
    );
    assert_eq!(v["results"], same["results"]);
    let text = d.text("master", &["query", "orders-service -> depends-on -> *"]);
    assert!(
        text.contains("orders-service (service) -[depends-on]-> currency-utils (module)") && text.contains("result(s)")
    );
    assert!(
        d.text("master", &["query", "orders-* -> owned-by -> *", "--format", "mermaid"])
            .starts_with("graph LR")
    );
    assert!(
        d.text("master", &["query", "orders-* -> owned-by -> *", "--format", "dot"])
            .starts_with("digraph graphex {")
    );
}

#[test]
fn query_errors_point_at_the_fault() {
    let d = Demo::new();
    d.cmd("master")
        .args(["query", "ordrs-service -> * -> *"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no node named \"ordrs-service\"\n  ordrs-service -> * -> *\n  ^^^^^^^^^^^^^",
        ))
        .stderr(predicate::str::contains("did you mean: orders-service"));
    d.cmd("master")
        .args(["query", "orders-service -> * -> * --deph 2"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown flag --deph").and(predicate::str::contains("did you mean: --depth")));
    d.cmd("master")
        .args(["query", "a -> b <-> c"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("same arrow"));
}

#[test]
fn query_sees_only_the_sessions_tiers() {
    let d = Demo::new();
    let human_only: Vec<String> = d
        .json("human", &["list", "--tier", "human-only", "--all"])
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!human_only.is_empty());
    let everything =
        serde_json::to_string(&d.json("master", &["query", "* -> * -> * --status any --limit 100000"])).unwrap();
    for name in &human_only {
        assert!(
            !everything.contains(&format!("\"{name}\"")),
            "{name} leaked to a master-level query"
        );
    }
    let human = serde_json::to_string(&d.json("human", &["query", "* -> * -> * --status any --limit 100000"])).unwrap();
    assert!(
        human_only.iter().any(|n| human.contains(&format!("\"{n}\""))),
        "the human level sees them"
    );
    d.cmd("master")
        .args(["query", &format!("{} -> * -> *", human_only[0])])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no node named"));
    let locked = d.json("locked", &["query", "* -> * -> * --limit 100000"]);
    assert!(
        locked["results"].as_array().unwrap().iter().all(|r| r["nodes"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| !human_only.contains(k)))
    );
}

#[test]
fn path_and_neighbors() {
    let d = Demo::new();
    let p = d.json("master", &["path", "retry-queue", "orders-team", "--undirected"]);
    assert_eq!(p["found"], true);
    assert_eq!(p["steps"][0]["name"], "retry-queue");
    assert_eq!(p["steps"].as_array().unwrap().last().unwrap()["name"], "orders-team");
    assert_eq!(
        p["hops"].as_u64().unwrap() as usize,
        p["steps"].as_array().unwrap().len() - 1
    );
    let none = d.text("master", &["path", "pci-dss", "retry-queue"]);
    assert!(none.contains("no path") && none.contains("--undirected"), "{none}");
    d.cmd("master")
        .args(["path", "retry-queu", "api-gateway"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("did you mean retry-queue"));
    let rings = d.json(
        "master",
        &[
            "neighbors",
            "currency-utils",
            "--depth",
            "2",
            "--direction",
            "in",
            "--type",
            "service",
        ],
    );
    let ring1: Vec<&str> = rings[0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert!(
        ring1.contains(&"orders-service") && ring1.iter().all(|n| n.ends_with("service") || n.contains("gateway")),
        "{ring1:?}"
    );
    assert!(
        rings[0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["type"] == "service" && n["via"]["direction"] == "backward")
    );
    // Each step's edge carries its weight and confidence.
    let via = &rings[0]["nodes"][0]["via"];
    assert!(via["weight"].is_f64() && via["confidence"].is_f64(), "{via}");
    // A relation excluded is never followed (as Ash's walk leaves out supersedes).
    let names = |args: &[&str]| -> Vec<String> {
        d.json("master", args)
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["nodes"].as_array().unwrap().clone())
            .map(|n| n["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = names(&["neighbors", "orders-service"]);
    let without = names(&["neighbors", "orders-service", "--exclude-relation", "depends-on"]);
    assert!(all.contains(&"currency-utils".to_owned()), "{all:?}");
    assert!(!without.contains(&"currency-utils".to_owned()), "{without:?}");
    assert!(!without.is_empty() && without.len() < all.len(), "{without:?}");
    d.cmd("master")
        .args(["neighbors", "currency-utils", "--direction", "up"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("in, out or both"));
    d.cmd("master")
        .args(["neighbors", "currency-utils", "--depth", "0"])
        .assert()
        .code(1);
}

#[test]
fn search_glossary_and_conventions() {
    let d = Demo::new();
    let hits = d.json("master", &["search", "idempotency", "--limit", "3"]);
    assert_eq!(hits.as_array().unwrap().len(), 3);
    assert!(hits[0]["name"].as_str().unwrap().contains("idempotency"));
    let terms = d.json("master", &["glossary", "Order batch"]);
    assert_eq!(terms[0]["term"], "order-batch");
    assert!(d.text("master", &["glossary", "zzzz"]).contains("no glossary entry"));
    let conv = d.json("master", &["conventions", "orders-service"]);
    let names: Vec<&str> = conv
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"monetary-values-in-cents"), "{names:?}");
}
