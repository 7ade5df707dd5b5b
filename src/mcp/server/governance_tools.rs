//! The governance tools: what this agent may do (`trust_status`), what a
//! projection would cost it (`cost_estimate`), what one did cost
//! (`cost_report`, recorded with the projection's audit record), and
//! whether a draft change passes the proposal lints (`policy_check`).

use graphex_engine::audit::TokenCost;
use graphex_engine::hygiene::json_safe;
use graphex_engine::lookup;
use graphex_engine::model::Tier;
use graphex_engine::project::{self, Center, Request};
use graphex_engine::proposal::{self, Submission};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::{Value, json};

use super::args::{CostEstimateArgs, CostReportArgs, PolicyCheckArgs, TrustStatusArgs};
use super::read_tools::budget_of;
use super::{GraphexServer, ToolResult, access};

/// The most draft changes and paths one policy check takes.
const MAX_CHECKED: usize = 200;

fn pretty(v: &Value) -> String {
    json_safe(&serde_json::to_string_pretty(v).unwrap_or_default()).into_owned()
}

#[tool_router(router = governance_router, vis = "pub(super)")]
impl GraphexServer {
    /// This agent's trust score, the tier it maps to, and what it may do.
    #[tool(annotations(read_only_hint = true))]
    async fn trust_status(&self, Parameters(_): Parameters<TrustStatusArgs>) -> ToolResult {
        self.with_store(|store, agent| {
            let policy = store.config()?.config.projection_settings()?.policy;
            let tier = policy.max_tier(access(agent));
            // Proposals are capped as `submit` caps them (never the local runtime's tier).
            let propose_up_to = policy.max_tier(project::Access::Trust {
                score: agent.trust,
                local: false,
            });
            // What this server can decrypt, never more than its keys open.
            let decrypts = store.level().max_tier();
            let tiers = [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted];
            let reads: Vec<Tier> = tiers.into_iter().filter(|t| *t <= tier && *t <= decrypts).collect();
            let trust_allows = policy.max_tier(project::Access::Trust {
                score: agent.trust,
                local: agent.local,
            });
            let not_served: Vec<Tier> = tiers
                .into_iter()
                .filter(|t| *t <= trust_allows && !reads.contains(t))
                .collect();
            Ok(pretty(&json!({
                "agent": agent.agent,
                "session": agent.session,
                "trust": agent.trust,
                "local_runtime": agent.local,
                "tier": tier.min(decrypts),
                "reads": reads,
                "trust_allows": trust_allows,
                "not_served": not_served,
                "public_only": agent.public_only,
                "may": {
                    "query": true,
                    "propose": true,
                    "propose_up_to_tier": propose_up_to,
                    "accept": false,
                },
                "thresholds": {
                    "public_only_below": policy.low,
                    "agent_readable_above": policy.high,
                    "agent_readable_between": policy.readable_between,
                    "agent_restricted": "only above the high threshold in a trusted local runtime",
                },
            })))
        })
        .await
    }

    /// Tokens the projection of a query or a node would cost at this agent's tier; nothing is recorded.
    #[tool(annotations(read_only_hint = true))]
    async fn cost_estimate(&self, Parameters(a): Parameters<CostEstimateArgs>) -> ToolResult {
        let budget = budget_of(a.budget)?;
        let center = match (&a.query, &a.node) {
            (Some(q), None) => Center::Query(a.filters().apply(q)?),
            (None, Some(n)) => Center::Node {
                name: n.clone(),
                depth: 0,
            },
            (Some(_), Some(_)) => return Err("give a query or a node, not both".into()),
            (None, None) => return Err("give a query or a node".into()),
        };
        self.with_store(move |store, agent| {
            let settings = store.config()?.config.projection_settings()?;
            let req = Request {
                center,
                agent: agent.agent.clone(),
                access: access(agent),
                budget,
                at: None,
            };
            let p = project::project(store.catalog(), &req, &settings)?;
            Ok(pretty(&json!({
                "tokens": p.tokens,
                "budget": p.budget,
                "tier": p.tier,
                "items": p.included.len(),
                "cut": p.cut.len(),
            })))
        })
        .await
    }

    /// Report the tokens spent on one of this agent's projections (default: its newest); stored with its audit record.
    #[tool]
    async fn cost_report(&self, Parameters(a): Parameters<CostReportArgs>) -> ToolResult {
        let cost = TokenCost {
            input: a.input_tokens,
            output: a.output_tokens,
            cached: a.cached_tokens,
        };
        self.with_store(move |store, agent| {
            let r = store.audit_cost(&agent.agent, a.projection.as_deref(), cost)?;
            Ok(format!(
                "cost record {} for projection {}: {} input ({} cached), {} output tokens",
                r.seq,
                &r.projection_hash[..16],
                r.cost.input,
                r.cost.cached,
                r.cost.output
            ))
        })
        .await
    }

    /// Run the proposal lints on draft changes, and list the conventions that apply to file paths; nothing is recorded.
    #[tool(annotations(read_only_hint = true))]
    async fn policy_check(&self, Parameters(a): Parameters<PolicyCheckArgs>) -> ToolResult {
        let changes = a.changes.unwrap_or_default();
        let paths = a.paths.unwrap_or_default();
        if changes.is_empty() && paths.is_empty() {
            return Err("give draft changes, file paths, or both".into());
        }
        if changes.len() > MAX_CHECKED || paths.len() > MAX_CHECKED {
            return Err(format!(
                "at most {MAX_CHECKED} changes and {MAX_CHECKED} paths per check"
            ));
        }
        let cache = std::sync::Arc::clone(&self.mentions);
        self.with_store(move |store, agent| {
            let settings = store.config()?.config.projection_settings()?;
            let tier = settings.policy.max_tier(access(agent));
            // The name index, built once per commit (tens of ms on a large graph).
            let mentions = {
                let mut cached = cache
                    .lock()
                    .map_err(|_| graphex_engine::Error::integrity("policy check", "the name index failed earlier"))?;
                match &*cached {
                    Some((seq, m)) if *seq == store.seen_seq() => std::sync::Arc::clone(m),
                    _ => {
                        let m = std::sync::Arc::new(proposal::Mentions::new(store));
                        *cached = Some((store.seen_seq(), std::sync::Arc::clone(&m)));
                        m
                    }
                }
            };
            let lints = if changes.is_empty() {
                Vec::new()
            } else {
                let sub = Submission::from_json(
                    serde_json::to_vec(&json!({
                        "agent": agent.agent,
                        "trust": agent.trust,
                        "session": agent.session,
                        "rationale": a.rationale.unwrap_or_default(),
                        "changes": changes,
                    }))
                    .unwrap_or_default()
                    .as_slice(),
                )?;
                proposal::check_with(store, &mentions, &settings.policy, sub, tier)?
            };
            let findings: Vec<Value> = lints
                .iter()
                .map(|l| json!({"lint": l.code(), "change": change_of(l), "finding": l.explain()}))
                .collect();
            let conventions: Vec<Value> = paths
                .iter()
                .map(|p| {
                    let applies: Vec<Value> = lookup::conventions_within(store.catalog(), p, tier)
                        .into_iter()
                        .map(|c| {
                            json!({
                                "convention": c.convention.name.as_str(),
                                "via": c.through.map(|t| t.to_string()),
                                "description": settings.scrubber.scrub(&c.convention.description).0,
                            })
                        })
                        .collect();
                    json!({"path": p, "conventions": applies})
                })
                .collect();
            Ok(pretty(&json!({
                "ok": findings.is_empty(),
                "findings": findings,
                "paths": conventions,
            })))
        })
        .await
    }
}

/// The change a finding is about (0: the rationale).
fn change_of(l: &proposal::Lint) -> Value {
    serde_json::to_value(l)
        .ok()
        .and_then(|v| v.get("change").cloned())
        .unwrap_or(Value::Null)
}
