//! Keeping tier snapshots fresh: rebuilt by a writer once enough rows changed
//! since the last one, and dropped whenever a node or edge changes tier (so no
//! snapshot ever holds content under a key it no longer belongs to).

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::objects::Durability;
use super::schema::commit_seq;
use super::{Store, row_version};
use crate::codec;
use crate::error::Result;
use crate::keys::Level;
use crate::model::Tier;

/// Rows changed in a tier since its snapshot before a writer rebuilds it: at
/// least this many, and at least a sixteenth of the snapshot's rows, so the
/// rebuild cost per change and the extra rows an open decodes both stay small.
pub const REBUILD_AFTER: i64 = 256;
const REBUILD_FRACTION: i64 = 16;

impl Store {
    /// Rebuilds the snapshot of every readable tier with enough changed rows
    /// (see [`REBUILD_AFTER`]; any changed row with `force`). Skipped
    /// when another process committed since this session's view. CPU-heavy
    /// for large tiers (about 100 ms per 100k rows).
    pub fn refresh_snapshots(&mut self, force: bool) -> Result<()> {
        // A cache: never rebuilt on a store that went back (read-only).
        if self.keys.level() < Level::Master || self.rolled_back().is_some() {
            return Ok(());
        }
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let seq = commit_seq(&tx)?;
        if seq != self.seen_seq {
            return Ok(());
        }
        // The tiers whose snapshot is due, with the one each replaces.
        let mut due: Vec<(Tier, Option<String>)> = Vec::new();
        for tier in Tier::ALL.into_iter().filter(|t| self.keys.reads(*t)) {
            let snap: Option<(i64, String, i64, bool)> = tx
                .query_row(
                    "SELECT seq, blob, rows, mac IS NOT NULL FROM snapshots WHERE tier = ?1",
                    [tier.code()],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()?;
            let threshold = REBUILD_AFTER.max(snap.as_ref().map_or(0, |s| s.2 / REBUILD_FRACTION));
            // An unsigned snapshot (from before signatures) is rebuilt whole.
            let after = snap.as_ref().filter(|s| s.3).map_or(-1, |s| s.0);
            let changed: i64 = tx.query_row(
                "SELECT (SELECT COUNT(*) FROM nodes WHERE tier = ?1 AND seq > ?2)
                      + (SELECT COUNT(*) FROM edges WHERE tier = ?1 AND seq > ?2)",
                params![tier.code(), after],
                |r| r.get(0),
            )?;
            if changed == 0 || (!force && changed < threshold) {
                continue;
            }
            due.push((tier, snap.map(|s| s.1)));
        }
        // Each sealed, signed and written on its own thread.
        let (keys, objects) = (&self.keys, &self.objects);
        let rows: Vec<_> = due
            .iter()
            .map(|(tier, _)| {
                let nodes: Vec<_> = self.catalog.nodes().filter(|n| n.tier == *tier).collect();
                let edges: Vec<_> = self.catalog.edges().filter(|e| e.tier == *tier).collect();
                (*tier, nodes, edges)
            })
            .collect();
        let built = crate::parallel::each(&rows, |(tier, nodes, edges)| {
            let tier = *tier;
            let rows = (nodes.len() + edges.len()) as i64;
            let sealed = codec::seal_snapshot(keys, tier, seq, nodes.iter().copied(), edges.iter().copied())?;
            let hash = objects.write(&sealed, Durability::Sync)?;
            Ok((rows, hash, super::snapshot_sign::snapshot_mac(keys, tier, seq, &sealed)))
        })?;
        drop(rows);
        let mut replaced: Vec<String> = Vec::new();
        for ((tier, old), (rows, hash, mac)) in due.into_iter().zip(built) {
            let mut one = [0u64; 4];
            one[tier.code() as usize] = 1;
            super::schema::count_sealings(&tx, one)?;
            tx.execute(
                "INSERT OR REPLACE INTO snapshots (tier, seq, blob, rows, mac) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![tier.code(), super::sql_version(seq), hash, rows, mac],
            )?;
            replaced.extend(old);
        }
        tx.commit()?;
        for hash in replaced {
            self.objects.remove(&hash)?;
        }
        Ok(())
    }

    /// The commit a tier's snapshot reflects, if it has one.
    pub fn snapshot_seq(&self, tier: Tier) -> Result<Option<u64>> {
        self.conn
            .query_row("SELECT seq FROM snapshots WHERE tier = ?1", [tier.code()], |r| {
                r.get::<_, i64>(0)
            })
            .optional()?
            .map(row_version)
            .transpose()
    }
}
