//! Replay: rebuild a recorded projection from the node versions it used and
//! the edges that existed then, and check its hash against the record.

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::AuditRecord;

/// How the centre of a record of a tool's read (an MCP path, search or
/// timeline answer, recorded like a projection) begins.
pub const TOOL_READ: &str = "tool:";
use crate::codec::Snapshot;
use crate::error::{Error, Result};
use crate::model::NodeSummary;
use crate::project::{Access, Center, Request, Settings, project};
use crate::store::{Catalog, Store};

/// The outcome of a replay.
#[derive(Clone, Debug, Serialize)]
pub struct Replay {
    pub seq: u64,
    pub record: AuditRecord,
    pub text: String,
    pub hash: String,
    /// Whether the rebuilt text hashes to the recorded hash.
    pub matches: bool,
}

impl Store {
    /// Replays the newest readable record whose projection hash starts with
    /// `prefix` (at least 8 hex digits), with `settings` (today's
    /// configuration: a changed scrub list or threshold shows as a mismatch).
    pub fn audit_replay(&self, prefix: &str, settings: &Settings) -> Result<Replay> {
        if prefix.len() < 8 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::invalid("projection hash", prefix, "give at least 8 hex digits"));
        }
        let prefix = prefix.to_ascii_lowercase();
        let found: Vec<(u64, AuditRecord)> = self
            .audit_list(None, None, usize::MAX)?
            .into_iter()
            .filter_map(|e| e.record.map(|r| (e.seq, r)))
            .filter(|(_, r)| r.kind.is_text() && r.projection_hash.starts_with(&prefix))
            .collect();
        let distinct: FxHashSet<&str> = found.iter().map(|(_, r)| r.projection_hash.as_str()).collect();
        if distinct.len() > 1 {
            return Err(Error::invalid(
                "projection hash",
                prefix,
                "matches several records; give more digits",
            ));
        }
        let (seq, record) = found
            .into_iter()
            .next()
            .ok_or_else(|| Error::NotFound(format!("audit record with projection hash {prefix}…")))?;
        if let Some(tool) = record.center.strip_prefix(TOOL_READ) {
            return Err(Error::invalid(
                "projection hash",
                prefix,
                format!("record {seq} is a tool's read ({tool}), not a projection; replay rebuilds projections only"),
            ));
        }
        if record.emitted.is_empty() && record.cut.is_empty() {
            // Nothing matched: the projection was the header alone.
            let text = "## Project Context: query\n".to_owned();
            let hash = crate::project::text_hash(&text);
            return Ok(Replay {
                seq,
                matches: hash == record.projection_hash,
                hash,
                text,
                record,
            });
        }
        let mut nodes: Vec<NodeSummary> = Vec::new();
        for n in record.emitted.iter().chain(&record.cut) {
            let mut s = NodeSummary::from(&self.node_version(&n.id, n.version)?);
            s.tier = n.tier;
            nodes.push(s);
        }
        let tiers: rustc_hash::FxHashMap<_, _> = nodes.iter().map(|n| (n.id, n.tier)).collect();
        // The edges of that time, at the tiers their ends had then.
        let edges = self
            .catalog()
            .edges()
            .filter(|e| e.created <= record.at)
            .filter_map(|e| {
                let t = e.declared_tier.max(*tiers.get(&e.from)?).max(*tiers.get(&e.to)?);
                Some(crate::model::Edge { tier: t, ..e.clone() })
            })
            .collect();
        let c = Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
        let center = match record
            .center
            .strip_prefix("node:")
            .and_then(|rest| rest.rsplit_once(':'))
        {
            Some((name, depth)) => Center::Node {
                name: name.to_owned(),
                depth: depth.parse().unwrap_or(1),
            },
            None => Center::Query(record.center.clone()),
        };
        let req = Request {
            center,
            agent: record.agent.clone(),
            access: Access::Tier(record.tier),
            budget: record.budget,
            at: Some(record.at),
        };
        let p = project(&c, &req, settings)?;
        Ok(Replay {
            seq,
            matches: p.hash == record.projection_hash,
            hash: p.hash,
            text: p.text,
            record,
        })
    }
}
