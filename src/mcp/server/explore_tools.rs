//! The exploring tools an agent needs besides projections: a shortest
//! path, a search, one node alone, and the recent timeline. Each is cut to
//! the agent's tier (names above it never appear, and a name above it is
//! refused exactly as an absent one) and recorded in the audit log.

use std::sync::Arc;

use graphex_engine::audit::TOOL_READ;
use graphex_engine::hygiene::json_safe;
use graphex_engine::model::{NodeSummary, Timestamp};
use graphex_engine::project::{Center, Settings};
use graphex_engine::traverse::{self, PathStep};
use graphex_engine::{Error, Store};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::args::{InspectArgs, PathArgs, SearchArgs, TimelineArgs};
use super::read_tools::{budget_of, project_for, render};
use super::{AgentConfig, GraphexServer, ToolResult, access};
use crate::shared::audit_log::Reader;

/// The default and largest numbers of search results and timeline entries.
const DEFAULT_RESULTS: usize = 20;
const MAX_RESULTS: usize = 200;
const MAX_ENTRIES: usize = 500;

/// The reader of this agent's reads under `settings` (the tier it may
/// receive, how its text is counted).
pub(super) fn reader<'a>(agent: &'a AgentConfig, settings: &Settings) -> Reader<'a> {
    Reader {
        access: access(agent),
        agent: &agent.agent,
        tier: settings.policy.max_tier(access(agent)),
        counter: settings.counter,
    }
}

/// Records a tool's read (not a projection) like one; see
/// [`crate::shared::audit_log::record_read`].
fn recorded(
    store: &mut Store,
    reader: &Reader,
    center: String,
    text: &str,
    nodes: &[NodeSummary],
) -> Result<(), Error> {
    crate::shared::audit_log::record_read(store, reader, center, text, nodes).map_err(|e| match e.downcast::<Error>() {
        Ok(e) => e,
        Err(other) => Error::integrity("audit log", other.to_string()),
    })
}

/// The count asked for, or the default; out of range is an error.
fn count_of(what: &str, asked: Option<usize>, max: usize) -> Result<usize, String> {
    match asked.unwrap_or(DEFAULT_RESULTS) {
        n if n == 0 || n > max => Err(format!("{what} must be from 1 to {max}")),
        n => Ok(n),
    }
}

#[tool_router(router = explore_router, vis = "pub(super)")]
impl GraphexServer {
    /// Shortest path between two nodes (Active, at or below this agent's tier), with the relation of each hop.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_path(&self, Parameters(a): Parameters<PathArgs>) -> ToolResult {
        self.with_store(move |store, agent| {
            let settings = Self::settings(store)?;
            let who = reader(agent, &settings);
            let tier = who.tier;
            let found = traverse::shortest_path_within(store.catalog(), &a.from, &a.to, a.undirected, tier)?;
            let steps = found.unwrap_or_default();
            let mut text = String::new();
            for PathStep { node, via } in &steps {
                match via {
                    None => text.push_str(node.name.as_str()),
                    Some(e) if e.to == node.id => text.push_str(&format!(" -[{}]-> {}", e.relation, node.name)),
                    Some(e) => text.push_str(&format!(" <-[{}]- {}", e.relation, node.name)),
                }
            }
            let text = if steps.is_empty() {
                format!("no path from {} to {}", a.from, a.to)
            } else {
                format!("{text}\n{} hop(s)", steps.len() - 1)
            };
            let nodes: Vec<NodeSummary> = steps.into_iter().map(|s| s.node).collect();
            let center = format!(
                "{TOOL_READ}graphex_path {} {}{}",
                a.from,
                a.to,
                if a.undirected { " undirected" } else { "" }
            );
            recorded(store, &who, center, &text, &nodes)?;
            Ok(text)
        })
        .await
    }

    /// Fuzzy search over node names, descriptions and bodies this agent may read, best first.
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_search(&self, Parameters(a): Parameters<SearchArgs>) -> ToolResult {
        let limit = count_of("limit", a.limit, MAX_RESULTS)?;
        let bodies = Arc::clone(&self.bodies);
        self.with_store(move |store, agent| {
            let settings = Self::settings(store)?;
            let who = reader(agent, &settings);
            let mut bodies = bodies
                .lock()
                .map_err(|_| Error::integrity("search", "the body index failed earlier"))?;
            bodies.refresh(store, who.tier);
            let hits = bodies.search(&a.text, limit);
            let scrub = &settings.scrubber;
            let text = if hits.is_empty() {
                format!("nothing matches {:?}", a.text)
            } else {
                hits.iter()
                    .map(|h| {
                        let body = if h.in_body && !h.in_name { " [in body]" } else { "" };
                        scrub
                            .scrub(&format!(
                                "- {} ({}): {}{body}",
                                h.node.name, h.node.node_type, h.node.description
                            ))
                            .0
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let nodes: Vec<NodeSummary> = hits.into_iter().map(|h| h.node).collect();
            recorded(
                store,
                &who,
                format!("{TOOL_READ}graphex_search {}", a.text),
                &text,
                &nodes,
            )?;
            Ok(text)
        })
        .await
    }

    /// One node alone, as a projection of that node (its description, body, properties and relations within this agent's tier).
    #[tool(annotations(read_only_hint = true))]
    async fn graphex_inspect(&self, Parameters(a): Parameters<InspectArgs>) -> ToolResult {
        let budget = budget_of(a.budget)?;
        self.with_store(move |store, agent| {
            let p = project_for(store, agent, Center::Node { name: a.name, depth: 0 }, budget)?;
            Ok(render(&p, a.format))
        })
        .await
    }

    /// Recent timeline entries (who changed what, when) for what this agent may read, newest first.
    #[tool(annotations(read_only_hint = true))]
    async fn timeline_status(&self, Parameters(a): Parameters<TimelineArgs>) -> ToolResult {
        let count = count_of("count", a.count, MAX_ENTRIES)?;
        let since = a
            .since
            .as_deref()
            .map(Timestamp::parse)
            .transpose()
            .map_err(|e| format!("since: {e}"))?;
        self.with_store(move |store, agent| {
            let settings = Self::settings(store)?;
            let who = reader(agent, &settings);
            let tier = who.tier;
            // Filters narrow what is shown, so look further back for them.
            let window = if a.actor.is_some() || a.node.is_some() || since.is_some() {
                MAX_ENTRIES
            } else {
                count
            };
            let entries: Vec<_> = store
                .timeline_within(window, tier, CHANGES_PER_ENTRY)?
                .into_iter()
                .filter(|e| since.is_none_or(|s| e.at >= s))
                .filter(|e| a.actor.as_deref().is_none_or(|x| e.actor == x))
                .filter(|e| {
                    a.node
                        .as_deref()
                        .is_none_or(|n| e.changes.iter().any(|c| c.node.as_deref() == Some(n)))
                })
                .take(count)
                .collect();
            let list: Vec<_> = entries
                .iter()
                .map(|e| {
                    json!({
                        "commit": e.commit,
                        "at": e.at.to_rfc3339(),
                        "actor": e.actor,
                        "proposal": e.proposal,
                        "changes": e.changes,
                        "more_changes": e.more > 0,
                    })
                })
                .collect();
            let text = json_safe(&serde_json::to_string_pretty(&list).unwrap_or_default()).into_owned();
            let center = format!("{TOOL_READ}timeline_status {count}");
            recorded(store, &who, center, &text, &[])?;
            Ok(text)
        })
        .await
    }
}

/// The most changes one timeline entry names; the rest are counted.
const CHANGES_PER_ENTRY: usize = 50;
