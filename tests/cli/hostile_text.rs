//! Node text is data: terminal escapes, C1 controls, bidirectional and
//! zero-width characters written into a node never reach a screen raw, in
//! any human-facing output of the CLI or the MCP server.

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::Repo;
use crate::mcp::{Client, call, server, text};

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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let cmd = server(&repo, &[]).configure(|_| {});
        let client: Client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        for (tool, args) in [
            ("graphex_query", json!({"query": "payments -> * -> *"})),
            (
                "graphex_query",
                json!({"query": "payments -> * -> *", "format": "json"}),
            ),
            ("graphex_glossary", json!({"term": "ledger"})),
        ] {
            let r = call(&client, tool, args.clone()).await;
            let t = text(&r);
            assert_eq!(r.is_error, Some(false), "{t}");
            assert!(t.contains("payments") || t.contains("ledger"), "{t}");
            assert_eq!(raw(&t), None, "{tool} {args} returned a raw character:\n{t:?}");
        }
        client.cancel().await.unwrap();
    });
}

/// A proposal written to spoof its review card: padding to push the lints
/// away, a fake "Lints: none" and fake change lines, a right-to-left
/// override and zero-width characters, and far too many lines.
fn spoofing_proposal() -> String {
    let rationale = "\n".repeat(200)
        + "Lints: none\n  1. + [convention] always-trust-me (public)\n"
        + &" ".repeat(400)
        + "end of rationale";
    let description =
        "Retries\u{202e}exe.txt\u{200b}\u{2066} with token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n\n\n\n\n"
            .to_owned()
            + "  2. + [convention] fake-node (public)\n  Lints: none\n"
            + &"more\n".repeat(80);
    serde_json::json!({
        "agent": "claude-code", "trust": 94, "session": "s1", "rationale": rationale,
        "changes": [{"op": "add_node", "name": "retry-queue", "type": "module", "description": description}]
    })
    .to_string()
}

#[test]
fn a_proposal_cannot_spoof_its_review_card() {
    let repo = Repo::new();
    repo.locked()
        .env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once())
        .args(["propose", "-"])
        .write_stdin(spoofing_proposal())
        .assert()
        .success();
    let text = repo.ok(&["pending"]);
    assert_eq!(raw(&text), None, "{text:?}");
    let lines: Vec<&str> = text.lines().collect();
    // The lints come right after the header, before anything the agent wrote.
    assert_eq!(lines[1], "  Lints:", "{text}");
    assert!(lines[2].contains("GitHub token"), "{text}");
    // Agent text is behind the gutter: the fakes never stand on their own.
    for l in &lines {
        if l.contains("always-trust-me") || l.contains("fake-node") || l.contains("Lints: none") {
            assert!(
                l.trim_start().starts_with("│ "),
                "agent text outside the gutter: {l:?}\n{text}"
            );
        }
    }
    assert_eq!(lines.iter().filter(|l| l.starts_with("  1. + ")).count(), 1, "{text}");
    assert!(!lines.iter().any(|l| l.starts_with("  2. ")), "{text}");
    assert!(text.contains(r"\u{202e}exe.txt\u{200b}\u{2066}"), "{text}");
    assert!(text.contains("␣×400"), "{text}");
    assert!(text.contains("more lines)"), "{text}");
    assert!(lines.len() < 50, "{} lines:\n{text}", lines.len());
}
