//! The MCP server through rmcp's own client: the tools, a projection at the
//! agent's tier, proposals, their status, errors as tool errors, and
//! separation of duties (no master key, no accept tool).

use rmcp::model::{CallToolRequestParams, CallToolResult, object};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::harness::{PASS, Repo};

pub(crate) type Client = RunningService<RoleClient, ()>;

pub(crate) fn server(repo: &Repo, extra: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = server_on(repo.root(), &repo.agent_identity_once(), "s1");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd
}

/// `graphex mcp` on the store at `root` with the agent identity file
/// `identity`, in session `session`, nothing else of the environment's.
pub(crate) fn server_on(root: &std::path::Path, identity: &std::path::Path, session: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("graphex"));
    for var in [
        "GRAPHEX_STORE",
        "GRAPHEX_PASSPHRASE",
        "GRAPHEX_IDENTITY",
        "GRAPHEX_HUMAN_PASSPHRASE",
    ] {
        cmd.env_remove(var);
    }
    cmd.args(["--store"])
        .arg(root)
        .args(["mcp", "--agent", "claude-code", "--trust", "94", "--session", session])
        .env("GRAPHEX_AGENT_IDENTITY", identity)
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", crate::harness::state_dir());
    cmd
}

/// A runtime for one test's MCP clients.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

pub(crate) async fn call(c: &Client, tool: &'static str, args: Value) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new(tool).with_arguments(object(args)))
        .await
        .unwrap()
}

pub(crate) fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn agents_query_propose_and_follow_up_over_mcp() {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&["link", "agent-readable", "uses", "agent-restricted"]);
    let runtime = runtime();
    runtime.block_on(async {
        let cmd = server(&repo, &[]).configure(|_| {});
        let client: Client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let tools: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(
            tools,
            [
                "begin_exploration",
                "cost_estimate",
                "cost_report",
                "end_exploration",
                "graphex_conventions",
                "graphex_glossary",
                "graphex_inspect",
                "graphex_path",
                "graphex_proposal_status",
                "graphex_propose_edge",
                "graphex_propose_node",
                "graphex_propose_remove_edge",
                "graphex_propose_update",
                "graphex_query",
                "graphex_search",
                "graphex_status",
                "policy_check",
                "propose_changeset",
                "review_comment",
                "review_list",
                "timeline_status",
                "trust_status"
            ]
        );
        // Trust 94 reads agent-readable, never agent-restricted or human-only.
        let r = call(&client, "graphex_query", json!({"query": "public -> * -> * --depth 3"})).await;
        let t = text(&r);
        assert_eq!(r.is_error, Some(false), "{t}");
        assert!(t.contains("agent-readable words"), "{t}");
        assert!(
            !t.contains("agent-restricted words") && !t.contains("secret words"),
            "{t}"
        );
        let r = call(&client, "graphex_query", json!({"query": "public -> -> x"})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("query"), "{}", text(&r));

        let r = call(
            &client,
            "graphex_propose_node",
            json!({"name": "retry-queue", "node_type": "module", "description": "Retries",
                   "suggested_edges": [["public", "uses", "retry-queue"]], "rationale": "needed"}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let id = text(&r).split_whitespace().nth(1).unwrap().to_owned();
        let r = call(&client, "graphex_proposal_status", json!({"id": &id[..8]})).await;
        assert!(text(&r).contains("pending review"), "{}", text(&r));
        // An edge above the agent's tier is refused exactly as an absent one:
        // the answer cannot tell the agent it exists.
        let hidden = call(
            &client,
            "graphex_propose_remove_edge",
            json!({"from": "agent-readable", "relation": "uses", "to": "agent-restricted", "reason": "gone"}),
        )
        .await;
        let absent = call(
            &client,
            "graphex_propose_remove_edge",
            json!({"from": "agent-readable", "relation": "owns", "to": "agent-restricted", "reason": "gone"}),
        )
        .await;
        assert_eq!((hidden.is_error, absent.is_error), (Some(true), Some(true)));
        assert!(text(&hidden).contains("reads no such edge"), "{}", text(&hidden));
        assert_eq!(text(&hidden), text(&absent).replace("owns", "uses"));
        // Caller cannot set the agent, and bad input is a tool error with the reason.
        let r = call(
            &client,
            "graphex_propose_edge",
            json!({"from": "a", "relation": "uses", "to": "b", "agent": "root"}),
        )
        .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("unknown field `agent`"), "{}", text(&r));
        let r = call(
            &client,
            "graphex_propose_update",
            json!({"name": "public", "set": {"colour": "red"}}),
        )
        .await;
        assert!(text(&r).contains("unknown field `colour`"), "{}", text(&r));
        let r = call(
            &client,
            "graphex_propose_node",
            json!({"name": "x", "node_type": "module", "description": "d", "tier": "human-only"}),
        )
        .await;
        // Human-only is not a tier the schema offers: refused, naming the ones it does.
        assert!(
            text(&r).contains("unknown variant `human-only`, expected one of `public`, `agent-readable`"),
            "{}",
            text(&r)
        );

        // A reviewer accepts from the CLI; the running server sees it.
        repo.master().args(["accept", &id[..8]]).assert().success();
        let r = call(&client, "graphex_proposal_status", json!({"id": &id[..8]})).await;
        assert!(text(&r).contains("accepted"), "{}", text(&r));
        let r = call(
            &client,
            "graphex_query",
            json!({"query": "retry-queue <-> *", "format": "json"}),
        )
        .await;
        let v: Value = serde_json::from_str(&text(&r)).unwrap_or_else(|e| panic!("{e}: {}", text(&r)));
        assert!(
            v["included"].as_array().unwrap().iter().any(|n| n == "retry-queue"),
            "{v}"
        );
        // A reviewer rotates the agent-readable key: the running server
        // unlocks again with its identity and still reads its tier and the
        // decision (re-sealed under the new key).
        repo.master()
            .args(["keys", "rotate", "--tier", "agent-readable"])
            .assert()
            .success();
        let r = call(&client, "graphex_query", json!({"query": "public -> * -> * --depth 3"})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        assert!(text(&r).contains("agent-readable words"), "{}", text(&r));
        let r = call(&client, "graphex_proposal_status", json!({"id": &id[..8]})).await;
        assert!(text(&r).contains("accepted"), "{}", text(&r));
        client.cancel().await.unwrap();
    });
    // The proposal was written by the agent, sealed: nothing readable in pending/.
    let pending = std::fs::read_dir(repo.root().join(".gpp/graphex/pending")).unwrap();
    for f in pending.flatten().filter(|f| f.path().is_file()) {
        assert!(!String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).contains("Retries"));
    }
}

#[test]
fn the_server_refuses_master_credentials_unless_local() {
    let repo = Repo::new();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("graphex"))
        .args(["--store"])
        .arg(repo.root())
        .args(["mcp", "--agent", "a", "--trust", "50"])
        .env("GRAPHEX_PASSPHRASE", PASS)
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", crate::harness::state_dir())
        .env_remove("GRAPHEX_AGENT_IDENTITY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("agent identity only"));
}

#[test]
fn a_server_without_the_keys_its_trust_needs_refuses_unless_public_only_and_says_what_it_reads() {
    let repo = Repo::new().with_four_tiers();
    let keyless = |extra: &[&str]| {
        let mut c = crate::harness::bare(repo.root());
        c.arg("--store")
            .arg(repo.root())
            .args(["mcp", "--agent", "a", "--trust", "94"])
            .args(extra);
        c
    };
    let out = keyless(&[]).write_stdin("").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("may read up to the agent-readable tier, but this server can decrypt only public"),
        "{said}"
    );
    assert!(said.contains("--public-only"), "{said}");
    // Knowingly public: trust_status says what it reads and what it does not serve.
    let mut s = crate::mcp_limits::Server::spawn_with(&repo, &["--public-only"], false);
    s.send(
        &serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    );
    assert_eq!(s.next()["id"], 1);
    s.send(&serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"trust_status","arguments":{}}}));
    let status = s.next();
    let text: serde_json::Value =
        serde_json::from_str(status["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["reads"], serde_json::json!(["public"]), "{text}");
    assert_eq!(text["trust_allows"], "agent-readable", "{text}");
    assert_eq!(text["not_served"], serde_json::json!(["agent-readable"]), "{text}");
}
