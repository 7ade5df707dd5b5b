//! The spec's agent tools over MCP through rmcp's client: exploring
//! (path, search, inspect, timeline), governance (trust, cost estimate and
//! report, policy check), the query's filter arguments, and that nothing
//! above the agent's tier is ever named in their answers.

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::harness::Repo;
use crate::mcp::{Client, call, server, text};

/// A store with a node per tier, linked public -> agent-readable ->
/// agent-restricted, served to an agent of trust 94 (agent-readable).
fn linked() -> Repo {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&["link", "agent-readable", "uses", "agent-restricted"]);
    repo.ok(&["update", "agent-restricted", "-d", "agent-restricted words, renamed"]);
    repo
}

fn with_client(repo: &Repo, body: impl AsyncFnOnce(&Client)) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let cmd = server(repo, &[]).configure(|_| {});
        let client: Client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        body(&client).await;
        client.cancel().await.unwrap();
    });
}

async fn ok(c: &Client, tool: &'static str, args: Value) -> String {
    let r = call(c, tool, args).await;
    assert_eq!(r.is_error, Some(false), "{tool}: {}", text(&r));
    text(&r)
}

async fn err(c: &Client, tool: &'static str, args: Value) -> String {
    let r = call(c, tool, args).await;
    assert_eq!(r.is_error, Some(true), "{tool} should fail: {}", text(&r));
    text(&r)
}

const ABOVE: [&str; 2] = ["agent-restricted", "human-only"];

fn assert_clean(what: &str, t: &str) {
    for name in ABOVE {
        assert!(!t.contains(name), "{what} names {name}: {t}");
    }
}

#[test]
fn explore_tools_never_name_what_is_above_the_agents_tier() {
    let repo = linked();
    with_client(&repo, async |c| {
        // timeline_status: the agent-readable changes are there, the
        // restricted node's add, link and update are not.
        let t = ok(c, "timeline_status", json!({"count": 50})).await;
        assert!(t.contains("\"agent-readable\""), "{t}");
        assert_clean("timeline_status", &t);
        let t = ok(c, "timeline_status", json!({"node": "public"})).await;
        assert!(t.contains("\"public\"") && !t.contains("\"agent-readable\" "), "{t}");
        err(c, "timeline_status", json!({"count": 0})).await;

        // graphex_search finds by description words, within the tier only.
        let t = ok(c, "graphex_search", json!({"text": "words"})).await;
        assert!(t.contains("- public") && t.contains("- agent-readable"), "{t}");
        assert_clean("graphex_search", &t);
        let t = ok(c, "graphex_search", json!({"text": "renamed"})).await;
        assert!(t.starts_with("nothing matches"), "{t}");

        // graphex_path: to a readable node, and a hidden end is refused as an absent one.
        let t = ok(c, "graphex_path", json!({"from": "public", "to": "agent-readable"})).await;
        assert!(t.starts_with("public -[uses]-> agent-readable\n1 hop(s)"), "{t}");
        let hidden = err(c, "graphex_path", json!({"from": "public", "to": "agent-restricted"})).await;
        let absent = err(c, "graphex_path", json!({"from": "public", "to": "agent-restrictee"})).await;
        assert_eq!(hidden, absent.replace("agent-restrictee", "agent-restricted"));

        // graphex_inspect: the node alone, its hidden neighbour unnamed.
        let t = ok(c, "graphex_inspect", json!({"name": "agent-readable"})).await;
        assert!(t.contains("agent-readable words"), "{t}");
        assert_clean("graphex_inspect", &t);
        let hidden = err(c, "graphex_inspect", json!({"name": "agent-restricted"})).await;
        let absent = err(c, "graphex_inspect", json!({"name": "agent-restrictee"})).await;
        assert_eq!(hidden, absent.replace("agent-restrictee", "agent-restricted"));
    });
    // Each read was recorded like a query, and each that found nothing as a
    // failed read: the reviewer's listing says which name exists above the
    // agent's tier.
    let out = repo
        .master()
        .args(["audit", "list", "--agent", "claude-code"])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert_eq!(list.matches("failed-read").count(), 4, "{list}");
    assert_eq!(
        list.matches("agent-restricted is agent-restricted: above the tier read at")
            .count(),
        2,
        "{list}"
    );
    assert_eq!(list.matches("no node is named agent-restrictee").count(), 2, "{list}");
    for tool in [
        "tool:graphex_path",
        "tool:graphex_search",
        "tool:timeline_status",
        "node:agent-readable:0",
    ] {
        assert!(list.contains(tool), "{tool} not recorded:\n{list}");
    }
}

#[test]
fn governance_tools_estimate_report_and_check() {
    let repo = linked();
    with_client(&repo, async |c| {
        let t = ok(c, "trust_status", json!({})).await;
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(
            (v["trust"].as_f64(), v["tier"].as_str()),
            (Some(94.0), Some("agent-readable"))
        );
        assert_eq!(v["may"]["accept"], json!(false));

        // The estimate is what the projection then uses, to the token.
        let q = json!({"query": "public -> * -> *", "depth": 2, "budget": 300});
        let e: Value = serde_json::from_str(&ok(c, "cost_estimate", q.clone()).await).unwrap();
        let mut asked = q.clone();
        asked["format"] = json!("json");
        let p: Value = serde_json::from_str(&ok(c, "graphex_query", asked).await).unwrap();
        assert_eq!(e["tokens"], p["tokens"], "{e} vs {p}");
        assert!(p["tokens"].as_u64().unwrap() > 0);
        let e: Value = serde_json::from_str(&ok(c, "cost_estimate", json!({"node": "public"})).await).unwrap();
        let p: Value =
            serde_json::from_str(&ok(c, "graphex_inspect", json!({"name": "public", "format": "json"})).await).unwrap();
        assert_eq!(e["tokens"], p["tokens"]);

        // Filters as arguments and in the query are one and the same.
        err(
            c,
            "graphex_query",
            json!({"query": "public -> * -> * --depth 2", "depth": 2}),
        )
        .await;
        err(
            c,
            "graphex_query",
            json!({"query": "public -> * -> *", "type": "service --depth 2"}),
        )
        .await;
        err(
            c,
            "graphex_query",
            json!({"query": "public -> * -> *", "confidence": 2.0}),
        )
        .await;

        // Each filter works alike as an argument, in the query, and in the
        // CLI's `project` at the same trust: one projection, one hash.
        for (name, value, flag) in [
            ("type", json!("service"), "--type service"),
            ("since", json!("2000-01-01"), "--since 2000-01-01"),
            ("confidence", json!(0.5), "--confidence 0.5"),
            ("depth", json!(2), "--depth 2"),
            ("tier", json!("public"), "--tier public"),
            ("status", json!("active"), "--status active"),
        ] {
            let mut as_arg = json!({"query": "public -> * -> *", "format": "json"});
            as_arg[name] = value;
            let a: Value = serde_json::from_str(&ok(c, "graphex_query", as_arg).await).unwrap();
            let query = format!("public -> * -> * {flag}");
            let in_query = json!({"query": query, "format": "json"});
            let q: Value = serde_json::from_str(&ok(c, "graphex_query", in_query).await).unwrap();
            assert_eq!(a["hash"], q["hash"], "{name}: {a} vs {q}");
            let cli = repo.json(
                repo.master(),
                &["project", &query, "--trust", "94", "--format", "json", "--preview"],
            );
            assert_eq!(a["hash"], cli["hash"], "{name}: MCP {a} vs CLI {cli}");
        }

        // cost_report: on this agent's newest projection, or one it names.
        let hash = p["hash"].as_str().unwrap().to_owned();
        let t = ok(
            c,
            "cost_report",
            json!({"input_tokens": 1200, "output_tokens": 80, "cached_tokens": 300, "projection": &hash[..12]}),
        )
        .await;
        assert!(
            t.contains(&hash[..16]) && t.contains("1200 input (300 cached), 80 output"),
            "{t}"
        );
        ok(c, "cost_report", json!({"input_tokens": 10, "output_tokens": 1})).await;
        let t = err(
            c,
            "cost_report",
            json!({"input_tokens": 10, "output_tokens": 1, "projection": "deadbeefdead"}),
        )
        .await;
        assert!(t.contains("deadbeefdead"), "{t}");
        let t = err(
            c,
            "cost_report",
            json!({"input_tokens": 10, "output_tokens": 1, "cached_tokens": 11}),
        )
        .await;
        assert!(t.contains("cached"), "{t}");
        err(c, "cost_report", json!({"input_tokens": -1, "output_tokens": 1})).await;

        // policy_check: lints on a draft; a hidden name reads as an absent one.
        let t = ok(
            c,
            "policy_check",
            json!({"changes": [
                {"op": "add_node", "name": "public", "type": "service", "description": "again"},
                {"op": "add_edge", "from": "public", "relation": "uses", "to": "agent-restricted"},
                {"op": "add_edge", "from": "public", "relation": "uses", "to": "nowhere-at-all"}
            ], "paths": ["src/main.rs"]}),
        )
        .await;
        let v: Value = serde_json::from_str(&t).unwrap();
        let lints: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["lint"].as_str().unwrap())
            .collect();
        assert!(lints.contains(&"name-taken"), "{t}");
        let dangling: Vec<u64> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["lint"] == "dangling")
            .filter_map(|f| f["change"].as_u64())
            .collect();
        assert_eq!(dangling, [2, 3], "the hidden end reads as the absent one: {t}");
        assert!(!lints.contains(&"hidden"), "{t}");
        // It names the draft's own words only: the hidden end is worded as
        // the absent one, nothing else is said of it.
        let said = |n: usize| v["findings"][n]["finding"].as_str().unwrap().to_owned();
        assert_eq!(
            said(1).replace("agent-restricted", "X").replace("change 2", "change N"),
            said(2).replace("nowhere-at-all", "X").replace("change 3", "change N"),
            "{t}"
        );
        assert_eq!(t.matches("agent-restricted").count(), 1, "{t}");
        assert!(!t.contains("human-only"), "{t}");
        assert_eq!(v["ok"], json!(false));
        assert_eq!(v["paths"][0]["path"], json!("src/main.rs"));
        err(c, "policy_check", json!({})).await;
        // Asked alone, a hidden name and an absent one get the same answer,
        // word for word and in the same order.
        let check_of = async |to: &str| {
            let changes = json!([
                {"op": "add_edge", "from": "public", "relation": "uses", "to": to},
                {"op": "update_node", "name": to, "set": {"description": "more"}},
                {"op": "add_node", "name": "fresh-one", "type": "service", "description": format!("uses {to}")}
            ]);
            ok(c, "policy_check", json!({"changes": changes})).await
        };
        let hidden = check_of("agent-restricted").await;
        let absent = check_of("agent-restrictee").await;
        assert_eq!(hidden, absent.replace("agent-restrictee", "agent-restricted"));

        // propose_update by id.
        let id = p["included_ids"][0].as_str().unwrap().to_owned();
        let t = ok(
            c,
            "graphex_propose_update",
            json!({"id": id, "set": {"description": "by id"}}),
        )
        .await;
        assert!(t.contains("submitted for human review"), "{t}");
        err(c, "graphex_propose_update", json!({"set": {"description": "neither"}})).await;
    });
    // Nothing of the policy check was stored: one pending proposal (the update).
    let out = repo.master().args(["--json", "pending"]).output().unwrap();
    let pending: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pending["proposals"].as_array().map(Vec::len), Some(1), "{pending}");
    // The costs are in the audit log, which still verifies.
    let out = repo.master().args(["audit", "list"]).output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("spent 1200 in (300 cached), 80 out"), "{list}");
    repo.master().args(["audit", "verify"]).assert().success();
}
