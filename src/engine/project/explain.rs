//! Why each node around a projection's centre is in it or not: in (at a
//! distance, with a relevance, scrub matches replaced), cut by the token
//! budget, above the agent's tier, not active, or reachable only through
//! such content. For a reviewer at their own level: only what the session's
//! catalog holds is ever named.

use serde::Serialize;

use super::{Center, Projection, Request, Settings, build, items};
use crate::error::Result;
use crate::model::{Status, Tier};
use crate::query::{StatusFilter, run};
use crate::store::Catalog;
use crate::traverse::{Filter, subgraph};

/// Why a node is in a projection or not.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Why {
    In {
        distance: u32,
        relevance: f64,
        scrubbed: usize,
    },
    OverBudget {
        distance: u32,
        relevance: f64,
    },
    /// The node's tier is above the agent's.
    AboveTier {
        tier: Tier,
    },
    /// Deprecated, archived or proposed: projections carry active nodes only.
    NotActive {
        status: Status,
    },
    /// Visible itself, but every way to it passes through hidden content.
    BehindHidden,
}

/// A node and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ItemWhy {
    pub name: String,
    pub why: Why,
}

/// The projection of `req` and the verdict on every node around its centre
/// that this session reads: the candidates (in, or cut by the budget), then
/// the others (by tier, status, or hidden path), by name.
pub fn explain(c: &Catalog, req: &Request, s: &Settings) -> Result<(Projection, Vec<ItemWhy>)> {
    let (p, mut whys) = build(c, req, s)?;
    let tier = s.policy.max_tier(req.access);
    let around: Vec<String> = match &req.center {
        Center::Node { name, depth } => {
            let all = Filter {
                status: StatusFilter::Any,
                ..Filter::default()
            };
            subgraph(c, name, *depth, &all)?
                .nodes
                .iter()
                .map(|(n, _)| n.name.to_string())
                .collect()
        }
        Center::Query(q) => match run(c, &format!("{q} --status any")).or_else(|_| run(c, q)) {
            Ok(out) => out
                .paths
                .iter()
                .flat_map(|p| p.nodes.iter().map(|n| n.name.to_string()))
                .collect(),
            Err(_) => Vec::new(),
        },
    };
    let mut others: Vec<ItemWhy> = Vec::new();
    for name in around {
        let shown = s.scrubber.scrub(&name).0;
        if whys.iter().chain(others.iter()).any(|w| w.name == shown) {
            continue;
        }
        let Some(n) = c.by_name(&name) else { continue };
        let why = if n.tier > tier {
            Why::AboveTier { tier: n.tier }
        } else if n.status != Status::Active {
            Why::NotActive { status: n.status }
        } else if items::visible(n, tier) {
            Why::BehindHidden
        } else {
            continue;
        };
        others.push(ItemWhy { name: shown, why });
    }
    others.sort_by(|a, b| a.name.cmp(&b.name));
    whys.extend(others);
    Ok((p, whys))
}
