//! `history NAME` (a node's versions with field diffs) and `timeline`.

use std::fmt::Write as _;

use anyhow::Result;

use super::cards::diff_line;
use super::output::emit;
use super::session::{Context, Need};

/// `history NAME --version N [--revert]`: one version's content, or that
/// content written back as a new version.
pub fn version(ctx: &Context, name: &str, version: u64, revert: bool) -> Result<()> {
    let mut store = ctx.open(if revert { Need::Write } else { Need::Read })?;
    let current = store.node(name).map_err(|e| match e {
        graphex_engine::Error::NotFound(n) => super::read::not_found(&store, &n),
        other => other.into(),
    })?;
    if version == 0 || version > current.version {
        anyhow::bail!(
            "{name} has versions 1 to {}; there is no version {version}",
            current.version
        );
    }
    let old = store.node_version(&current.id, version)?;
    if !revert {
        return super::read::show_node(ctx, &store, old);
    }
    if version == current.version {
        anyhow::bail!("version {version} is the current one: nothing to revert");
    }
    let mut patch = graphex_engine::NodePatch {
        description: Some(old.description.clone()),
        body: Some(old.body.clone()),
        node_type: Some(old.node_type.clone()),
        confidence: Some(old.confidence),
        ..graphex_engine::NodePatch::default()
    };
    for (k, v) in &old.properties {
        patch.properties.insert(k.clone(), v.clone());
    }
    for k in current.properties.keys().filter(|k| !old.properties.contains_key(k)) {
        // An empty value removes the key.
        patch.properties.insert(k.clone(), String::new());
    }
    let r = store.retrying(|s| s.update_node(name, &patch));
    let s = super::write::with_hints(&store, r)?;
    emit(
        ctx.json,
        &serde_json::json!({"name": name, "reverted_to": version, "version": s.version}),
        |_| {
            format!(
                "{name}: the content of version {version} is version {} now (tier {} and status {} kept; undo takes it back)\n",
                s.version, s.tier, s.status
            )
        },
    )
}

pub fn history(ctx: &Context, name: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let versions = store.history(name).map_err(|e| match e {
        graphex_engine::Error::NotFound(n) => super::read::not_found(&store, &n),
        other => other.into(),
    })?;
    emit(ctx.json, &versions, |vs| {
        let mut out = String::new();
        for v in vs {
            if v.sealed {
                let _ = writeln!(
                    out,
                    "v{}  sealed at {} (unlock a higher level to see it)",
                    v.version, v.tier
                );
                continue;
            }
            let _ = write!(out, "v{}  {}  {}", v.version, v.at.to_rfc3339(), v.tier);
            if let Some(a) = &v.action {
                let _ = write!(out, "  {a}");
            }
            if let Some(a) = &v.actor {
                let _ = write!(out, " by {a}");
            }
            if let Some(p) = &v.proposal {
                let by = proposer(&store, p).map_or(String::new(), |a| format!(" by agent {a}"));
                let _ = write!(out, " (proposal {}{by})", &p[..12.min(p.len())]);
            }
            out.push('\n');
            for d in &v.changes {
                out.push_str(&diff_line(d, "    "));
            }
        }
        out
    })
}

/// The agent that made proposal `id` (master level: proposals are sealed
/// to the master), as it may be shown.
fn proposer(store: &graphex_engine::Store, id: &str) -> Option<String> {
    let (_, p) = store.proposal(id).ok()?;
    Some(super::cards::clean(&p.submission.agent, " "))
}

/// A timeline entry with the agent whose proposal it decided (read from
/// the proposal, at the master level).
#[derive(serde::Serialize)]
struct Entry {
    #[serde(flatten)]
    entry: graphex_engine::store::TimelineEntry,
    #[serde(skip_serializing_if = "Option::is_none")]
    proposed_by: Option<String>,
}

pub fn timeline(ctx: &Context, limit: usize) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let entries: Vec<Entry> = store
        .timeline(limit)?
        .into_iter()
        .map(|entry| Entry {
            proposed_by: entry.proposal.as_deref().and_then(|p| proposer(&store, p)),
            entry,
        })
        .collect();
    emit(ctx.json, &entries, |es| {
        let mut out = String::new();
        for Entry { entry: e, proposed_by } in es {
            // A settings approval, rotation or seal is no graph commit: it has no `#N`.
            let number = match e.note {
                Some(n) if e.commit == 0 => format!("note {n}"),
                _ => format!("#{}", e.commit),
            };
            let _ = write!(out, "{number}  {}  {}", e.at.to_rfc3339(), e.actor);
            if let Some(p) = &e.proposal {
                let _ = write!(out, "  proposal {}", &p[..12.min(p.len())]);
                if let Some(agent) = proposed_by {
                    let _ = write!(out, " by agent {agent}");
                }
            }
            out.push('\n');
            const SHOWN: usize = 12;
            for c in e.changes.iter().take(SHOWN) {
                let what = (c.node.clone().or_else(|| c.edge.clone()))
                    .or_else(|| c.undoes.map(|n| format!("commit #{n}")))
                    .unwrap_or_default();
                let versions = match (c.before, c.after) {
                    (Some(b), Some(a)) => format!(" v{b} → v{a}"),
                    (None, Some(a)) => format!(" v{a}"),
                    (Some(b), None) => format!(" (was v{b})"),
                    (None, None) => String::new(),
                };
                let _ = writeln!(out, "    {}", format!("{} {what}{versions}", c.action).trim_end());
            }
            if e.changes.len() > SHOWN {
                let _ = writeln!(out, "    … and {} more (--json lists all)", e.changes.len() - SHOWN);
            }
        }
        if es.is_empty() {
            out.push_str("no changes yet\n");
        }
        out
    })
}
