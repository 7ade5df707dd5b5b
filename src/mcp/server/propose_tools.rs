//! The proposal tools: an agent's suggested changes, submitted for human
//! review. Nothing here applies a change.

use graphex_engine::Error;
use graphex_engine::model::NodeId;
use graphex_engine::proposal::{self, Source, Submission};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::{Value, json};

use super::args::{ProposeEdgeArgs, ProposeNodeArgs, ProposeRemoveEdgeArgs, ProposeUpdateArgs, Route};
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

    /// Submits one change as a proposal of this agent, or adds it to an
    /// open exploration.
    async fn propose(&self, change: Value, rationale: Option<String>, route: Route) -> ToolResult {
        let Some(exploration) = route.exploration else {
            return self
                .submit(vec![change], rationale.unwrap_or_default(), route.revises)
                .await;
        };
        if route.revises.is_some() {
            return Err(
                "a change added to an exploration is submitted with it: give revises to propose_changeset".into(),
            );
        }
        // Checked now, as a proposal of its own would be; stored on submit.
        let checked = change.clone();
        self.with_store(move |_, agent| {
            Submission::single(&agent.agent, agent.trust, &agent.session, "", checked).map(|_| String::new())
        })
        .await?;
        let n = self.drafts.lock().map_err(|_| poisoned())?.add(&exploration, change)?;
        Ok(format!(
            "change {n} added to exploration {exploration}; nothing is submitted until end_exploration (accept) or \
             propose_changeset"
        ))
    }

    /// Submits `changes` as one proposal of this agent (the revision of
    /// `revises`, when given) and adds it to the agent's list for
    /// `review_list`.
    pub(super) async fn submit(&self, changes: Vec<Value>, rationale: String, revises: Option<String>) -> ToolResult {
        self.with_store(move |store, agent| {
            let revises = revises.map(|r| store.resolve_proposal(&r)).transpose()?;
            let doc = json!({
                "agent": agent.agent,
                "trust": agent.trust,
                "session": agent.session,
                "rationale": rationale,
                "changes": changes,
                "revises": revises,
            });
            let sub = Submission::from_json(doc.to_string().as_bytes())?;
            let settings = store.config()?.config.projection_settings()?;
            let id = proposal::submit(store, &settings.policy, sub.clone(), Source::Mcp)?;
            let listed =
                proposal::Ledger::for_store(store.layout().root(), &agent.agent).map(|l| l.record_submitted(&id, &sub));
            let note = match listed {
                Some(Ok(())) => String::new(),
                Some(Err(e)) => format!(" (not in your review_list: {e})"),
                None => " (not in your review_list: no state directory)".to_owned(),
            };
            Ok(format!(
                "proposal {id} submitted for human review{note}; ask graphex_proposal_status with id {} or review_list \
                 for the outcome",
                id.short()
            ))
        })
        .await
    }
}

pub(super) fn poisoned() -> String {
    "the server's explorations failed earlier; restart the server".into()
}

#[tool_router(router = propose_router, vis = "pub(super)")]
impl GraphexServer {
    /// Propose adding a node (with optional edges). A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_node(&self, Parameters(a): Parameters<ProposeNodeArgs>) -> ToolResult {
        let route = a.route();
        let mut change = json!({"op": "add_node", "name": a.name, "type": a.node_type, "description": a.description});
        if let Some(t) = a.tier {
            change["tier"] = json!(t.as_str());
        }
        if let Some(p) = a.properties {
            change["properties"] = json!(p);
        }
        if let Some(e) = a.suggested_edges {
            change["suggested_edges"] = json!(e);
        }
        self.propose(change, a.rationale, route).await
    }

    /// Propose adding an edge FROM -> RELATION -> TO. A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_edge(&self, Parameters(a): Parameters<ProposeEdgeArgs>) -> ToolResult {
        let route = a.route();
        let change = json!({"op": "add_edge", "from": a.from, "relation": a.relation, "to": a.to});
        self.propose(change, a.rationale, route).await
    }

    /// Propose removing the edge FROM -> RELATION -> TO (one this agent can read). A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_remove_edge(&self, Parameters(a): Parameters<ProposeRemoveEdgeArgs>) -> ToolResult {
        let route = a.route();
        let mut change = json!({"op": "remove_edge", "from": a.from, "relation": a.relation, "to": a.to});
        if let Some(r) = a.reason {
            change["reason"] = json!(r);
        }
        self.propose(change, a.rationale, route).await
    }

    /// Propose changing fields of a node, named by `name` or `id`. A human reviews it; returns the proposal id.
    #[tool]
    async fn graphex_propose_update(&self, Parameters(a): Parameters<ProposeUpdateArgs>) -> ToolResult {
        let route = a.route();
        let name = match (a.name, a.id) {
            (Some(name), None) => name,
            (None, Some(id)) => self.name_of_id(id).await?,
            (Some(_), Some(_)) => return Err("give the node's name or its id, not both".into()),
            (None, None) => return Err("give the node's name or its id".into()),
        };
        let change = json!({"op": "update_node", "name": name, "set": a.set});
        self.propose(change, a.rationale, route).await
    }
}
