//! `graphex migrate`'s step to schema v11: a store holding one edge a row
//! (v9, v10) holds its edges in groups (see `edge_groups`). Every edge is
//! opened and sealed again in its group, so every tier's key is needed
//! (human level).

use super::Store;
use super::schema::{self, SCHEMA_VERSION};
use crate::error::{Error, Result};
use crate::keys::Level;
use crate::model::{Edge, Tier};

impl Store {
    /// Whether this session holds every key regrouping needs.
    pub(super) fn can_regroup(&self) -> bool {
        self.keys.level() >= Level::Human && Tier::ALL.into_iter().all(|t| self.keys.reads(t))
    }

    /// Regroups the edges in one commit: the rows it replaces are the ones
    /// this session checked at open (its catalog holds exactly their edges,
    /// counted per tier against the rows again here), and the manifest and
    /// the master's seal are made anew over the groups. Returns the number
    /// of groups.
    pub(super) fn regroup_edges(&mut self) -> Result<u64> {
        if !self.can_regroup() {
            return Err(self.keys.needs(
                Level::Human,
                "holding the edges in groups (`graphex migrate` with every tier's key)",
            ));
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if schema::commit_seq(&tx)? != self.seen_seq {
            return Err(Error::Stale);
        }
        if schema::grouped(&tx)? {
            return Ok(0);
        }
        // Checked again in this transaction: nothing written since the
        // checks before (or since this session read the rows) is sealed.
        super::seal::verify_whole(&tx, &self.keys)?;
        // The rows are the ones the catalog was built from and checked against.
        let mut held = [0u64; 4];
        for e in self.catalog.edges() {
            held[e.tier.code() as usize] += 1;
        }
        let mut rows = [0u64; 4];
        let mut stmt = tx.prepare("SELECT tier, COUNT(*) FROM edges GROUP BY tier")?;
        let mut counted = stmt.query([])?;
        while let Some(r) = counted.next()? {
            let tier = super::row_tier(r.get(0)?)?;
            rows[tier.code() as usize] = r.get::<_, i64>(1)?.max(0) as u64;
        }
        drop(counted);
        drop(stmt);
        if held != rows {
            return Err(Error::integrity(
                "graph.db",
                format!("its edge rows per tier ({rows:?}) are not the edges this session read ({held:?})"),
            ));
        }
        let seq = schema::next_commit_seq(&tx)?;
        tx.execute("DELETE FROM edges", [])?;
        tx.execute_batch(super::schema_v10::V11)?;
        // Blob names as their 32 bytes (see `blob_name`): read back as the
        // same text, so no tag changes.
        for table in ["nodes", "node_versions"] {
            tx.execute(
                &format!(
                    "UPDATE {table} SET blob = unhex(blob) WHERE typeof(blob) = 'text' AND length(blob) = 64 \
                     AND blob = lower(blob) AND unhex(blob) IS NOT NULL"
                ),
                [],
            )?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        let edges: Vec<Edge> = self.catalog.edges().cloned().collect();
        let regroup = super::edge_groups::prepare(&tx, &self.keys, &self.catalog, &edges, &[])?;
        let fold = std::sync::Mutex::new(super::edge_fold::EdgeFold::new(false, false));
        let describe = |e: &Edge| format!("edge {}", e.id);
        super::edge_groups::write(&tx, &self.keys, &regroup, &edges, seq, &fold, &describe)?;
        let groups: i64 = tx.query_row("SELECT COUNT(*) FROM edges", [], |r| r.get(0))?;
        for tier in [Tier::AgentReadable, Tier::AgentRestricted, Tier::HumanOnly] {
            super::manifest::rebuild(&tx, &self.keys, tier)?;
        }
        super::seal::rebuild(&tx, &self.keys, seq, &[])?;
        tx.commit()?;
        drop((edges, regroup, fold));
        // The session's maps name the old rows: it reads the store anew,
        // its old catalog freed first (two at once are a million nodes'
        // worth of memory more).
        self.catalog = super::Catalog::default();
        self.verified = super::verified::VerifiedNodes::new();
        self.load_verified()?;
        Ok(u64::try_from(groups).unwrap_or(0))
    }
}
