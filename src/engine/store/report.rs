//! `status`: counts per tier, status and type, and the last update. Counts of
//! tiers a session cannot read come from the index (they are not secret);
//! their status and type breakdown stays hidden.

use std::collections::BTreeMap;

use rusqlite::OptionalExtension;
use serde::Serialize;

use super::manifest::RowKey;
use super::{Store, row_tier};
use crate::error::Result;
use crate::keys::Level;
use crate::model::{Status, Tier, Timestamp};
use rustc_hash::FxHashMap;

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

/// The index's counts per tier and the last update, as of one commit.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    seq: u64,
    /// (nodes, edges) per tier code.
    per_tier: Vec<(u64, u64)>,
    last: Option<i64>,
    /// Readable nodes by status and by type, once asked for at this commit.
    breakdown: Option<Breakdown>,
}

/// Readable nodes by status and by type.
type Breakdown = (BTreeMap<String, u64>, BTreeMap<String, u64>);

impl Store {
    /// The counts of the index as of the commit this session has read: taken
    /// once per commit.
    fn counted(&self) -> Result<Counted> {
        let mut memo = self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(c) = memo.as_ref().filter(|c| c.seq == self.seen_seq) {
            return Ok(c.clone());
        }
        // A master's open tallied every row already.
        let per_tier = match self.verified.rows_per_tier() {
            Some(counts) => counts,
            None => self.count_rows()?,
        };
        let last: Option<i64> = self
            .conn
            .query_row(super::schema::LAST_CHANGE, [], |r| r.get(0))
            .optional()?
            .flatten();
        let c = Counted {
            seq: self.seen_seq,
            per_tier,
            last,
            breakdown: None,
        };
        *memo = Some(c.clone());
        Ok(c)
    }

    /// Nodes and edges per tier code, counted in the index (a group's
    /// edges by its tokens, see `edge_groups`).
    pub(super) fn count_rows(&self) -> Result<Vec<(u64, u64)>> {
        let mut per_tier = vec![(0u64, 0u64); Tier::ALL.len()];
        let edges = super::edge_groups::count_sql(&self.conn)?;
        for (table, is_node, count) in [("nodes", true, "COUNT(*)"), ("edges", false, edges)] {
            let mut stmt = self
                .conn
                .prepare(&format!("SELECT tier, {count} FROM {table} GROUP BY tier"))?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let tier = row_tier(row.get(0)?)?;
                let count = row.get::<_, i64>(1)?.max(0) as u64;
                let slot = &mut per_tier[tier.code() as usize];
                if is_node { slot.0 = count } else { slot.1 = count }
            }
        }
        Ok(per_tier)
    }

    /// Moves counts taken at commit `from` to commit `seq` by the rows the
    /// commits in between replaced or removed (`before`, as they were) and
    /// wrote (`after`), and the newest timeline time they added. Only a
    /// session that knows every row of those commits (the master) calls
    /// it; counts taken at another commit are dropped (taken again).
    /// `edges_added` counts, per tier code, edge rows written beside
    /// `after` (see `edge_fold`).
    pub(crate) fn move_counts(
        &self,
        from: u64,
        seq: u64,
        before: &[RowKey],
        after: &[RowKey],
        edges_added: [u64; 4],
        at: Option<i64>,
    ) {
        let mut memo = self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(c) = memo.as_mut().filter(|c| c.seq == from) else {
            *memo = None;
            return;
        };
        for (row, added) in before.iter().map(|r| (r, false)).chain(after.iter().map(|r| (r, true))) {
            let (nodes, edges) = &mut c.per_tier[row.tier().code() as usize];
            let (n, by) = match row {
                RowKey::Node { .. } => (nodes, 1),
                RowKey::Edge { edges: held, .. } => (edges, u64::from(*held)),
            };
            *n = if added { *n + by } else { n.saturating_sub(by) };
        }
        for (counts, added) in c.per_tier.iter_mut().zip(edges_added) {
            counts.1 += added;
        }
        c.last = c.last.max(at);
        c.seq = seq;
        c.breakdown = None;
    }

    /// Readable nodes by status and by type, counted once per commit (a
    /// session's `status` then answers without a pass over the catalog).
    fn breakdown(&self) -> Breakdown {
        let mut memo = self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(b) = memo
            .as_ref()
            .filter(|c| c.seq == self.seen_seq)
            .and_then(|c| c.breakdown.clone())
        {
            return b;
        }
        let b = self.count_breakdown();
        if let Some(c) = memo.as_mut().filter(|c| c.seq == self.seen_seq) {
            c.breakdown = Some(b.clone());
        }
        b
    }

    fn count_breakdown(&self) -> Breakdown {
        // By status, and by the shared text of each type (a few dozen),
        // then named: no text is compared per node.
        let mut statuses = [0u64; Status::ALL.len()];
        let mut types: FxHashMap<usize, (&str, u64)> = FxHashMap::default();
        for n in self.catalog.nodes() {
            if let Some(i) = Status::ALL.iter().position(|s| *s == n.status) {
                statuses[i] += 1;
            }
            types
                .entry(n.node_type.shared_id())
                .or_insert((n.node_type.as_str(), 0))
                .1 += 1;
        }
        let by_status: BTreeMap<String, u64> = Status::ALL
            .into_iter()
            .zip(statuses)
            .filter(|(_, count)| *count > 0)
            .map(|(s, count)| (s.as_str().to_owned(), count))
            .collect();
        let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
        for (name, count) in types.into_values() {
            *by_type.entry(name.to_owned()).or_insert(0) += count;
        }
        (by_status, by_type)
    }

    /// Builds the status report for this session.
    pub fn status(&self) -> Result<StatusReport> {
        let counted = self.counted()?;
        let tiers: Vec<TierCount> = Tier::ALL
            .iter()
            .map(|&tier| {
                let (nodes, edges) = counted.per_tier[tier.code() as usize];
                TierCount {
                    tier,
                    nodes,
                    edges,
                    readable: self.keys.reads(tier),
                }
            })
            .collect();
        let (by_status, by_type) = self.breakdown();
        let last = counted.last;
        Ok(StatusReport {
            store: self.layout.root().display().to_string(),
            level: self.level(),
            // The store's own: a store at v9 stays there until `graphex migrate`.
            schema_version: self.conn.pragma_query_value(None, "user_version", |r| r.get(0))?,
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
