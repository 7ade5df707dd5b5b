//! The timeline as a reader of one tier sees it, read commit by commit from
//! the newest, so its cost follows what is shown, not the log's size: a
//! commit's rows are contiguous in `seq` (found by a binary search on the
//! primary key), and a commit stops being read once it has named
//! `per_entry` changes and found one more to say so.

use rusqlite::OptionalExtension;

use super::Store;
use super::timeline::TimelineEntry;
use crate::error::Result;
use crate::model::{Tier, Timestamp};

impl Store {
    /// The last `limit` entries a reader of tier `cap` may see, newest
    /// first: only changes to nodes and edges at or below `cap` (an edge
    /// with both ends there too), so no name above it appears; an entry with
    /// no such change is left out. Each entry names at most `per_entry` of
    /// its newest changes, and `more` says whether it holds others (an
    /// import is one commit of hundreds of thousands).
    pub fn timeline_within(&self, limit: usize, cap: Tier, per_entry: usize) -> Result<Vec<TimelineEntry>> {
        let mut out = Vec::new();
        let mut upper: Option<i64> = self.conn.query_row("SELECT MAX(seq) FROM timeline", [], |r| r.get(0))?;
        // Each step starts at a row (numbers no row holds are skipped, however
        // many), so the walk ends after as many steps as there are entries.
        while out.len() < limit
            && let Some(top) = upper
            && let Some((top, key)) = self.row_at_or_below(top)?
        {
            let start = if key > 0 { self.commit_start(top, key)? } else { top };
            if let Some(e) = self.entry_within(start, top, cap, per_entry.max(1))? {
                out.push(e);
            }
            upper = (start > 1).then(|| start - 1);
        }
        Ok(out)
    }

    /// The number and commit of the row at or just below `seq` (`-seq` for
    /// a row of no commit, as the timeline groups them), if any.
    fn row_at_or_below(&self, seq: i64) -> Result<Option<(i64, i64)>> {
        Ok(self
            .conn
            .query_row(
                "SELECT seq, COALESCE(commit_seq, -seq) FROM timeline WHERE seq <= ?1 ORDER BY seq DESC LIMIT 1",
                [seq],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// The commit of the row at or just below `seq` (see [`Self::row_at_or_below`]; 0 for none).
    pub(super) fn commit_key(&self, seq: i64) -> Result<i64> {
        Ok(self.row_at_or_below(seq)?.map_or(0, |(_, key)| key))
    }

    /// The first `seq` of the commit `key` whose last row is at `top`.
    pub(super) fn commit_start(&self, top: i64, key: i64) -> Result<i64> {
        if key <= 0 {
            return Ok(top);
        }
        // Commit numbers never go down as `seq` goes up.
        let (mut lo, mut hi) = (1, top);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.commit_key(mid)? == key {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }

    /// The number of the last row of the commit `key` that row `bottom`
    /// belongs to.
    pub(super) fn commit_end(&self, bottom: i64, key: i64) -> Result<i64> {
        let last: i64 = self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM timeline", [], |r| r.get(0))?;
        let (mut lo, mut hi) = (bottom, last.max(bottom));
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if self.commit_key(mid)? == key {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        // `lo` may be a number no row holds, just after the commit's last.
        Ok(self.row_at_or_below(lo)?.map_or(bottom, |(seq, _)| seq))
    }

    /// One commit's entry for `cap`, from its rows `start..=top`; `None`
    /// when none of them is visible.
    fn entry_within(&self, start: i64, top: i64, cap: Tier, per_entry: usize) -> Result<Option<TimelineEntry>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT COALESCE(commit_seq, -seq), at, actor, proposal, action, node_id, edge_id, before_version, after_version
             FROM timeline WHERE seq BETWEEN ?1 AND ?2 ORDER BY seq DESC",
        )?;
        let mut rows = stmt.query([start, top])?;
        let mut entry: Option<TimelineEntry> = None;
        'rows: while let Some(r) = rows.next()? {
            // Newest first: a packed row's rows from its last.
            for (node, edge) in super::timeline_pack::named(r.get(5)?, r.get(6)?)?.into_iter().rev() {
                if !self.visible_under(node.as_deref(), edge.as_deref(), cap)? {
                    continue;
                }
                if let Some(e) = &mut entry
                    && e.changes.len() >= per_entry
                {
                    e.more = 1;
                    break 'rows;
                }
                let change = self.describe_change(r.get(4)?, node, edge, r.get(7)?, r.get(8)?)?;
                match &mut entry {
                    Some(e) => e.changes.push(change),
                    None => {
                        // Rows outside a commit are keyed by their negated row number.
                        let key: i64 = r.get(0)?;
                        entry = Some(TimelineEntry {
                            commit: u64::try_from(key).unwrap_or(0),
                            note: (key < 0).then(|| key.unsigned_abs()),
                            at: Timestamp(r.get(1)?),
                            actor: r.get(2)?,
                            proposal: r.get(3)?,
                            changes: vec![change],
                            more: 0,
                        })
                    }
                }
            }
        }
        if let Some(e) = &mut entry {
            e.changes.reverse();
        }
        Ok(entry)
    }
}
