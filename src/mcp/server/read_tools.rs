//! The read tools: projections, statistics, glossary and conventions, and
//! the agent's own proposals' outcomes.

use std::sync::Arc;

use graphex_engine::audit::Kind;
use graphex_engine::hygiene::json_safe;
use graphex_engine::lookup;
use graphex_engine::model::{Status, Tier, Timestamp};
use graphex_engine::project::{Center, Projection, Request};
use graphex_engine::proposal::ProposalStatus;
use graphex_engine::{Error, Store};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::args::{ConventionsArgs, Format, GlossaryArgs, ProposalStatusArgs, QueryArgs, StatusArgs};
use super::{AgentConfig, GraphexServer, ToolResult, access};

/// The default and largest token budgets of a projection.
const DEFAULT_BUDGET: usize = 4000;
const MAX_BUDGET: usize = 200_000;

/// The budget asked for, or the default; out of range is an error.
pub(super) fn budget_of(asked: Option<usize>) -> Result<usize, String> {
    let budget = asked.unwrap_or(DEFAULT_BUDGET);
    if budget == 0 || budget > MAX_BUDGET {
        return Err(format!("budget must be from 1 to {MAX_BUDGET} tokens"));
    }
    Ok(budget)
}

/// Projects around `center` for this agent and records it in the audit log.
pub(super) fn project_for(
    store: &mut Store,
    agent: &AgentConfig,
    center: Center,
    budget: usize,
) -> Result<Projection, Error> {
    let config = store.config()?.config;
    let req = Request {
        center,
        agent: agent.agent.clone(),
        access: access(agent),
        budget,
        at: Some(Timestamp::now()),
    };
    crate::shared::audit_log::project_recorded(store, &config, &req, Kind::Projection).map_err(|e| {
        match e.downcast::<Error>() {
            Ok(e) => e,
            Err(other) => Error::Document {
                path: "query".into(),
                reason: other.to_string(),
            },
        }
    })
}

/// A projection as the agent asked for it: its text, or all of it as JSON.
pub(super) fn render(p: &Projection, format: Option<Format>) -> String {
    match format {
        Some(Format::Json) => json_safe(&serde_json::to_string_pretty(p).unwrap_or_default()).into_owned(),
        _ => p.text.clone(),
    }
}

#[tool_router(router = read_router, vis = "pub(super)")]
impl GraphexServer {
    /// Query the knowledge graph. Returns the projection this agent's trust tier may see, cut to the token budget.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_query(&self, Parameters(args): Parameters<QueryArgs>) -> ToolResult {
        let budget = budget_of(args.budget)?;
        let query = args.filters().apply(&args.query)?;
        self.with_store(move |store, agent| {
            let p = project_for(store, agent, Center::Query(query), budget)?;
            Ok(render(&p, args.format))
        })
        .await
    }

    /// Graph statistics visible to this agent: node and edge counts, last update, pending proposals.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_status(&self, Parameters(_): Parameters<StatusArgs>) -> ToolResult {
        let cache = Arc::clone(&self.status_counts);
        self.with_store(move |store, agent| {
            let tier = Self::max_tier(store, agent)?;
            let mut cached = cache
                .lock()
                .map_err(|_| graphex_engine::Error::integrity("status", "the counts failed earlier"))?;
            // Counted once per commit: a large graph takes tens of ms.
            let (nodes, edges, last) = match &*cached {
                Some((seq, t, counts)) if *seq == store.seen_seq() && *t == tier => counts.clone(),
                _ => {
                    let counts = status_counts(store.catalog(), tier);
                    *cached = Some((store.seen_seq(), tier, counts.clone()));
                    counts
                }
            };
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

/// Active nodes and the edges between them at or below `tier`, and the
/// last update there.
pub(super) fn status_counts(c: &graphex_engine::store::Catalog, tier: Tier) -> StatusCounts {
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
    (nodes, edges, last)
}

/// (active nodes, edges, last update).
pub(super) type StatusCounts = (usize, usize, Option<String>);
