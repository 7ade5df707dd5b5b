//! Cost records: the tokens an agent reports it spent on a projection it
//! received, chained into the log like any record. The projection must be
//! one recorded for that agent (and readable by this session), so an agent
//! cannot attach costs to another agent's projections or probe for them.

use serde::Serialize;

use super::{AuditRecord, Kind, TokenCost};
use crate::error::{Error, Result};
use crate::model::Timestamp;
use crate::store::Store;

/// The largest token count one report may carry (far above any context).
pub const MAX_REPORTED_TOKENS: u64 = 1_000_000_000;

/// What a cost report recorded.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CostReport {
    /// The sequence number of the cost record.
    pub seq: u64,
    /// The projection the cost is attached to.
    pub projection_hash: String,
    pub cost: TokenCost,
}

impl Store {
    /// Records `cost` against the projection of `agent` whose hash starts
    /// with `prefix` (at least 8 hex digits), or against the agent's newest
    /// projection when `prefix` is `None`.
    pub fn audit_cost(&mut self, agent: &str, prefix: Option<&str>, cost: TokenCost) -> Result<CostReport> {
        for (what, n) in [
            ("input tokens", cost.input),
            ("output tokens", cost.output),
            ("cached tokens", cost.cached),
        ] {
            if n > MAX_REPORTED_TOKENS {
                return Err(Error::invalid(
                    what,
                    n.to_string(),
                    format!("at most {MAX_REPORTED_TOKENS}"),
                ));
            }
        }
        if cost.cached > cost.input {
            return Err(Error::invalid(
                "cached tokens",
                cost.cached.to_string(),
                format!("cached tokens are part of the input ({})", cost.input),
            ));
        }
        let projection = self.agent_projection(agent, prefix)?;
        let record = AuditRecord {
            kind: Kind::Cost,
            at: Timestamp::now(),
            agent: agent.to_owned(),
            trust: projection.trust,
            local: projection.local,
            tier: projection.tier,
            center: projection.center.clone(),
            budget: projection.budget,
            tokens: projection.tokens,
            emitted: Vec::new(),
            cut: Vec::new(),
            projection_hash: projection.projection_hash.clone(),
            cost: Some(cost),
            activity: None,
        };
        let seq = self
            .audit_append(&record)?
            .ok_or_else(|| Error::integrity("audit log", "a cost record was not written"))?;
        Ok(CostReport {
            seq,
            projection_hash: projection.projection_hash,
            cost,
        })
    }

    /// The projection record of `agent` the prefix names (the newest one for
    /// `None`). Another agent's projection is refused as an absent one.
    fn agent_projection(&self, agent: &str, prefix: Option<&str>) -> Result<AuditRecord> {
        let prefix = match prefix {
            Some(p) if p.len() < 8 || !p.bytes().all(|b| b.is_ascii_hexdigit()) => {
                return Err(Error::invalid("projection hash", p, "give at least 8 hex digits"));
            }
            Some(p) => Some(p.to_ascii_lowercase()),
            None => None,
        };
        let mine = self
            .audit_list(Some(agent), None, usize::MAX)?
            .into_iter()
            .filter_map(|e| e.record)
            .filter(|r| r.kind == Kind::Projection);
        let Some(prefix) = prefix else {
            return mine
                .into_iter()
                .next()
                .ok_or_else(|| Error::NotFound(format!("a projection for agent {agent} to report a cost on")));
        };
        let found: Vec<AuditRecord> = mine.filter(|r| r.projection_hash.starts_with(&prefix)).collect();
        if found.iter().any(|r| r.projection_hash != found[0].projection_hash) {
            return Err(Error::invalid(
                "projection hash",
                prefix,
                "matches several projections; give more digits",
            ));
        }
        found
            .into_iter()
            .next()
            .ok_or_else(|| Error::NotFound(format!("projection {prefix}… of agent {agent}")))
    }
}
