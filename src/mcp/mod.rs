//! The MCP server: `graphex mcp` speaks the Model Context Protocol on stdio
//! so agents can query projections and submit proposals. It runs with the
//! agent identity: it can read the tiers the agent's trust allows and write
//! proposals, and nothing in it can accept one. The agent id, trust score
//! and session are fixed by the server's configuration, never by the caller.
//!
//! stdout carries only protocol messages; logs go to a file (`--log`) or
//! nowhere.

mod head_id;
pub mod hosted;
mod server;
mod transport;

use std::path::PathBuf;

use anyhow::{Result, bail};
use graphex_engine::{Credentials, Level, Store};

pub use server::GraphexServer;
pub use transport::DEFAULT_MAX_MESSAGE;

/// Who the server speaks for.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct AgentConfig {
    pub agent: String,
    pub trust: f64,
    pub session: String,
    /// A trusted local runtime: may receive agent-restricted content.
    pub local: bool,
    /// Serves public content only, knowingly (`--public-only`).
    #[serde(default)]
    pub public_only: bool,
    /// The largest incoming message, in bytes; a longer one gets an error.
    pub max_message: usize,
}

/// Opens the store for the server and serves MCP on stdio until the client
/// disconnects.
pub fn serve(root: PathBuf, agent: AgentConfig) -> Result<()> {
    let store = open_for_agents(&agent, || Store::open(&root, &Credentials::from_env()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = runtime.block_on(server::run(store, agent));
    // The reader may still wait on stdin, which cannot be cancelled.
    runtime.shutdown_background();
    served
}

/// Checks the server's configuration and opens the store it serves from
/// with `open`: never at the human level, above the agent level only for a
/// trusted local runtime, never from a graph that went back.
pub fn open_for_agents(agent: &AgentConfig, open: impl FnOnce() -> graphex_engine::Result<Store>) -> Result<Store> {
    if !(0.0..=100.0).contains(&agent.trust) {
        bail!("--trust must be from 0 to 100 (it is {})", agent.trust);
    }
    graphex_engine::proposal::Submission {
        revises: None,
        agent: agent.agent.clone(),
        trust: agent.trust,
        session: agent.session.clone(),
        rationale: String::new(),
        changes: vec![graphex_engine::proposal::Change::Archive {
            name: graphex_engine::model::Name::new("x")?,
            reason: None,
        }],
    }
    .validate()?;
    let store = open()?;
    // Agents are served nothing from a graph that went back: what they
    // receive would silently be an older policy.
    if let Some(rb) = store.rolled_back() {
        bail!(
            "not serving agents: {}",
            graphex_engine::store::rollback_text(store.layout().root(), rb)
        );
    }
    if store.level() >= Level::Human {
        bail!("the MCP server never holds the human-only key: unset GRAPHEX_HUMAN_PASSPHRASE for `graphex mcp`");
    }
    if store.level() > Level::Agent && !agent.local {
        bail!(
            "the MCP server runs with the agent identity only, but this environment unlocks the {} level; \
             unset GRAPHEX_PASSPHRASE / GRAPHEX_IDENTITY and set GRAPHEX_AGENT_IDENTITY, or pass --local for a trusted local runtime",
            store.level()
        );
    }
    // Never a server that says one tier and reads another: the tier the
    // agent's trust allows must be one its keys decrypt, or be given up.
    let allowed =
        store
            .config()?
            .config
            .projection_settings()?
            .policy
            .max_tier(graphex_engine::project::Access::Trust {
                score: agent.trust,
                local: agent.local,
            });
    let readable = store.level().max_tier();
    if allowed > readable && !agent.public_only {
        bail!(
            "agent {} with trust {} may read up to the {allowed} tier, but this server can decrypt only {readable}: \
             set GRAPHEX_AGENT_IDENTITY (`graphex keys export-agent FILE` writes it), or pass --public-only to serve \
             public content knowingly",
            agent.agent,
            agent.trust
        );
    }
    if !store.keys().proposal_recipient_authenticated() {
        // stdout is the protocol; stderr is the runtime's log.
        eprintln!(
            "graphex mcp: warning: proposals will be sealed to keys/master.pub, which cannot be authenticated \
             without GRAPHEX_AGENT_IDENTITY (its file pins the master key)"
        );
    }
    Ok(store)
}
