//! Node text is data: terminal escapes, C1 controls, bidirectional and
//! zero-width characters written into a node never reach a screen raw, in
//! any human-facing output of the CLI or the MCP server.

use rmcp::model::{CallToolRequestParams, object};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::json;

use crate::harness::Repo;

/// A title change (OSC), a screen clear (CSI, and its one-byte C1 form), a
/// carriage return that would overwrite the line, a right-to-left override,
/// and zero-width characters.
const HOSTILE: &str = "pay \u{1b}]0;owned\u{7} \u{1b}[2J\u{9b}2J\rfake\u{202e}txt\u{2066}\u{200b}\u{feff} end";

/// What no output may hold raw.
fn raw(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    })
}

fn hostile_repo() -> Repo {
    let repo = Repo::new();
    for (name, kind) in [("payments", "service"), ("ledger", "glossary")] {
        repo.ok(&[
            "add",
            "--type",
            kind,
            "--name",
            name,
            "-d",
            HOSTILE,
            "--tier",
            "agent-readable",
        ]);
    }
    repo.ok(&["link", "payments", "uses", "ledger"]);
    repo.ok(&["update", "payments", "-d", &format!("{HOSTILE} v2")]);
    repo
}

#[test]
fn cli_text_output_shows_hostile_node_text_escaped() {
    let repo = hostile_repo();
    let reads: &[&[&str]] = &[
        &["list"],
        &["show", "payments"],
        &["search", "pay"],
        &["project", "--tier", "agent-readable", "--node", "payments"],
        &["query", "payments -> * -> *"],
        &["neighbors", "payments"],
        &["history", "payments"],
        &["glossary", "ledger"],
    ];
    for args in reads {
        let out = repo.master().args(*args).assert().success();
        let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(raw(&out), None, "{args:?} printed a raw character:\n{out:?}");
        assert!(
            out.contains("payments") || out.contains("ledger") || out.contains("v2"),
            "{args:?} shows the node:\n{out}"
        );
        if args[0] == "show" {
            assert!(out.contains(r"\x1b[2J\x9b2J\rfake\u{202e}txt"), "{out}");
        }
        // JSON keeps the data exactly (escaped the JSON way).
        let out = repo.master().arg("--json").args(*args).assert().success();
        let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(raw(&out), None, "{args:?} --json printed a raw character:\n{out:?}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        if args[0] == "show" {
            assert!(v.to_string().contains('\u{202e}'), "the data survives: {v}");
        }
    }
}

#[test]
fn mcp_tool_results_show_hostile_node_text_escaped() {
    let repo = hostile_repo();
    let identity = repo.agent_identity_once();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
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
            .arg(repo.root())
            .args(["mcp", "--agent", "claude-code", "--trust", "94", "--session", "s1"])
            .env("GRAPHEX_AGENT_IDENTITY", identity);
        let client: RunningService<RoleClient, ()> =
            ().serve(TokioChildProcess::new(cmd.configure(|_| {})).unwrap())
                .await
                .unwrap();
        for (tool, args) in [
            ("graphex_query", json!({"query": "payments -> * -> *"})),
            (
                "graphex_query",
                json!({"query": "payments -> * -> *", "format": "json"}),
            ),
            ("graphex_glossary", json!({"term": "ledger"})),
        ] {
            let r = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(object(args.clone())))
                .await
                .unwrap();
            let t: String = r
                .content
                .iter()
                .filter_map(|c| c.as_text())
                .map(|t| t.text.as_str())
                .collect();
            assert_eq!(r.is_error, Some(false), "{t}");
            assert!(t.contains("payments") || t.contains("ledger"), "{t}");
            assert_eq!(raw(&t), None, "{tool} {args} returned a raw character:\n{t:?}");
        }
        client.cancel().await.unwrap();
    });
}
