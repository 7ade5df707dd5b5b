//! JSON-RPC as clients really send it, through a raw line client: ids that
//! are no ids and batches are answered (never silence), a call before
//! `initialize` is told to initialize first, and a client that never sends
//! `notifications/initialized` is served all the same, string ids included.

use serde_json::{Value, json};

use crate::harness::Repo;
use crate::mcp_limits::Server;

fn init(id: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})
}

fn call(id: Value, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":arguments}})
}

#[test]
fn a_raw_client_is_answered_for_every_request_it_sends() {
    let repo = Repo::new();
    let mut s = Server::spawn(&repo, &[]);
    // Before initialize: a notification is dropped (the server lives on),
    // a call is told what to do first, a ping is answered.
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}));
    s.send(&call(json!("early"), "graphex_status", json!({})));
    let early = s.next();
    assert_eq!(early["id"], "early", "{early}");
    let message = early["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("initialize first"), "{early}");
    s.send(&json!({"jsonrpc":"2.0","id":"p","method":"ping"}));
    assert_eq!(s.next()["id"], "p");
    // initialize with a string id, then a call with no initialized notification.
    s.send(&init(json!("init-1")));
    let hello = s.next();
    assert_eq!(hello["id"], "init-1", "{hello}");
    assert!(hello["result"]["serverInfo"].is_object(), "{hello}");
    s.send(&call(json!("q1"), "graphex_status", json!({})));
    let status = s.next();
    assert_eq!(status["id"], "q1", "{status}");
    assert!(status["result"]["content"].is_array(), "{status}");
    // Ids that are no ids, and a batch: an error with a null id each.
    for bad in [
        json!({"jsonrpc":"2.0","id":null,"method":"ping"}),
        json!({"jsonrpc":"2.0","id":1.5,"method":"ping"}),
        json!([{"jsonrpc":"2.0","id":7,"method":"ping"}]),
    ] {
        s.send(&bad);
        let answer = s.next();
        assert!(answer.as_object().is_some_and(|o| o.contains_key("id")), "{answer}");
        assert_eq!(answer["id"], Value::Null, "{bad}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
    }
    s.send(&json!({"jsonrpc":"2.0","id":8,"method":"ping"}));
    assert_eq!(s.next()["id"], 8);
}

#[test]
fn the_schemas_say_what_the_tools_take_and_other_values_are_refused() {
    let repo = Repo::new();
    let mut s = Server::start(&repo, &[]);
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    let listed = s.next();
    let tools = listed["result"]["tools"].as_array().unwrap();
    let schema = |name: &str| -> Value { tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone() };
    let query = schema("graphex_query");
    let text = query.to_string();
    assert!(
        text.contains(r#""minimum":1"#) && text.contains(r#""maximum":10"#),
        "{query}"
    );
    for word in ["\"agent-readable\"", "\"deprecated\"", "\"any\""] {
        assert!(text.contains(word), "{word} in {query}");
    }
    assert!(!text.contains("human-only"), "{query}");
    assert!(schema("review_list").to_string().contains("changes-requested"));
    // Values outside them are refused, naming the problem.
    for (id, tool, arguments) in [
        (3, "review_list", json!({"state": "bogus"})),
        (4, "graphex_query", json!({"query": "* -> * -> *", "status": "gone"})),
        (5, "graphex_query", json!({"query": "* -> * -> *", "depth": 0})),
    ] {
        s.send(&call(json!(id), tool, arguments));
        let answer = s.next();
        assert_eq!(answer["id"], id, "{answer}");
        let refused = answer["error"].is_object() || answer["result"]["isError"] == true;
        assert!(refused, "{tool}: {answer}");
    }
}

/// The text of a tool call's answer.
fn answer_text(v: &Value) -> String {
    assert!(v["error"].is_null(), "{v}");
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn an_agent_queries_proposes_a_human_accepts_mid_session_and_the_record_holds_it_all() {
    let repo = Repo::new().with_four_tiers();
    let mut s = Server::spawn(&repo, &[]);
    s.send(&init(json!(1)));
    assert_eq!(s.next()["id"], 1);
    // The agent reads, then proposes what it found missing.
    s.send(&call(json!(2), "graphex_query", json!({"query": "public -> * -> *"})));
    let before = answer_text(&s.next());
    assert!(!before.contains("retry-queue"), "{before}");
    s.send(&call(
        json!(3),
        "graphex_propose_node",
        json!({"name": "retry-queue", "node_type": "module", "description": "Retries failed upstream calls",
               "suggested_edges": [["public", "depends-on", "retry-queue"]], "rationale": "calls time out"}),
    ));
    let proposed = answer_text(&s.next());
    let id = proposed.split_whitespace().nth(1).unwrap().to_owned();
    // The human accepts from the CLI while the server runs.
    repo.master().args(["accept", &id[..8]]).assert().success();
    s.send(&call(json!(4), "graphex_proposal_status", json!({"id": &id[..8]})));
    assert!(answer_text(&s.next()).contains("accepted"));
    s.send(&call(json!(5), "graphex_query", json!({"query": "public -> * -> *"})));
    let after = answer_text(&s.next());
    assert!(after.contains("retry-queue"), "the agent sees it: {after}");
    // The record: what it received, what it proposed, what was decided.
    let audit = repo.json(
        repo.master(),
        &["audit", "list", "--agent", "claude-code", "--limit", "50"],
    );
    let kinds: Vec<String> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap_or_default().to_owned())
        .collect();
    for kind in ["projection", "proposal", "decision"] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} record: {audit}");
    }
    let decided = audit
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "decision")
        .unwrap();
    assert!(decided.to_string().contains(&id[..12]), "{decided}");
}
