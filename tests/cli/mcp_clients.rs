//! Every MCP client set-up snippet in docs/agents-and-mcp.md, run: its
//! command line (Claude Code's `claude mcp add … -- COMMAND`, Codex's
//! `[mcp_servers]`, Cursor's and VS Code's `mcp.json`, the generic
//! `mcpServers`) is taken from the guide, pointed at a real store and
//! identity, started, and must answer `initialize` with the agent the
//! snippet names.

use std::process::Command;

use serde_json::{Value, json};

use crate::harness::Repo;
use crate::mcp_limits::Server;

/// The guide's fenced blocks, with their language.
fn blocks() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/agents-and-mcp.md")).unwrap();
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.trim_start().strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_owned(), String::new())),
            (Some(_), Some("")) => out.push(open.take().unwrap()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// A server entry: program, arguments, environment.
type Entry = (String, Vec<String>, Vec<(String, String)>);

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

fn env_of(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, x)| (k.clone(), x.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// Every server entry the guide's snippets give, with the client's name.
fn entries() -> Vec<(&'static str, Entry)> {
    let mut out = Vec::new();
    for (lang, body) in blocks() {
        match lang.as_str() {
            "json" if body.contains("\"mcpServers\"") || body.contains("\"servers\"") => {
                let v: Value = serde_json::from_str(&body).unwrap();
                let (client, servers) = if v.get("servers").is_some() {
                    ("vs code", &v["servers"])
                } else {
                    ("mcpServers", &v["mcpServers"])
                };
                let g = &servers["graphex"];
                out.push((
                    client,
                    (
                        g["command"].as_str().unwrap().to_owned(),
                        strings(&g["args"]),
                        env_of(&g["env"]),
                    ),
                ));
            }
            "toml" if body.contains("[mcp_servers.graphex]") => {
                let v: toml::Table = body.parse().unwrap();
                let g = v["mcp_servers"]["graphex"].clone();
                let json: Value = serde_json::to_value(g).unwrap();
                out.push((
                    "codex",
                    (
                        json["command"].as_str().unwrap().to_owned(),
                        strings(&json["args"]),
                        env_of(&json["env"]),
                    ),
                ));
            }
            "sh" if body.starts_with("claude mcp add") => {
                let line = body.trim();
                let (head, command) = line.split_once(" -- ").unwrap();
                let env: Vec<(String, String)> = head
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .windows(2)
                    .filter(|w| w[0] == "--env")
                    .filter_map(|w| w[1].split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
                    .collect();
                let mut words = command.split_whitespace().map(str::to_owned);
                let program = words.next().unwrap();
                out.push(("claude code", (program, words.collect(), env)));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_documented_client_entry_starts_a_server_that_answers() {
    let found = entries();
    let clients: Vec<&str> = found.iter().map(|(c, _)| *c).collect();
    for want in ["claude code", "codex", "vs code", "mcpServers"] {
        assert!(clients.contains(&want), "no {want} snippet in the guide: {clients:?}");
    }
    let repo = Repo::new();
    let identity = repo.agent_identity_once();
    // An entry that names no key is served by an agent-level unlock session,
    // as the guide sets one up.
    let mut unlock = repo.locked();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.env("GRAPHEX_AGENT_IDENTITY", &identity);
    unlock
        .args(["unlock", "--level", "agent", "--idle", "10m"])
        .assert()
        .success();
    for (client, (program, args, env)) in found {
        assert_eq!(program, "graphex", "{client}: the entry runs graphex from PATH");
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("graphex"));
        for a in &args {
            c.arg(if a == "/path/to/repo" {
                repo.root().to_str().unwrap()
            } else {
                a
            });
        }
        for var in crate::harness::INHERITED {
            c.env_remove(var);
        }
        c.env("GRAPHEX_STATE_DIR", crate::harness::state_dir());
        for (k, v) in &env {
            let v = if v.ends_with("agent.id") {
                identity.to_str().unwrap()
            } else {
                v
            };
            c.env(k, v);
        }
        let mut s = Server::run(c);
        s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":client,"version":"1"}}}));
        let hello = s.next();
        assert_eq!(hello["id"], 1, "{client}: {hello}");
        assert!(hello["result"]["serverInfo"].is_object(), "{client}: {hello}");
        let agent = args.iter().skip_while(|a| *a != "--agent").nth(1).unwrap();
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trust_status","arguments":{}}}));
        let status = s.next().to_string();
        assert!(
            status.contains(agent.as_str()),
            "{client}: the agent the snippet names: {status}"
        );
    }
    repo.locked().arg("lock").assert().success();
}
