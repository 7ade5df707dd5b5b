//! `history NAME` (a node's versions with field diffs) and `timeline`.

use std::fmt::Write as _;

use anyhow::Result;

use super::cards::diff_line;
use super::output::emit;
use super::session::{Context, Need};

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
                let _ = write!(out, " (proposal {})", &p[..12.min(p.len())]);
            }
            out.push('\n');
            for d in &v.changes {
                out.push_str(&diff_line(d, "    "));
            }
        }
        out
    })
}

pub fn timeline(ctx: &Context, limit: usize) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let entries = store.timeline(limit)?;
    emit(ctx.json, &entries, |es| {
        let mut out = String::new();
        for e in es {
            let _ = write!(out, "#{}  {}  {}", e.commit, e.at.to_rfc3339(), e.actor);
            if let Some(p) = &e.proposal {
                let _ = write!(out, "  proposal {}", &p[..12.min(p.len())]);
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
                let _ = writeln!(out, "    {} {}{}", c.action, what, versions);
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
