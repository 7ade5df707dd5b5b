//! The audit record of a projection or a preview, as both front ends write
//! it: the CLI's `project`, the console's previews and the MCP server's
//! reads.

use anyhow::Result;
use graphex_engine::audit::{AuditRecord, Kind, NodeRef};
use graphex_engine::config::{Config, PreviewPolicy};
use graphex_engine::model::Timestamp;
use graphex_engine::project::{self, Access, Center, Projection, Request};
use graphex_engine::store::Catalog;

/// Projects `req` and records it in the audit log (previews as configured).
pub fn project_recorded(
    store: &mut graphex_engine::Store,
    config: &Config,
    req: &Request,
    kind: Kind,
) -> Result<Projection> {
    let settings = config.projection_settings()?;
    let p = project::project(store.catalog(), req, &settings)?;
    record(store, config, req, &p, kind)?;
    Ok(p)
}

/// Records projection `p` of `req` in the audit log: always for a
/// projection, for a preview as `[graphex.audit] previews` says (the
/// console's previews go through here too).
pub fn record(
    store: &mut graphex_engine::Store,
    config: &Config,
    req: &Request,
    p: &Projection,
    kind: Kind,
) -> Result<()> {
    let (trust, local) = match req.access {
        Access::Trust { score, local } => (Some(score), local),
        Access::Tier(_) => (None, false),
    };
    let record = audit_record(store.catalog(), p, req, kind, trust, local);
    let record = AuditRecord {
        tier: record.tier.min(store.level().max_tier()),
        ..record
    };
    if kind == Kind::Projection || config.audit.previews == PreviewPolicy::Record {
        store.audit_append(&record)?;
    }
    Ok(())
}

/// The audit record of projection `p`.
fn audit_record(
    c: &Catalog,
    p: &Projection,
    req: &Request,
    kind: Kind,
    trust: Option<f64>,
    local: bool,
) -> AuditRecord {
    let by_name = |name: &String| {
        c.by_name(name).map(|n| NodeRef {
            id: n.id,
            version: n.version,
            tier: n.tier,
        })
    };
    AuditRecord {
        kind,
        at: req.at.unwrap_or_else(Timestamp::now),
        agent: p.agent.clone(),
        trust,
        local,
        tier: p.tier,
        center: match &req.center {
            Center::Query(q) => q.clone(),
            Center::Node { name, depth } => format!("node:{name}:{depth}"),
        },
        budget: p.budget,
        tokens: p.tokens,
        emitted: p.included.iter().filter_map(by_name).collect(),
        cut: p.cut.iter().filter_map(|x| by_name(&x.name)).collect(),
        projection_hash: p.hash.clone(),
        cost: None,
        activity: None,
    }
}

/// Who made a read that is not a projection, and how its text is counted.
pub struct Reader<'a> {
    pub access: Access,
    pub agent: &'a str,
    /// The tier the reader may receive.
    pub tier: graphex_engine::model::Tier,
    pub counter: project::Counter,
}

/// Records a read that is not a projection (a path, a search) like one: the
/// exact text `text` the agent received, the nodes in it, at the reader's
/// tier. Its centre names the tool and its arguments, so `audit replay`
/// tells it from a projection.
pub fn record_read(
    store: &mut graphex_engine::Store,
    reader: &Reader,
    center: String,
    text: &str,
    nodes: &[graphex_engine::model::NodeSummary],
) -> Result<()> {
    let (trust, local) = match reader.access {
        Access::Trust { score, local } => (Some(score), local),
        Access::Tier(_) => (None, false),
    };
    let tokens = reader.counter.count(text);
    let record = AuditRecord {
        kind: Kind::Projection,
        at: Timestamp::now(),
        agent: reader.agent.to_owned(),
        trust,
        local,
        tier: reader.tier.min(store.level().max_tier()),
        center,
        budget: tokens,
        tokens,
        emitted: nodes
            .iter()
            .map(|n| NodeRef {
                id: n.id,
                version: n.version,
                tier: n.tier,
            })
            .collect(),
        cut: Vec::new(),
        projection_hash: project::text_hash(text),
        cost: None,
        activity: None,
    };
    store.audit_append(&record)?;
    Ok(())
}

/// Records a read by `reader` that found no node it may read named `name`
/// (absent or above its tier: the record does not say which, as the
/// agent's own session reads it). `tool` names the interface and tool.
pub fn record_failed_read(
    store: &mut graphex_engine::Store,
    reader: &Reader,
    session: &str,
    tool: &str,
    name: &str,
) -> Result<()> {
    use graphex_engine::audit::{Action, Activity, Step};
    let trust = match reader.access {
        Access::Trust { score, .. } => Some(score),
        Access::Tier(_) => None,
    };
    store.audit_activity(Step {
        agent: reader.agent,
        trust,
        tier: reader.tier,
        activity: Activity {
            action: Action::NoSuchNode,
            session: session.to_owned(),
            proposal: None,
            asked: Some(name.to_owned()),
            detail: tool.to_owned(),
        },
    })?;
    Ok(())
}
