//! Each MCP tool's round trip through `graphex mcp`, as an agent's client
//! sees it: the real server process on stdio, an rmcp client, one call per
//! iteration (the request written, the tool run against the open store,
//! the answer read back). The server stays up for the whole run, as an
//! agent's does.
//!
//! The store: the 100k generated store when `GRAPHEX_BENCH_STORE` and
//! `GRAPHEX_BENCH_IDENTITY` (its master identity) are set (scripts/bench.sh),
//! else the demo store. An agent identity is exported for the server before
//! the timing. The subject is the first active node by name with at least
//! three outgoing edges (printed); the path runs from it to the far end of
//! its first two-hop walk.
//!
//! With `GRAPHEX_BENCH_MCP_VIA_SESSION=1` the server is an agent-level
//! unlock session's (`graphex unlock --level agent` with the identity, then
//! `graphex mcp` with no key, relaying its stdio to the session), so the
//! figures include the relay's hop.
//!
//! `graphex_propose_node` writes a proposal each iteration (a new name
//! each time; the files are removed after the run); the rest read (the
//! reads an agent's projection makes are recorded in the audit log, as in
//! use). `cost_estimate` is checked against the
//! tokens the projection then uses, and the difference printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use graphex_engine::{Credentials, Store};
use rmcp::model::{CallToolRequestParams, object};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_graphex");

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    agent_id: PathBuf,
    label: &'static str,
}

fn graphex(root: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--store").arg(root).env("GRAPHEX_TEST_KDF_LOG_N", "4");
    c
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("mcp bench");
    let agent_id = dir.path().join("agent.id");
    let (root, label, mut export) = match (
        std::env::var_os("GRAPHEX_BENCH_STORE"),
        std::env::var_os("GRAPHEX_BENCH_IDENTITY"),
    ) {
        (Some(store), Some(identity)) => {
            let root = PathBuf::from(store);
            let mut c = graphex(&root);
            c.env("GRAPHEX_IDENTITY", identity);
            (root, "100k", c)
        }
        _ => {
            let root = dir.path().join("demo");
            let made = graphex(&root)
                .args(["demo"])
                .arg(&root)
                .arg("--no-console")
                .output()
                .expect("mcp bench");
            assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
            let mut c = graphex(&root);
            c.env("GRAPHEX_PASSPHRASE", "graphex-demo");
            (root, "demo", c)
        }
    };
    let out = export
        .args(["keys", "export-agent"])
        .arg(&agent_id)
        .output()
        .expect("mcp bench");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Setup {
        _dir: dir,
        root,
        agent_id,
        label,
    }
}

/// The subject and a two-hop destination, read at the agent's level.
fn subject(s: &Setup) -> (String, String) {
    let creds = Credentials {
        agent_identity_file: Some(s.agent_id.clone()),
        ..Credentials::default()
    };
    let store = Store::open(&s.root, &creds).expect("mcp bench");
    let c = store.catalog();
    let mut nodes: Vec<_> = c
        .nodes()
        .filter(|n| {
            n.status == graphex_engine::model::Status::Active && n.tier <= graphex_engine::model::Tier::AgentReadable
        })
        .collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let readable = |id: &graphex_engine::model::NodeId| {
        c.node(id)
            .filter(|n| n.tier <= graphex_engine::model::Tier::AgentReadable)
    };
    for n in nodes {
        let out: Vec<_> = c.outgoing(&n.id).filter(|e| readable(&e.to).is_some()).collect();
        if out.len() < 3 {
            continue;
        }
        let far = out
            .iter()
            .find_map(|e| {
                c.outgoing(&e.to)
                    .find_map(|e2| readable(&e2.to).filter(|m| m.id != n.id))
            })
            .or_else(|| readable(&out[0].to));
        if let Some(far) = far {
            return (n.name.to_string(), far.name.to_string());
        }
    }
    panic!("no node with three readable outgoing edges")
}

type Client = RunningService<RoleClient, ()>;

async fn call(c: &Client, tool: &'static str, args: &Value) -> String {
    let r = c
        .call_tool(CallToolRequestParams::new(tool).with_arguments(object(args.clone())))
        .await
        .expect("mcp bench");
    let text: String = r
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(r.is_error, Some(false), "{tool}: {text}");
    text
}

/// The proposal files in the store's `pending/`.
fn pending_files(root: &Path) -> std::collections::BTreeSet<PathBuf> {
    std::fs::read_dir(root.join(".gpp/graphex/pending"))
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let before = pending_files(&s.root);
    let (name, far) = subject(&s);
    println!("mcp {}: subject {name}, path to {far}", s.label);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("mcp bench");
    let state = tempfile::tempdir().expect("mcp bench");
    let via_session = std::env::var_os("GRAPHEX_BENCH_MCP_VIA_SESSION").is_some_and(|v| !v.is_empty());
    if via_session {
        let unlocked = graphex(&s.root)
            .args(["unlock", "--level", "agent", "--idle", "30m"])
            .env("GRAPHEX_AGENT_IDENTITY", &s.agent_id)
            .env("GRAPHEX_STATE_DIR", state.path())
            .env_remove("XDG_RUNTIME_DIR")
            .status()
            .expect("mcp bench");
        assert!(unlocked.success(), "graphex unlock --level agent failed");
    }
    let client: Client = rt.block_on(async {
        let mut cmd = tokio::process::Command::new(BIN);
        for var in [
            "GRAPHEX_STORE",
            "GRAPHEX_PASSPHRASE",
            "GRAPHEX_IDENTITY",
            "GRAPHEX_HUMAN_PASSPHRASE",
        ] {
            cmd.env_remove(var);
        }
        cmd.arg("--store")
            .arg(&s.root)
            .args(["mcp", "--agent", "bench-agent", "--trust", "94", "--session", "bench"])
            .env("GRAPHEX_STATE_DIR", state.path())
            .env_remove("XDG_RUNTIME_DIR");
        if via_session {
            cmd.env_remove("GRAPHEX_AGENT_IDENTITY");
        } else {
            cmd.env("GRAPHEX_AGENT_IDENTITY", &s.agent_id);
        }
        ().serve(TokioChildProcess::new(cmd.configure(|_| {})).expect("mcp bench"))
            .await
            .expect("mcp bench")
    });
    let two_hop = format!("{name} -> * -> * --depth 2");
    // The estimate against what the projection then uses.
    let (estimate, used) = rt.block_on(async {
        let e: Value =
            serde_json::from_str(&call(&client, "cost_estimate", &json!({"query": two_hop})).await).expect("mcp bench");
        let p: Value =
            serde_json::from_str(&call(&client, "graphex_query", &json!({"query": two_hop, "format": "json"})).await)
                .expect("mcp bench");
        (
            e["tokens"].as_u64().expect("mcp bench"),
            p["tokens"].as_u64().expect("mcp bench"),
        )
    });
    println!(
        "mcp {}: cost_estimate {estimate} tokens, the projection used {used} ({:+.2}%)",
        s.label,
        (estimate as f64 - used as f64) / used.max(1) as f64 * 100.0
    );
    let reads: Vec<(&'static str, Value)> = vec![
        ("graphex_status", json!({})),
        ("trust_status", json!({})),
        ("graphex_query", json!({"query": two_hop, "budget": 4000})),
        ("graphex_inspect", json!({"name": name})),
        ("cost_estimate", json!({"query": two_hop})),
        ("graphex_path", json!({"from": name, "to": far})),
        ("graphex_search", json!({"text": name})),
        ("timeline_status", json!({"count": 20})),
        (
            "policy_check",
            json!({"changes": [{"op": "add_edge", "from": name, "relation": "uses", "to": far}]}),
        ),
        ("review_list", json!({})),
    ];
    let through = if via_session { ", through an agent session" } else { "" };
    let mut g = c.benchmark_group(format!("mcp {}{through}", s.label));
    g.sample_size(20);
    for (tool, args) in &reads {
        // Warm once (the search index of bodies is built on first use).
        rt.block_on(call(&client, tool, args));
        g.bench_function(*tool, |b| b.iter(|| rt.block_on(call(&client, tool, args))));
    }
    let mut n = 0u64;
    g.bench_function("graphex_propose_node", |b| {
        b.iter(|| {
            n += 1;
            let args = json!({"name": format!("bench-proposal-{}-{n}", std::process::id()), "node_type": "concept",
                              "description": "a bench proposal"});
            rt.block_on(call(&client, "graphex_propose_node", &args))
        })
    });
    g.finish();
    rt.block_on(client.cancel()).expect("mcp bench");
    if via_session {
        let _ = graphex(&s.root)
            .arg("lock")
            .env("GRAPHEX_STATE_DIR", state.path())
            .status();
    }
    // The bench's proposals leave the store as they came.
    for made in pending_files(&s.root).difference(&before) {
        let _ = std::fs::remove_file(made);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
