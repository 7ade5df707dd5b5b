//! `status`: counts per tier, status and type, and the last update. Counts of
//! tiers a session cannot read come from the index (they are not secret);
//! their status and type breakdown stays hidden.

use std::collections::BTreeMap;

use rusqlite::OptionalExtension;
use serde::Serialize;

use super::{Store, row_tier};
use crate::error::Result;
use crate::keys::Level;
use crate::model::{Tier, Timestamp};

/// Node and edge counts of one tier.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TierCount {
    pub tier: Tier,
    pub nodes: u64,
    pub edges: u64,
    /// Whether this session reads the tier (and so its breakdown below).
    pub readable: bool,
}

/// A summary of the store for `graphex status`.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    pub store: String,
    pub level: Level,
    pub schema_version: u32,
    pub tiers: Vec<TierCount>,
    /// Readable nodes by lifecycle status.
    pub by_status: BTreeMap<String, u64>,
    /// Readable nodes by type.
    pub by_type: BTreeMap<String, u64>,
    pub last_update: Option<String>,
    pub total_nodes: u64,
    pub total_edges: u64,
    /// Proposal files waiting for a decision (counted without opening them).
    pub pending_proposals: usize,
}

impl Store {
    /// Builds the status report for this session.
    pub fn status(&self) -> Result<StatusReport> {
        let mut tiers: Vec<TierCount> = Tier::ALL
            .iter()
            .map(|&tier| TierCount {
                tier,
                nodes: 0,
                edges: 0,
                readable: self.keys.reads(tier),
            })
            .collect();
        for (table, is_node) in [("nodes", true), ("edges", false)] {
            let mut stmt = self
                .conn
                .prepare(&format!("SELECT tier, COUNT(*) FROM {table} GROUP BY tier"))?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let tier = row_tier(row.get(0)?)?;
                let count = row.get::<_, i64>(1)?.max(0) as u64;
                let slot = &mut tiers[tier.code() as usize];
                if is_node {
                    slot.nodes = count
                } else {
                    slot.edges = count
                }
            }
        }
        let mut by_status = BTreeMap::new();
        let mut by_type = BTreeMap::new();
        for n in self.catalog.nodes() {
            *by_status.entry(n.status.to_string()).or_insert(0) += 1;
            *by_type.entry(n.node_type.to_string()).or_insert(0) += 1;
        }
        let last: Option<i64> = self
            .conn
            .query_row("SELECT MAX(at) FROM timeline", [], |r| r.get(0))
            .optional()?
            .flatten();
        Ok(StatusReport {
            store: self.layout.root().display().to_string(),
            level: self.level(),
            schema_version: super::SCHEMA_VERSION,
            total_nodes: tiers.iter().map(|t| t.nodes).sum(),
            total_edges: tiers.iter().map(|t| t.edges).sum(),
            tiers,
            by_status,
            by_type,
            last_update: last.map(|t| Timestamp(t).to_rfc3339()),
            pending_proposals: self.pending_count()?,
        })
    }
}
