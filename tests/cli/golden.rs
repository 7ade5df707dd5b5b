//! Golden outputs on the demo store: what `demo --no-console`, the read
//! commands and every MCP tool print, byte for byte but for what changes
//! from run to run (paths, ids, times, hashes), which is masked. A change
//! to any of them shows as a snapshot diff: restructuring must not move them.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::bare;
use crate::mcp::{Client, call, text};

/// Masks what differs between runs: the store's directory, uuids, dates and
/// times, hex hashes and ids, relative ages.
fn masked(text: &str, dir: &Path) -> String {
    let text = text.replace(&dir.display().to_string(), "[DIR]");
    let rules = [
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[UUID]",
        ),
        (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[TIME]"),
        (r"\b[0-9a-f]{12,64}\b", "[HEX]"),
        (r"batch [0-9a-f]{8}\b", "batch [HEX]"),
        (r"\b\d+(\.\d+)?(ms|s|m|h|d) ago\b", "[AGO]"),
    ];
    rules.iter().fold(text, |t, (re, with)| {
        regex::Regex::new(re).unwrap().replace_all(&t, *with).into_owned()
    })
}

fn demo() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let out = bare(dir.path())
        .args(["demo", root.to_str().unwrap(), "--no-console"])
        .assert()
        .success();
    let said = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    (dir, root, said)
}

fn run(root: &Path, args: &[&str]) -> String {
    let out = bare(root)
        .args(["--store", root.to_str().unwrap()])
        .env("GRAPHEX_PASSPHRASE", graphex::shared::demo::DEMO_PASSPHRASE)
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn the_cli_on_the_demo_store() {
    let (_dir, root, said) = demo();
    let parent = root.parent().unwrap();
    let mut all = format!("$ graphex demo DIR --no-console\n{}", masked(&said, &root));
    let commands: [&[&str]; 15] = [
        &["status"],
        &["show", "orders-service"],
        &["list"],
        &["list", "--type", "convention", "--json"],
        &["query", "orders-service -> depends-on -> * --depth 2"],
        &["query", "orders-service -> * -> *", "--format", "mermaid"],
        &["path", "retry-queue", "orders-team", "--undirected"],
        &["neighbors", "orders-service"],
        &["search", "batch"],
        &["glossary", "order-batch"],
        &["conventions", "orders-service"],
        &["history", "orders-service"],
        &["exposure"],
        &["pending"],
        &[
            "project",
            "--node",
            "orders-service",
            "--trust",
            "94.2",
            "--agent",
            "claude-code",
            "--budget",
            "600",
        ],
    ];
    for args in commands {
        all.push_str(&format!("\n$ graphex {}\n", args.join(" ")));
        all.push_str(&masked(&run(&root, args), parent));
    }
    insta::assert_snapshot!("cli_on_the_demo_store", masked(&all, &root));
}

#[test]
fn every_mcp_tool_on_the_demo_store() {
    let (_dir, root, _) = demo();
    let identity = root.join("agent.id");
    run(&root, &["keys", "export-agent", identity.to_str().unwrap()]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let all = runtime.block_on(async {
        let cmd = crate::mcp::server_on(&root, &identity, "golden");
        let client: Client = ().serve(TokioChildProcess::new(cmd.configure(|_| {})).unwrap()).await.unwrap();
        let calls = [
            ("graphex_status", json!({})),
            (
                "graphex_query",
                json!({"query": "orders-service -> depends-on -> * --depth 2"}),
            ),
            (
                "graphex_query",
                json!({"query": "orders-service -> * -> *", "budget": 300}),
            ),
            (
                "graphex_query",
                json!({"query": "orders-service -> * -> *", "format": "json"}),
            ),
            ("graphex_query", json!({"query": "orders-service -> -> x"})),
            ("graphex_glossary", json!({"term": "order-batch"})),
            ("graphex_conventions", json!({"path": "services/orders/src/main.rs"})),
            (
                "graphex_propose_node",
                json!({"name": "golden-node", "type": "convention", "description": "a golden one"}),
            ),
            (
                "graphex_propose_edge",
                json!({"from": "orders-service", "relation": "uses", "to": "redis"}),
            ),
            (
                "graphex_propose_update",
                json!({"name": "redis", "set": {"description": "cache and locks"}}),
            ),
            (
                "graphex_propose_remove_edge",
                json!({"from": "api-gateway", "relation": "depends-on", "to": "redis"}),
            ),
            ("graphex_proposal_status", json!({"id": "nope"})),
        ];
        let mut all = String::new();
        for (tool, args) in calls {
            let r = call(&client, tool, args.clone()).await;
            all.push_str(&format!("\n$ {tool} {args}\nerror: {:?}\n{}\n", r.is_error, text(&r)));
        }
        client.cancel().await.unwrap();
        all
    });
    insta::assert_snapshot!("mcp_on_the_demo_store", masked(&all, &root));
}
