//! `graphex mcp` through an unlock session: a master session serves no MCP
//! server (any process of the user could ask it for one); an agent-level
//! session, holding the agent identity alone, runs an agent's server with
//! no key in its environment, answering exactly as one holding it.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::{INHERITED, Repo, state_dir};
use crate::mcp::{Client, call, runtime, text};

/// `graphex mcp` for agent `a` on `repo`, with `env` and nothing else of
/// the environment's keys.
fn server(repo: &Repo, local: bool, env: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("graphex"));
    for var in INHERITED {
        cmd.env_remove(var);
    }
    cmd.arg("--store")
        .arg(repo.root())
        .args(["mcp", "--agent", "a", "--trust", "94", "--session", "s"])
        .args(local.then_some("--local"))
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", state_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// What the server answers to a few reads.
async fn answers(cmd: tokio::process::Command) -> Vec<String> {
    let client: Client = ().serve(TokioChildProcess::new(cmd.configure(|_| {})).unwrap()).await.unwrap();
    let mut out = Vec::new();
    for (tool, args) in [
        ("graphex_query", json!({"query": "agent-readable -> *"})),
        ("graphex_inspect", json!({"name": "agent-restricted"})),
        ("graphex_search", json!({"text": "words"})),
    ] {
        out.push(text(&call(&client, tool, args).await));
    }
    client.cancel().await.unwrap();
    out
}

fn mcp_servers(repo: &Repo) -> serde_json::Value {
    let out = repo.locked().args(["--json", "session"]).output().unwrap();
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["mcp_servers"].clone()
}

#[test]
fn a_master_session_serves_no_mcp_server_local_or_not() {
    let repo = Repo::new().with_four_tiers();
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock
        .args(["unlock", "--any-terminal", "--idle", "10m"])
        .assert()
        .success();
    let runtime = runtime();
    for local in [true, false] {
        // With no key and declined by the session, the server is its own
        // and keyless: it refuses to start, as its trust needs a key...
        let out = runtime
            .block_on(async {
                server(&repo, local, &[])
                    .stdin(std::process::Stdio::null())
                    .output()
                    .await
            })
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("can decrypt only public"),
            "{out:?}"
        );
        // ...or serves public content only, when asked to.
        let mut public = server(&repo, local, &[]);
        public.arg("--public-only");
        let served = runtime.block_on(answers(public));
        assert!(!served[1].contains("agent-restricted words"), "{served:?}");
        assert!(!served[2].contains("agent-readable words"), "{served:?}");
    }
    assert_eq!(mcp_servers(&repo), 0);
    repo.locked().arg("lock").assert().success();
}

#[test]
fn an_agents_own_server_with_no_key_is_run_by_an_agent_level_session() {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&["link", "agent-readable", "uses", "agent-restricted"]);
    let identity = repo.agent_identity_once();
    let identity = identity.to_str().unwrap();
    let runtime = runtime();
    let direct = runtime.block_on(answers(server(&repo, false, &[("GRAPHEX_AGENT_IDENTITY", identity)])));
    assert!(direct[2].contains("agent-readable words"), "{direct:?}");
    // A session holding the agent identity alone (none other runs).
    repo.locked().arg("lock").assert().success();
    let refused = repo.locked().args(["unlock", "--level", "agent"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("GRAPHEX_AGENT_IDENTITY"));
    let mut unlock = repo.locked();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.env("GRAPHEX_AGENT_IDENTITY", identity);
    unlock
        .args(["unlock", "--level", "agent", "--idle", "10m"])
        .assert()
        .success();
    let info = repo.locked().args(["--json", "session"]).output().unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["level"], "agent");
    let served = runtime.block_on(answers(server(&repo, false, &[])));
    assert_eq!(direct, served);
    // The session counts the servers it runs, and stops when they close.
    runtime.block_on(async {
        let client: Client =
            ().serve(TokioChildProcess::new(server(&repo, false, &[]).configure(|_| {})).unwrap())
                .await
                .unwrap();
        assert_eq!(mcp_servers(&repo), 1);
        client.cancel().await.unwrap();
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while mcp_servers(&repo) != 0 {
        assert!(Instant::now() < deadline, "the session still counts the server");
        std::thread::yield_now();
    }
    repo.locked().arg("lock").assert().success();
}
