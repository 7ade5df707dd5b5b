//! The proposal tools: an agent's suggested changes, submitted for human
//! review. Nothing here applies a change.

use graphex_engine::Error;
use graphex_engine::model::NodeId;
use graphex_engine::proposal::{self, Source, Submission};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::{Value, json};

use super::args::{ProposeEdgeArgs, ProposeNodeArgs, ProposeRemoveEdgeArgs, ProposeUpdateArgs};
use super::{GraphexServer, ToolResult};

impl GraphexServer {
    /// The name of node `id`, when this agent may read it; an id above its
    /// tier is refused as an absent one.
    async fn name_of_id(&self, id: String) -> ToolResult {
        self.with_store(move |store, agent| {
            let tier = Self::max_tier(store, agent)?;
            let absent = || Error::NotFound(format!("node with id {id}"));
            let parsed: NodeId = id.trim().parse().map_err(|_| absent())?;
            store
                .catalog()
                .node(&parsed)
                .filter(|n| n.tier <= tier)
                .map(|n| n.name.to_string())
                .ok_or_else(absent)
        })
        .await
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

#[tool_router(router = propose_router, vis = "pub(super)")]
impl GraphexServer {
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

    /// Propose changing fields of a node, named by `name` or `id`. A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_update(&self, Parameters(a): Parameters<ProposeUpdateArgs>) -> ToolResult {
        let name = match (a.name, a.id) {
            (Some(name), None) => name,
            (None, Some(id)) => self.name_of_id(id).await?,
            (Some(_), Some(_)) => return Err("give the node's name or its id, not both".into()),
            (None, None) => return Err("give the node's name or its id".into()),
        };
        let change = json!({"op": "update_node", "name": name, "set": a.set});
        self.propose(change, a.rationale).await
    }
}
