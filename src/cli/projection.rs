//! `project`: what an agent would receive, for people and scripts.

use anyhow::{Result, bail};
use graphex_engine::audit::Kind;
use graphex_engine::model::{Tier, Timestamp};
use graphex_engine::project::{Access, Center, Request};

use crate::shared::audit_log::project_recorded;

use super::args::{AuditCommand, ProjectArgs, ProjectFormat};
use super::output::{emit, note};
use super::session::{Context, Need};

pub fn project(ctx: &Context, a: &ProjectArgs) -> Result<()> {
    let access = match (&a.tier, a.trust) {
        (Some(t), _) => Access::Tier(t.parse::<Tier>()?),
        (None, Some(score)) if (0.0..=100.0).contains(&score) => Access::Trust { score, local: a.local },
        (None, Some(score)) => bail!("--trust must be from 0 to 100 (it is {score})"),
        (None, None) => Access::Tier(Tier::AgentReadable),
    };
    let center = match (&a.query, &a.node) {
        (Some(q), _) => Center::Query(q.clone()),
        (None, Some(n)) => Center::Node {
            name: n.clone(),
            depth: a.depth,
        },
        (None, None) => bail!("give a query or --node NAME"),
    };
    let mut store = ctx.open(Need::Read)?;
    let config = super::output::config_in_force(&store)?;
    // One moment for the projection (decisions' recency) and its record, so replay rebuilds it.
    let now = Timestamp::now();
    let req = Request {
        center,
        agent: a.agent.clone(),
        access,
        budget: a.budget,
        at: Some(now),
    };
    let kind = if a.preview { Kind::Preview } else { Kind::Projection };
    let p = project_recorded(&mut store, &config, &req, kind)?;
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
        if p.subject_summarised {
            note(&format!(
                "  {} does not fit the budget whole: it is given as its one-line summary (the subject is never cut)",
                p.center
            ));
        }
        for c in &p.cut {
            note(&format!("  cut {}: {}", c.name, c.reason));
        }
    }
    emit(json, &p, |p| p.text.clone())
}

pub fn audit(ctx: &Context, cmd: &AuditCommand) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    match cmd {
        AuditCommand::Verify => {
            let v = store.audit_verify()?;
            emit(ctx.json, &v, |v| {
                if v.ok {
                    format!("audit log intact: {} record(s)\n", v.records)
                } else {
                    v.problems.iter().map(|p| format!("{p}\n")).collect()
                }
            })?;
            if !v.ok {
                bail!("the audit log failed verification ({} problem(s))", v.problems.len());
            }
            Ok(())
        }
        AuditCommand::Replay { hash } => {
            let settings = super::output::config_in_force(&store)?.projection_settings()?;
            let r = store.audit_replay(hash, &settings)?;
            if !ctx.json {
                note(&format!(
                    "record {} ({} for {} at {}): {}",
                    r.seq,
                    r.record.kind.as_str(),
                    r.record.agent,
                    r.record.tier,
                    if r.matches {
                        "the rebuilt text matches the recorded hash"
                    } else {
                        "the rebuilt text does NOT match the recorded hash"
                    }
                ));
            }
            emit(ctx.json, &r, |r| r.text.clone())?;
            if !r.matches {
                bail!("replay of record {} differs from what was recorded", r.seq);
            }
            Ok(())
        }
        AuditCommand::List { agent, since, limit } => {
            let since = since.as_deref().map(Timestamp::parse).transpose()?;
            let entries = store.audit_list(agent.as_deref(), since, (*limit).max(1))?;
            emit(ctx.json, &entries, |entries| super::audit_list::text(entries))
        }
    }
}
