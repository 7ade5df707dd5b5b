//! What the engine worker does for the Projection pane: the projection
//! every agent tier would receive for a subject, each with why every node
//! around it is in or out, recorded in the audit log as
//! `graphex project --preview` records it.

use std::collections::HashSet;

use graphex_engine::audit::Kind;
use graphex_engine::config::Config;
use graphex_engine::model::Tier;
use graphex_engine::project::{Access, Center, Request, Settings, TrustPolicy, Why, explain};
use graphex_engine::store::Store;

/// The agent tiers a preview shows, in order.
pub const TIERS: [Tier; 3] = [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted];

/// What is projected.
#[derive(Clone, Debug, PartialEq)]
pub enum Subject {
    Node { name: String, depth: u32 },
    Query(String),
}

impl Subject {
    pub fn center(&self) -> Center {
        match self {
            Subject::Node { name, depth } => Center::Node {
                name: name.clone(),
                depth: *depth,
            },
            Subject::Query(q) => Center::Query(q.clone()),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Subject::Node { name, depth } => format!("{name} (depth {depth})"),
            Subject::Query(q) => format!("query {q}"),
        }
    }
}

/// A preview asked for: the subject, the agent and its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub subject: Subject,
    pub agent: String,
    pub budget: usize,
}

/// One node's verdict, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub name: String,
    pub included: bool,
    pub why: String,
}

/// What one tier receives.
#[derive(Clone, Debug, PartialEq)]
pub struct TierView {
    pub tier: Tier,
    /// The projection's text, exactly as an agent receives it.
    pub text: String,
    pub tokens: usize,
    pub budget: usize,
    pub hash: String,
    pub verdicts: Vec<Verdict>,
    /// Above this session's level: what it holds cannot be shown here.
    pub sealed: bool,
    pub error: Option<String>,
}

/// Every tier's projection of one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewView {
    pub label: String,
    pub tiers: Vec<TierView>,
    /// Human-only nodes around the centre (never projected); `None` when
    /// this session cannot read human-only content to count it.
    pub human_only: Option<usize>,
    pub policy: TrustPolicy,
}

fn why_words(w: &Why) -> (bool, String) {
    match w {
        Why::In {
            distance,
            relevance,
            scrubbed,
        } => (
            true,
            format!(
                "in: distance {distance}, score {relevance:.2}{}",
                if *scrubbed > 0 {
                    format!(", {scrubbed} scrubbed")
                } else {
                    String::new()
                }
            ),
        ),
        Why::OverBudget { distance, relevance } => (
            false,
            format!("out: over the budget (distance {distance}, score {relevance:.2})"),
        ),
        Why::AboveTier { tier } => (false, format!("out: tier ({tier})")),
        Why::NotActive { status } => (false, format!("out: not active ({status})")),
        Why::BehindHidden => (false, "out: reached only through hidden content".into()),
    }
}

/// The three tiers' projections of `spec`. Each shown text is recorded as a
/// preview (following `[graphex.audit] previews`) unless `recorded` holds
/// it already: one record per distinct text, never one per keystroke.
pub fn preview(
    store: &mut Store,
    config: &Config,
    settings: &Settings,
    spec: &Spec,
    recorded: &mut HashSet<String>,
) -> Result<PreviewView, String> {
    let level_max = store.level().max_tier();
    let mut tiers = Vec::new();
    for tier in TIERS {
        let req = Request {
            center: spec.subject.center(),
            agent: spec.agent.clone(),
            access: Access::Tier(tier),
            budget: spec.budget,
            at: Some(graphex_engine::model::Timestamp::now()),
        };
        if tier > level_max {
            tiers.push(TierView {
                tier,
                text: String::new(),
                tokens: 0,
                budget: spec.budget,
                hash: String::new(),
                verdicts: Vec::new(),
                sealed: true,
                error: None,
            });
            continue;
        }
        match explain(store.catalog(), &req, settings) {
            Ok((p, whys)) => {
                let key = format!("{tier}:{}:{}", spec.subject.label(), p.hash);
                if recorded.insert(key) {
                    crate::cli::projection::record(store, config, &req, &p, Kind::Preview)
                        .map_err(|e| format!("recording the preview: {e}"))?;
                }
                tiers.push(TierView {
                    tier,
                    text: p.text,
                    tokens: p.tokens,
                    budget: p.budget,
                    hash: p.hash,
                    verdicts: whys
                        .iter()
                        .map(|w| {
                            let (included, why) = why_words(&w.why);
                            Verdict {
                                name: w.name.clone(),
                                included,
                                why,
                            }
                        })
                        .collect(),
                    sealed: false,
                    error: None,
                });
            }
            Err(e) => tiers.push(TierView {
                tier,
                text: String::new(),
                tokens: 0,
                budget: spec.budget,
                hash: String::new(),
                verdicts: Vec::new(),
                sealed: false,
                error: Some(e.to_string()),
            }),
        }
    }
    Ok(PreviewView {
        label: spec.subject.label(),
        tiers,
        human_only: human_only_around(store, &spec.subject),
        policy: settings.policy.clone(),
    })
}

/// Human-only nodes around the subject, if the session reads them.
fn human_only_around(store: &Store, subject: &Subject) -> Option<usize> {
    if store.level() < graphex_engine::Level::Human {
        return None;
    }
    let names: Vec<String> = match subject {
        Subject::Node { name, depth } => {
            let all = graphex_engine::traverse::Filter {
                status: graphex_engine::query::StatusFilter::Any,
                ..graphex_engine::traverse::Filter::default()
            };
            graphex_engine::traverse::subgraph(store.catalog(), name, *depth, &all)
                .ok()?
                .nodes
                .iter()
                .map(|(n, _)| n.name.to_string())
                .collect()
        }
        Subject::Query(q) => graphex_engine::query::run(store.catalog(), q)
            .ok()?
            .paths
            .iter()
            .flat_map(|p| p.nodes.iter().map(|n| n.name.to_string()))
            .collect(),
    };
    let unique: HashSet<String> = names.into_iter().collect();
    Some(
        unique
            .iter()
            .filter(|n| store.catalog().by_name(n).is_some_and(|x| x.tier == Tier::HumanOnly))
            .count(),
    )
}
