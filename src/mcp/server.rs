//! The tools. Each call runs on the blocking pool against one shared store
//! session, refreshed when another process has committed since.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use graphex_engine::audit::Kind;
use graphex_engine::hygiene::{json_safe, visible_text};
use graphex_engine::lookup;
use graphex_engine::model::{Status, Tier, Timestamp};
use graphex_engine::project::{Access, Center, Request};
use graphex_engine::proposal::{self, ProposalStatus, Source, Submission};
use graphex_engine::{Credentials, Error, Store};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AgentConfig;

/// The default and largest token budgets of `graphex_query`.
const DEFAULT_BUDGET: usize = 4000;
const MAX_BUDGET: usize = 200_000;

/// The MCP server: one store session and the agent it speaks for.
#[derive(Clone)]
pub struct GraphexServer {
    store: Arc<Mutex<Store>>,
    agent: Arc<AgentConfig>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Json,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// A Graphex query, e.g. `orders-service -> depends-on -> * --depth 2`.
    pub query: String,
    /// Token budget of the projection (default 4000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// `markdown` (default) or `json`.
    #[serde(default)]
    pub format: Option<Format>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeNodeArgs {
    /// Lowercase name: a-z, 0-9, '.', '_', '-'.
    pub name: String,
    /// Node type: service, module, concept, convention, glossary, decision, ...
    pub node_type: String,
    pub description: String,
    /// public or agent-readable (default agent-readable; never above what this agent may read).
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub properties: Option<BTreeMap<String, String>>,
    /// Edges to create with the node: [from, relation, to], one end being the new node.
    #[serde(default)]
    pub suggested_edges: Option<Vec<[String; 3]>>,
    /// Why the graph should change.
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeEdgeArgs {
    pub from: String,
    /// depends-on, communicates-with, owned-by, uses, contains, supersedes, related-to, ...
    pub relation: String,
    pub to: String,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeRemoveEdgeArgs {
    pub from: String,
    /// The relation of the edge to remove, e.g. depends-on.
    pub relation: String,
    pub to: String,
    /// Why the edge should go (shown to the reviewer).
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeUpdateArgs {
    /// The node to change.
    pub name: String,
    /// Fields to set: description, body, type, tier, properties (map; "" removes a key), confidence.
    pub set: serde_json::Map<String, Value>,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlossaryArgs {
    /// The term, or part of it.
    pub term: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConventionsArgs {
    /// A file path or module name, e.g. `src/orders/batch.rs` or `orders-service`.
    pub path: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposalStatusArgs {
    /// The id `graphex_propose_*` returned (at least 4 leading hex digits).
    pub id: String,
}

type ToolResult = Result<String, String>;

impl GraphexServer {
    pub fn new(store: Store, agent: AgentConfig) -> Self {
        Self {
            store: Arc::new(Mutex::new(store)),
            agent: Arc::new(agent),
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
                Err(Error::KeyRotated(_)) => {
                    let level = guard.level();
                    let reopened = Store::open(guard.layout().root(), &Credentials::from_env())
                        .map_err(|e| format!("reopening after a key rotation: {e}"))?;
                    if reopened.level() != level {
                        return Err(format!(
                            "after a key rotation the store opens at the {} level, not {level}; restart the server",
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
            f(&mut guard, &agent)
                .map(|text| visible_text(&text).into_owned())
                .map_err(|e| visible_text(&e.to_string()).into_owned())
        })
        .await
        .map_err(|e| format!("internal error: {e}"))?
    }

    /// The tier this agent may receive.
    fn max_tier(store: &Store, agent: &AgentConfig) -> Result<Tier, Error> {
        let settings = store.config()?.config.projection_settings()?;
        Ok(settings.policy.max_tier(access(agent)))
    }

    /// Submits one change as a proposal of this agent.
    async fn propose(&self, change: Value, rationale: Option<String>) -> ToolResult {
        self.with_store(move |store, agent| {
            let sub = Submission::single(
                &agent.agent,
                agent.trust,
                &agent.session,
                &rationale.unwrap_or_default(),
                change,
            )?;
            let settings = store.config()?.config.projection_settings()?;
            let id = proposal::submit(store, &settings.policy, sub, Source::Mcp)?;
            Ok(format!(
                "proposal {id} submitted for human review; ask graphex_proposal_status with id {} for the outcome",
                id.short()
            ))
        })
        .await
    }
}

fn access(agent: &AgentConfig) -> Access {
    Access::Trust {
        score: agent.trust,
        local: agent.local,
    }
}

#[tool_router]
impl GraphexServer {
    /// Query the knowledge graph. Returns the projection this agent's trust tier may see, cut to the token budget.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_query(&self, Parameters(args): Parameters<QueryArgs>) -> ToolResult {
        let budget = args.budget.unwrap_or(DEFAULT_BUDGET);
        if budget == 0 || budget > MAX_BUDGET {
            return Err(format!("budget must be from 1 to {MAX_BUDGET} tokens"));
        }
        self.with_store(move |store, agent| {
            let config = store.config()?.config;
            let req = Request {
                center: Center::Query(args.query),
                agent: agent.agent.clone(),
                access: access(agent),
                budget,
                at: Some(Timestamp::now()),
            };
            let p = crate::cli::projection::project_recorded(store, &config, &req, Kind::Projection).map_err(|e| {
                match e.downcast::<Error>() {
                    Ok(e) => e,
                    Err(other) => Error::Document {
                        path: "query".into(),
                        reason: other.to_string(),
                    },
                }
            })?;
            Ok(match args.format {
                Some(Format::Json) => json_safe(&serde_json::to_string_pretty(&p).unwrap_or_default()).into_owned(),
                _ => p.text,
            })
        })
        .await
    }

    /// Graph statistics visible to this agent: node and edge counts, last update, pending proposals.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_status(&self, Parameters(_): Parameters<StatusArgs>) -> ToolResult {
        self.with_store(|store, agent| {
            let tier = Self::max_tier(store, agent)?;
            let c = store.catalog();
            let nodes = c
                .nodes()
                .filter(|n| n.tier <= tier && n.status == Status::Active)
                .count();
            let edges = c
                .edges()
                .filter(|e| e.tier <= tier)
                .filter(|e| c.node(&e.from).is_some_and(|n| n.status == Status::Active))
                .filter(|e| c.node(&e.to).is_some_and(|n| n.status == Status::Active))
                .count();
            let last = c
                .nodes()
                .filter(|n| n.tier <= tier)
                .map(|n| n.updated)
                .max()
                .map(|t| t.to_rfc3339());
            let report = json!({
                "agent": agent.agent,
                "trust": agent.trust,
                "tier": tier,
                "active_nodes": nodes,
                "edges": edges,
                "last_update": last,
            });
            Ok(json_safe(&serde_json::to_string_pretty(&report).unwrap_or_default()).into_owned())
        })
        .await
    }

    /// Propose adding a node (with optional edges). A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_node(&self, Parameters(a): Parameters<ProposeNodeArgs>) -> ToolResult {
        let mut change = json!({"op": "add_node", "name": a.name, "type": a.node_type, "description": a.description});
        if let Some(t) = a.tier {
            change["tier"] = json!(t);
        }
        if let Some(p) = a.properties {
            change["properties"] = json!(p);
        }
        if let Some(e) = a.suggested_edges {
            change["suggested_edges"] = json!(e);
        }
        self.propose(change, a.rationale).await
    }

    /// Propose adding an edge FROM -> RELATION -> TO. A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_edge(&self, Parameters(a): Parameters<ProposeEdgeArgs>) -> ToolResult {
        let change = json!({"op": "add_edge", "from": a.from, "relation": a.relation, "to": a.to});
        self.propose(change, a.rationale).await
    }

    /// Propose removing the edge FROM -> RELATION -> TO (one this agent can read). A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_remove_edge(&self, Parameters(a): Parameters<ProposeRemoveEdgeArgs>) -> ToolResult {
        let mut change = json!({"op": "remove_edge", "from": a.from, "relation": a.relation, "to": a.to});
        if let Some(r) = a.reason {
            change["reason"] = json!(r);
        }
        self.propose(change, a.rationale).await
    }

    /// Propose changing fields of a node. A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_update(&self, Parameters(a): Parameters<ProposeUpdateArgs>) -> ToolResult {
        let change = json!({"op": "update_node", "name": a.name, "set": a.set});
        self.propose(change, a.rationale).await
    }

    /// Look up domain terms: glossary entries matching the term, with their definitions.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_glossary(&self, Parameters(a): Parameters<GlossaryArgs>) -> ToolResult {
        self.with_store(move |store, agent| {
            let tier = Self::max_tier(store, agent)?;
            let scrub = store.config()?.config.projection_settings()?.scrubber;
            let lines: Vec<String> = lookup::glossary(store.catalog(), &a.term)
                .into_iter()
                .filter(|n| n.tier <= tier && n.status == Status::Active)
                .map(|n| {
                    scrub
                        .scrub(&format!("- {} ({}): {}", n.name, n.node_type, n.description))
                        .0
                })
                .collect();
            Ok(if lines.is_empty() {
                format!("no glossary entry matches {:?}", a.term)
            } else {
                lines.join("\n")
            })
        })
        .await
    }

    /// Conventions that apply to a file path or module, with the node each comes through.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_conventions(&self, Parameters(a): Parameters<ConventionsArgs>) -> ToolResult {
        self.with_store(move |store, agent| {
            let tier = Self::max_tier(store, agent)?;
            let scrub = store.config()?.config.projection_settings()?.scrubber;
            let lines: Vec<String> = lookup::conventions_within(store.catalog(), &a.path, tier)
                .into_iter()
                .map(|c| {
                    let through = c
                        .through
                        .map(|t| format!(" (via {t})"))
                        .unwrap_or_else(|| " (global)".into());
                    scrub
                        .scrub(&format!(
                            "- {}{}: {}",
                            c.convention.name, through, c.convention.description
                        ))
                        .0
                })
                .collect();
            Ok(if lines.is_empty() {
                format!("no conventions apply to {:?}", a.path)
            } else {
                lines.join("\n")
            })
        })
        .await
    }

    /// Where one of this agent's proposals stands: pending, accepted, rejected (with the reviewer's reason).
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_proposal_status(&self, Parameters(a): Parameters<ProposalStatusArgs>) -> ToolResult {
        self.with_store(move |store, _| {
            let s = store.proposal_status(&a.id)?;
            Ok(match s {
                ProposalStatus::Pending { id } => format!("{} pending review", id.short()),
                ProposalStatus::Decided { id, decision } => {
                    let mut out = format!("{} {}", id.short(), decision.outcome.as_str());
                    if !decision.applied.is_empty() {
                        out.push_str(&format!(" (changes {:?})", decision.applied));
                    }
                    if let Some(r) = decision.reason {
                        out.push_str(&format!(": {r}"));
                    }
                    out
                }
                ProposalStatus::Quarantined { reason, .. } => format!("quarantined: {reason}"),
            })
        })
        .await
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
                 graphex_proposal_status.",
            )
    }
}

/// Serves until the client disconnects.
pub async fn run(store: Store, agent: AgentConfig) -> anyhow::Result<()> {
    let transport = super::transport::BoundedStdio::new(agent.max_message);
    let service = GraphexServer::new(store, agent).serve(transport).await?;
    service.waiting().await?;
    Ok(())
}
