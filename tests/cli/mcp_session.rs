//! `graphex mcp --local` through an unlock session: with no key in its
//! environment the server is run by the session on its keys and answers
//! exactly as a server holding the master key; an agent's own server
//! (without --local) is never served by a session.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::{INHERITED, PASS, Repo, state_dir};
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
fn a_local_server_with_no_key_is_run_by_the_session_and_answers_as_one_holding_it() {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&["link", "agent-readable", "uses", "agent-restricted"]);
    let runtime = runtime();
    let direct = runtime.block_on(answers(server(&repo, true, &[("GRAPHEX_PASSPHRASE", PASS)])));
    assert!(direct[1].contains("agent-restricted words"), "{direct:?}");
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.args(["unlock", "--idle", "10m"]).assert().success();
    let served = runtime.block_on(answers(server(&repo, true, &[])));
    let locked = repo.locked().arg("lock").output().unwrap();
    assert_eq!(direct, served);
    assert!(locked.status.success());
}

#[test]
fn the_session_counts_its_servers_and_never_serves_one_without_local() {
    let repo = Repo::new().with_four_tiers();
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.args(["unlock", "--idle", "10m"]).assert().success();
    let runtime = runtime();
    let agents_own = runtime.block_on(answers(server(&repo, false, &[])));
    // Without --local and with no key, the server is its own and keyless:
    // public content only.
    assert!(!agents_own[1].contains("agent-restricted words"), "{agents_own:?}");
    runtime.block_on(async {
        let client: Client =
            ().serve(TokioChildProcess::new(server(&repo, true, &[]).configure(|_| {})).unwrap())
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
    repo.locked().arg("lock").assert().success();
    assert_eq!(direct, served);
}
