//! `graphex migrate`: brings a store made by an older version to today's
//! layout, saying what it changes: the blob fan-out (see `objects`; the same
//! step runs on its own at every write), the index's lean layout (schema
//! v10, see `schema`; only this command makes it, since it rewrites the
//! whole file) and the edges held in groups (schema v11, see `regroup`:
//! with every tier's key only).

use serde::Serialize;

use super::{Store, schema, schema_v10};
use crate::error::{Error, Result};

/// What a migration did, or (dry run) would do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Migration {
    /// Blob files moved from `objects/HASH` to `objects/HA/SH…`.
    pub blobs_fanned_out: usize,
    /// Blob files already in place.
    pub blobs_in_place: usize,
    /// Whether `graph.db` was (dry run: would be) laid out anew as v10.
    pub index_relaid: bool,
    /// Whether `graph.db` was (would be) rewritten without its free pages
    /// (after a layout, or a rewrite that failed for want of room).
    pub index_compacted: bool,
    /// The edge groups the edges were (would be) put in (schema v11), or 0.
    pub edge_groups: u64,
    /// The edges are still one a row, and grouping them needs every
    /// tier's key: run again at the human level.
    pub groups_need_human: bool,
    /// Another process read the store meanwhile: `graph.db` reaches its
    /// new size when that process lets go (an unlock session: `graphex lock`).
    pub log_pending: bool,
    /// The schema `graph.db` is at now (dry run: stays at).
    pub schema: u32,
    /// `graph.db`'s size in bytes before.
    pub index_bytes_before: u64,
    /// … and after (the same on a dry run or when nothing was laid out).
    pub index_bytes_after: u64,
    pub dry_run: bool,
}

impl Migration {
    /// Whether the store was already in today's layout.
    pub fn nothing_to_do(&self) -> bool {
        self.blobs_fanned_out == 0 && !self.index_relaid && !self.index_compacted && self.edge_groups == 0
    }
}

impl Store {
    /// Moves what an older version left in an older layout (master level:
    /// the same as any write). With `dry_run`, counts it and moves nothing.
    /// Every row is kept as it was, so the seal still holds: the store is
    /// checked against it before anything is rewritten, and again after.
    pub fn migrate(&mut self, dry_run: bool) -> Result<Migration> {
        self.require_writer("migrate the store")?;
        let census = super::objects::Census::of(&self.layout.objects(), &self.objects.list()?);
        // A flat copy of a blob already in place is dropped, not moved.
        let moved = if dry_run {
            census.to_move
        } else {
            self.objects.fan_out()?
        };
        let db = self.layout.db();
        let size = || std::fs::metadata(&db).map(|m| m.len()).map_err(|e| Error::io(&db, e));
        let before = size()?;
        let lean = schema::lean(&self.conn)?;
        let grouped = schema::grouped(&self.conn)?;
        let regroup = !grouped && self.can_regroup();
        let to_compact = !lean || regroup || schema_v10::worth_compacting(&self.conn)?;
        let mut edge_groups = 0;
        let done = if dry_run || !to_compact {
            if regroup {
                edge_groups = self.catalog.edge_groups();
            }
            schema_v10::Relayout {
                laid_out: !lean,
                compacted: to_compact,
                log_pending: false,
            }
        } else {
            super::seal::verify_whole(&self.conn, &self.keys)?;
            let mut done = schema::relayout(&mut self.conn)?;
            if regroup {
                edge_groups = self.regroup_edges()?;
                // The rows the groups replaced leave their pages free.
                let compacted = schema::relayout(&mut self.conn)?;
                done.compacted |= compacted.compacted;
                done.log_pending |= compacted.log_pending;
            }
            super::seal::verify_whole(&self.conn, &self.keys)?;
            done
        };
        Ok(Migration {
            blobs_fanned_out: moved,
            blobs_in_place: census.blobs - census.flat,
            index_relaid: done.laid_out,
            index_compacted: done.compacted,
            edge_groups,
            groups_need_human: !grouped && !regroup,
            log_pending: done.log_pending,
            schema: self.conn.pragma_query_value(None, "user_version", |r| r.get(0))?,
            index_bytes_before: before,
            index_bytes_after: size()?,
            dry_run,
        })
    }
}
