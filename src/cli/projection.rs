//! `project`: what an agent would receive, for people and scripts.

use anyhow::{Result, bail};
use graphex_engine::config::Config;
use graphex_engine::model::Tier;
use graphex_engine::project::{self, Access, Center, Request};

use super::args::{ProjectArgs, ProjectFormat};
use super::output::{emit, note};
use super::session::{Context, Need};

pub fn project(ctx: &Context, a: &ProjectArgs) -> Result<()> {
    let access = match (&a.tier, a.trust) {
        (Some(t), _) => Access::Tier(t.parse::<Tier>()?),
        (None, Some(score)) if (0.0..=100.0).contains(&score) => Access::Trust { score, local: a.local },
        (None, Some(score)) => bail!("--trust must be from 0 to 100 (it is {score})"),
        (None, None) => bail!("give --tier or --trust"),
    };
    let center = match (&a.query, &a.node) {
        (Some(q), _) => Center::Query(q.clone()),
        (None, Some(n)) => Center::Node {
            name: n.clone(),
            depth: a.depth,
        },
        (None, None) => bail!("give a query or --node NAME"),
    };
    let store = ctx.open(Need::Read)?;
    let settings = Config::load(store.layout())?.projection_settings()?;
    let req = Request {
        center,
        agent: a.agent.clone(),
        access,
        budget: a.budget,
    };
    let p = project::project(store.catalog(), &req, &settings)?;
    if p.tier > store.level().max_tier() {
        note(&format!(
            "note: this session is {} and cannot read all of {}; unlock further to see what that tier would receive",
            store.level(),
            p.tier
        ));
    }
    let json = ctx.json || a.format == ProjectFormat::Json;
    if !json {
        note(&format!(
            "projected {} of {} tokens for agent {} at tier {}: {} item(s), {} cut, {} scrubbed; hash {}",
            p.tokens,
            p.budget,
            p.agent,
            p.tier,
            p.included.len(),
            p.cut.len(),
            p.scrubbed,
            &p.hash[..16]
        ));
        for c in &p.cut {
            note(&format!("  cut {}: {}", c.name, c.reason));
        }
    }
    emit(json, &p, |p| p.text.clone())
}
