//! What the engine worker does for the Projection pane: the projection
//! every agent tier would receive for a subject, each with why every node
//! around it is in or out, recorded in the audit log as
//! `graphex project --preview` records it.

use std::collections::HashSet;

use graphex_engine::audit::Kind;
use graphex_engine::config::Config;
use graphex_engine::model::Tier;
use graphex_engine::project::{Access, Request, Settings, TrustPolicy, Why, explain};
use graphex_engine::store::Store;

/// The agent tiers a preview shows, in order.
pub const TIERS: [Tier; 3] = [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted];

pub use crate::app::subject::Subject;

/// A preview asked for: the subject, the agent and its budget.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Spec {
    pub subject: Subject,
    pub agent: String,
    pub budget: usize,
}

/// One node's verdict, in words.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    pub name: String,
    pub included: bool,
    pub why: String,
}

/// What one tier receives.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// For a proposal: the text before accepting it and its tokens (`text`
    /// and `tokens` are after).
    pub before: Option<(String, usize)>,
    pub error: Option<String>,
    /// Why this tier receives nothing, when that is no error (the subject
    /// is above it).
    pub note: Option<String>,
}

impl TierView {
    /// A tier with no text (yet): the fields a preview fills in.
    fn empty(tier: Tier, budget: usize) -> Self {
        Self {
            tier,
            text: String::new(),
            tokens: 0,
            budget,
            hash: String::new(),
            verdicts: Vec::new(),
            sealed: false,
            before: None,
            error: None,
            note: None,
        }
    }
}

/// Every tier's projection of one subject.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    base: Option<&graphex_engine::store::Catalog>,
) -> Result<PreviewView, String> {
    if matches!(spec.subject, Subject::Range { .. }) && base.is_none() {
        return Err("no revision range is open: start with `graphex diff --console RANGE`".into());
    }
    let level_max = store.level().max_tier();
    // A proposal is previewed on the graph as it would be once accepted.
    let after = match &spec.subject {
        Subject::Proposal { id, .. } => {
            let run = || -> graphex_engine::Result<graphex_engine::store::Catalog> {
                let (pid, p) = store.proposal(id)?;
                Ok(graphex_engine::proposal::after_accept(store, &pid, &p)?.0)
            };
            Some(run().map_err(|e| format!("previewing the proposal: {e}"))?)
        }
        _ => None,
    };
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
                sealed: true,
                ..TierView::empty(tier, spec.budget)
            });
            continue;
        }
        let view =
            |p: graphex_engine::project::Projection, whys: Vec<graphex_engine::project::ItemWhy>, before| TierView {
                tier,
                before,
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
                note: None,
            };
        let now = explain(store.catalog(), &req, settings);
        if let Ok((p, _)) = &now {
            let key = format!("{tier}:{}:{}:{}", spec.agent, spec.subject.label(), p.hash);
            if recorded.insert(key) {
                crate::shared::audit_log::record(store, config, &req, p, Kind::Preview)
                    .map_err(|e| format!("recording the preview: {e}"))?;
            }
        }
        // Two sides compared: a proposal's (the graph now, then as it
        // would be once accepted: never recorded, it does not exist), or a
        // revision range's (the graph at its base, then now). A node added
        // (or gone, or not active) on one side projects to nothing there.
        let nothing = |e: &graphex_engine::Error| {
            matches!(
                e,
                graphex_engine::Error::NotFound(_) | graphex_engine::Error::NotProjected { .. }
            )
        };
        let compared = |before: graphex_engine::Result<(
            graphex_engine::project::Projection,
            Vec<graphex_engine::project::ItemWhy>,
        )>,
                        after: graphex_engine::Result<(
            graphex_engine::project::Projection,
            Vec<graphex_engine::project::ItemWhy>,
        )>| {
            let before = match before {
                Ok((p, _)) => Ok((p.text, p.tokens)),
                Err(e) if nothing(&e) => Ok((String::new(), 0)),
                Err(e) => Err(e),
            };
            before.and_then(|b| match after {
                Ok((p, whys)) => Ok(view(p, whys, Some(b))),
                Err(e) if nothing(&e) => Ok(TierView {
                    before: Some(b),
                    ..TierView::empty(tier, spec.budget)
                }),
                Err(e) => Err(e),
            })
        };
        let range_base = base.filter(|_| matches!(spec.subject, Subject::Range { .. }));
        let shown = match (&after, range_base, now) {
            (Some(c), _, now) => compared(now, explain(c, &req, settings)),
            (None, Some(b), now) => compared(explain(b, &req, settings), now),
            (None, None, Ok((p, whys))) => Ok(view(p, whys, None)),
            // A subject above this tier is not an error of the query.
            (None, None, Err(e)) => match above(store, &spec.subject, tier) {
                Some((name, at)) => Ok(TierView {
                    note: Some(format!("{tier} receives nothing: {name} is {at}")),
                    ..TierView::empty(tier, spec.budget)
                }),
                None => Err(e),
            },
        };
        tiers.push(shown.unwrap_or_else(|e| TierView {
            error: Some(e.to_string()),
            ..TierView::empty(tier, spec.budget)
        }));
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
        Subject::Proposal { centre, .. } | Subject::Range { centre, .. } => {
            return human_only_around(
                store,
                &Subject::Node {
                    name: centre.clone(),
                    depth: 2,
                },
            );
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

/// The subject's centre node and its tier, when that tier is above `tier`
/// (a query's subject when its first position names one node).
fn above(store: &Store, subject: &Subject, tier: Tier) -> Option<(String, Tier)> {
    let name = match subject {
        Subject::Node { name, .. } => Some(name.clone()),
        Subject::Proposal { centre, .. } | Subject::Range { centre, .. } => Some(centre.clone()),
        Subject::Query(text) => match graphex_engine::query::parse(text) {
            Ok(q) => match q.start.value {
                graphex_engine::query::Pattern::Exact(n) => Some(n),
                _ => None,
            },
            Err(_) => None,
        },
    };
    let name = name?;
    let at = store.catalog().by_name(&name)?.tier;
    (at > tier).then_some((name, at))
}
