//! MCP load: N concurrent clients, each with its own `graphex mcp` server on
//! stdio (as agents run it), submit proposals; then every returned id must be
//! a file in `pending/`. Prints the throughput.
//!
//! usage: cargo run --release --example mcp_load -- STORE AGENT_IDENTITY [CLIENTS] [PER_CLIENT]
//! (scripts/bench.sh runs it on a fresh demo store with 4 × 250).

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use rmcp::model::{CallToolRequestParams, object};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::json;

type Client = RunningService<RoleClient, ()>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(store), Some(identity)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: mcp_load STORE AGENT_IDENTITY [CLIENTS] [PER_CLIENT]");
    };
    let clients: usize = args.get(3).map_or(Ok(4), |s| s.parse())?;
    let per_client: usize = args.get(4).map_or(Ok(250), |s| s.parse())?;
    let binary = std::env::current_exe()?
        .parent()
        .and_then(|p| p.parent())
        .map(|p| p.join("graphex"))
        .ok_or_else(|| anyhow::anyhow!("cannot find the graphex binary next to the example"))?;
    let pending = PathBuf::from(store).join(".gpp/graphex/pending");
    let before = count(&pending);

    let mut sessions: Vec<Client> = Vec::new();
    for c in 0..clients {
        let mut cmd = tokio::process::Command::new(&binary);
        cmd.args([
            "--store",
            store,
            "mcp",
            "--agent",
            &format!("load-{c}"),
            "--trust",
            "95",
        ])
        .env("GRAPHEX_AGENT_IDENTITY", identity)
        .env_remove("GRAPHEX_PASSPHRASE")
        .env_remove("GRAPHEX_IDENTITY");
        sessions.push(().serve(TokioChildProcess::new(cmd)?).await?);
    }
    let started = Instant::now();
    let work = sessions.iter().enumerate().map(|(c, client)| async move {
        let mut ids = Vec::with_capacity(per_client);
        for i in 0..per_client {
            let args = json!({"name": format!("load-{c}-{i}"), "node_type": "concept",
                              "description": "A concept proposed by the load test", "rationale": "load"});
            let r = client
                .call_tool(CallToolRequestParams::new("graphex_propose_node").with_arguments(object(args)))
                .await?;
            let text: String = r
                .content
                .iter()
                .filter_map(|c| c.as_text())
                .map(|t| t.text.clone())
                .collect();
            anyhow::ensure!(r.is_error != Some(true), "tool error: {text}");
            ids.push(text.split_whitespace().nth(1).unwrap_or_default().to_owned());
        }
        anyhow::Ok(ids)
    });
    let results = join_all(work.map(Box::pin).collect()).await;
    let elapsed = started.elapsed();
    let mut ids = HashSet::new();
    for r in results {
        ids.extend(r?);
    }
    for s in sessions {
        s.cancel().await?;
    }
    let stored = ids
        .iter()
        .filter(|id| pending.join(format!("{id}.proposal")).is_file())
        .count();
    let total = clients * per_client;
    println!(
        "{total} proposals from {clients} concurrent MCP clients in {:.2} s: {:.0} proposals/s; {} distinct ids, {stored} stored, pending/ grew by {}",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        ids.len(),
        count(&pending) - before
    );
    anyhow::ensure!(stored == total && ids.len() == total, "lost proposals");
    Ok(())
}

/// Polls every future on this task until all are done (no extra crates).
async fn join_all<F: std::future::Future + Unpin>(mut futures: Vec<F>) -> Vec<F::Output> {
    use std::pin::Pin;
    use std::task::Poll;
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(move |cx| {
        let mut done = true;
        for (i, f) in futures.iter_mut().enumerate() {
            if outputs[i].is_none() {
                match Pin::new(f).poll(cx) {
                    Poll::Ready(v) => outputs[i] = Some(v),
                    Poll::Pending => done = false,
                }
            }
        }
        if done {
            Poll::Ready(outputs.iter_mut().map(|o| o.take().expect("ready")).collect())
        } else {
            Poll::Pending
        }
    })
    .await
}

fn count(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".proposal"))
                .count()
        })
        .unwrap_or(0)
}
