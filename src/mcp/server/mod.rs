//! The MCP server: one store session shared by the tools, each running on
//! the blocking pool against it, refreshed when another process has
//! committed since. The tools live in modules by what they do; their
//! routers are joined in [`GraphexServer::tool_router`].

mod args;
mod drafts;
mod explore_tools;
mod governance_tools;
mod propose_tools;
mod read_tools;
mod review_tools;

use std::sync::{Arc, Mutex};

use graphex_engine::hygiene::visible_text;
use graphex_engine::lookup::Bodies;
use graphex_engine::model::Tier;
use graphex_engine::project::Access;
use graphex_engine::{Credentials, Error, Store};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};

use super::AgentConfig;

/// The MCP server: one store session and the agent it speaks for.
#[derive(Clone)]
pub struct GraphexServer {
    store: Arc<Mutex<Store>>,
    agent: Arc<AgentConfig>,
    /// The search index (names, descriptions, bodies) of the last commit, for `graphex_search`.
    bodies: Arc<Mutex<Bodies>>,
    /// The agent's open explorations.
    drafts: Arc<Mutex<drafts::Drafts>>,
    /// The name index policy_check lints with, for the commit it was built at.
    mentions: PerCommit<Arc<graphex_engine::proposal::Mentions>>,
    /// `graphex_status`'s counts, for the commit and tier they were made at.
    status_counts: Arc<Mutex<Option<(u64, Tier, read_tools::StatusCounts)>>>,
}

pub(crate) type ToolResult = Result<String, String>;

/// Something worked out for one commit (the store's `seen_seq`), kept
/// until the next.
type PerCommit<T> = Arc<Mutex<Option<(u64, T)>>>;

impl GraphexServer {
    pub fn new(store: Store, agent: AgentConfig) -> Self {
        Self {
            store: Arc::new(Mutex::new(store)),
            agent: Arc::new(agent),
            bodies: Arc::new(Mutex::new(Bodies::new())),
            drafts: Arc::new(Mutex::new(drafts::Drafts::default())),
            status_counts: Arc::new(Mutex::new(None)),
            mentions: Arc::new(Mutex::new(None)),
        }
    }

    /// Runs `f` on the blocking pool with a fresh view of the store; engine
    /// errors become tool errors with their message.
    async fn with_store<F>(&self, f: F) -> ToolResult
    where
        F: FnOnce(&mut Store, &AgentConfig) -> Result<String, Error> + Send + 'static,
    {
        let store = Arc::clone(&self.store);
        let agent = Arc::clone(&self.agent);
        tokio::task::spawn_blocking(move || {
            let mut guard = store
                .lock()
                .map_err(|_| "the store session failed earlier; restart the server".to_owned())?;
            match guard.refresh() {
                // A reviewer rotated a key this session holds: unlock again
                // with the same credentials (the agent identity still opens
                // the new agent-readable key file).
                Err(Error::KeyRotated(_) | Error::IndexReplaced) => {
                    let level = guard.level();
                    let reopened = Store::open(guard.layout().root(), &Credentials::from_env())
                        .map_err(|e| format!("opening the store again: {e}"))?;
                    if reopened.level() != level {
                        return Err(format!(
                            "opened again, the store opens at the {} level, not {level}; restart the server",
                            reopened.level()
                        ));
                    }
                    *guard = reopened;
                }
                other => {
                    other.map_err(|e| e.to_string())?;
                }
            }
            // Node text may hold terminal escapes; results are shown to people
            // by MCP clients, so they leave with every such character visible.
            let outcome = f(&mut guard, &agent);
            if let Err(e) = &outcome
                && let Some(name) = e.missing_node()
            {
                record_failed_read(&mut guard, &agent, name);
            }
            let result = outcome
                .map(|text| visible_text(&text).into_owned())
                .map_err(|e| visible_text(&e.to_string()).into_owned());
            // What the call wrote (its audit record) goes into graph.db and
            // the log is emptied, as when a process closes the store: git
            // reads the file, and a checkout that replaces it finds no frames
            // of the old one.
            guard.empty_the_log();
            result
        })
        .await
        .map_err(|e| format!("internal error: {e}"))?
    }

    /// The projection settings in force (read once per call: each read
    /// checks the master's seal on them).
    fn settings(store: &Store) -> Result<graphex_engine::project::Settings, Error> {
        store.config()?.config.projection_settings()
    }

    /// The tier this agent may receive.
    fn max_tier(store: &Store, agent: &AgentConfig) -> Result<Tier, Error> {
        Ok(Self::settings(store)?.policy.max_tier(access(agent)))
    }
}

/// Records that this agent asked for `name` and found no node it may
/// read (best effort: the answer the agent gets is the same either way).
fn record_failed_read(store: &mut Store, agent: &AgentConfig, name: &str) {
    let Ok(settings) = GraphexServer::settings(store) else {
        return;
    };
    let reader = explore_tools::reader(agent, &settings);
    let _ = crate::shared::audit_log::record_failed_read(store, &reader, &agent.session, "mcp", name);
}

/// What this agent may receive: its trust's tier, or public only for a
/// server started with `--public-only`.
fn access(agent: &AgentConfig) -> Access {
    if agent.public_only {
        return Access::Tier(Tier::Public);
    }
    Access::Trust {
        score: agent.trust,
        local: agent.local,
    }
}

impl GraphexServer {
    /// Every tool: the routers of the tool modules joined.
    pub fn tool_router() -> ToolRouter<Self> {
        Self::read_router()
            + Self::explore_router()
            + Self::propose_router()
            + Self::governance_router()
            + Self::review_router()
    }
}

#[tool_handler]
impl ServerHandler for GraphexServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("graphex", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Graphex is this project's knowledge graph. Use graphex_query for context (a projection cut to your \
                 trust tier and a token budget), graphex_glossary and graphex_conventions for terms and rules. You \
                 cannot change the graph: graphex_propose_* submit proposals for human review; follow them with \
                 graphex_proposal_status. graphex_search, graphex_path and graphex_inspect explore; timeline_status \
                 lists recent changes. trust_status says what you may do; cost_estimate prices a projection before you \
                 ask for it, cost_report records what one cost you; policy_check lints a draft change before you propose it. \
                 begin_exploration gathers several proposed changes (pass its id as `exploration`) into one proposal, \
                 submitted by end_exploration or propose_changeset. review_list shows your proposals' states and a \
                 reviewer's requests for changes; answer with review_comment and propose again with `revises`.",
            )
    }
}

/// Serves on stdio until the client disconnects.
pub async fn run(store: Store, agent: AgentConfig) -> anyhow::Result<()> {
    let transport = super::transport::BoundedStdio::new(agent.max_message);
    run_on(store, agent, transport).await
}

/// Serves on `transport` until the client disconnects.
pub async fn run_on(store: Store, agent: AgentConfig, transport: super::transport::BoundedStdio) -> anyhow::Result<()> {
    let service = GraphexServer::new(store, agent).serve(transport).await?;
    service.waiting().await?;
    Ok(())
}
