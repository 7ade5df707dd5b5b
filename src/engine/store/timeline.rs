//! The timeline: who changed what and when, one entry per commit, and a
//! node's history with field-level differences between its versions.

use rusqlite::params;
use serde::Serialize;

use super::{Store, row_edge_id, row_node_id, row_version, sql_version};
use crate::error::Result;
use crate::model::{FieldDiff, NodeId, Tier, Timestamp, field_diff};

/// One commit on the timeline.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineEntry {
    pub commit: u64,
    #[serde(serialize_with = "Timestamp::serialize_rfc3339")]
    pub at: Timestamp,
    pub actor: String,
    /// The proposal decided or undone, if any.
    pub proposal: Option<String>,
    pub changes: Vec<TimelineChange>,
    /// For an entry outside any graph commit (`commit` is 0: a settings
    /// approval, a key rotation, a seal), its own number on the timeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<u64>,
    /// 1 when the entry holds more changes than `changes` names (see
    /// [`Store::timeline_within`]'s `per_entry`), else 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One row of an entry.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineChange {
    pub action: String,
    /// The node's name, or `(hidden)` / its id when this session cannot read it.
    pub node: Option<String>,
    pub edge: Option<String>,
    pub before: Option<u64>,
    pub after: Option<u64>,
    /// For an `undo`, the commit it reverted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
}

/// One version of a node, with what changed from the previous one.
#[derive(Clone, Debug, Serialize)]
pub struct HistoryVersion {
    pub version: u64,
    pub tier: Tier,
    #[serde(serialize_with = "Timestamp::serialize_rfc3339")]
    pub at: Timestamp,
    pub action: Option<String>,
    pub actor: Option<String>,
    pub proposal: Option<String>,
    pub changes: Vec<FieldDiff>,
    /// True when this version is sealed above the session's level.
    pub sealed: bool,
}

type Row = (
    i64,
    i64,
    String,
    Option<String>,
    String,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<i64>,
    Option<i64>,
);

impl Store {
    /// The last `limit` timeline entries, newest first.
    pub fn timeline(&self, limit: usize) -> Result<Vec<TimelineEntry>> {
        self.timeline_cut(limit)
    }

    fn timeline_cut(&self, limit: usize) -> Result<Vec<TimelineEntry>> {
        let mut stmt = self.conn.prepare(
            "SELECT COALESCE(commit_seq, -seq), at, actor, proposal, action, node_id, edge_id, before_version, after_version
             FROM timeline WHERE COALESCE(commit_seq, -seq) IN (
                 SELECT DISTINCT COALESCE(commit_seq, -seq) AS c FROM timeline ORDER BY seq DESC LIMIT ?1)
             ORDER BY seq DESC",
        )?;
        let rows = stmt
            .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()?;
        // Each commit's rows checked against the master's MACs (master
        // level) before any is read: who did what is not the repository's
        // to rewrite.
        let mut commits: Vec<i64> = rows.iter().map(|r| r.0).filter(|k| *k > 0).collect();
        commits.dedup();
        for commit in commits {
            super::rowmac::commit_stored(&self.conn, &self.keys, commit)?;
        }
        let mut out: Vec<TimelineEntry> = Vec::new();
        for (key, at, actor, proposal, action, node, edge, before, after) in rows {
            // Rows outside a commit are keyed by their negated row number.
            let (commit, note) = match u64::try_from(key) {
                Ok(c) => (c, None),
                Err(_) => (0, Some(key.unsigned_abs())),
            };
            // Newest first: a packed row's rows from its last.
            for (node, edge) in super::timeline_pack::named(node, edge)?.into_iter().rev() {
                let change = self.describe_change(action.clone(), node, edge, before, after)?;
                match out.last_mut() {
                    Some(e) if e.commit == commit && commit != 0 => e.changes.push(change),
                    _ => out.push(TimelineEntry {
                        commit,
                        at: Timestamp(at),
                        actor: actor.clone(),
                        proposal: proposal.clone(),
                        changes: vec![change],
                        note,
                        more: 0,
                    }),
                }
            }
        }
        for e in &mut out {
            e.changes.reverse();
        }
        Ok(out)
    }

    /// Every readable version of `name`, oldest first, with field diffs.
    pub fn history(&self, name: &str) -> Result<Vec<HistoryVersion>> {
        let current = self.node(name)?;
        let id = current.id;
        let mut out = Vec::new();
        let mut previous = None;
        for version in 1..=current.version {
            let node = if version == current.version {
                current.clone()
            } else {
                match self.node_version(&id, version) {
                    Ok(n) => n,
                    // An earlier version sealed above this session's level
                    // (the node's tier was lowered since): listed, not shown.
                    Err(crate::Error::TierLocked(_, tier)) => {
                        out.push(HistoryVersion {
                            version,
                            tier,
                            at: Timestamp(0),
                            action: None,
                            actor: None,
                            proposal: None,
                            changes: Vec::new(),
                            sealed: true,
                        });
                        previous = None;
                        continue;
                    }
                    Err(e) => return Err(e),
                }
            };
            let (action, actor, proposal) = self.version_origin(&id, version)?;
            out.push(HistoryVersion {
                version,
                tier: node.tier,
                at: node.updated,
                action,
                actor,
                proposal,
                changes: previous.as_ref().map(|p| field_diff(p, &node)).unwrap_or_default(),
                sealed: false,
            });
            previous = Some(node);
        }
        Ok(out)
    }

    /// Who wrote `version` of node `id`, as the timeline says: the action,
    /// the actor and the proposal it came from (each `None` when unknown).
    /// A row of its own is found by the node index; in a v10 store, a newer
    /// row packing it with others (an import's, see `timeline_pack`) by the
    /// index of packed node rows. At the master level the row found is
    /// checked against its MAC (its place among its commit's stored rows
    /// counted by their numbers, not by reading the commit), so a row
    /// written outside Graphex is refused, not shown.
    pub fn version_origin(
        &self,
        id: &NodeId,
        version: u64,
    ) -> Result<(Option<String>, Option<String>, Option<String>)> {
        use rusqlite::OptionalExtension;
        let mut found: Option<i64> = self
            .conn
            .query_row(
                "SELECT seq FROM timeline WHERE node_id = ?1 AND length(node_id) = 16 AND after_version = ?2
                 AND action <> 'merge-conflict' ORDER BY seq DESC LIMIT 1",
                params![id.as_bytes().as_slice(), sql_version(version)],
                |r| r.get(0),
            )
            .optional()?;
        // Only a store at v10 packs rows (a v9 one has no index of them).
        if super::schema::lean(&self.conn)? {
            let mut stmt = self.conn.prepare_cached(
                "SELECT seq, node_id FROM timeline
                 WHERE length(node_id) > 16 AND after_version = ?2 AND edge_id IS NULL AND seq > ?1
                 AND action <> 'merge-conflict' ORDER BY seq DESC",
            )?;
            let mut packed = stmt.query(params![found.unwrap_or(0), sql_version(version)])?;
            while let Some(r) = packed.next()? {
                let ids = r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
                if super::timeline_pack::ids(ids)?.any(|one| one == id.as_bytes()) {
                    found = Some(r.get(0)?);
                    break;
                }
            }
        }
        let Some(seq) = found else {
            return Ok((None, None, None));
        };
        let Some(row) = self.checked_timeline_row(seq)? else {
            return Ok((None, None, None));
        };
        Ok((Some(row.action), Some(row.actor), row.proposal))
    }

    /// Stored timeline row `seq`, checked against its MAC at the master
    /// level. Its place among its commit's stored rows, and their number,
    /// come from the numbers the commit's rows hold (written one after the
    /// other, found by binary searches on the table's key, so a large
    /// import's commit is never counted row by row): a row cut from before
    /// this one or from the commit's end makes them differ from what the
    /// MAC covers; one cut from the middle leaves this row's own words
    /// intact and is the seal's whole-timeline check's to catch. A row of
    /// no commit stands alone.
    fn checked_timeline_row(&self, seq: i64) -> Result<Option<super::rowmac::TimelineRow>> {
        let Some((row, mac)) = super::rowmac::stored_at(&self.conn, seq)? else {
            return Ok(None);
        };
        if self.keys.seal().is_none() {
            return Ok(Some(row));
        }
        // Rows are numbered from 1: one renumbered outside Graphex is refused
        // before any arithmetic on its number.
        if seq < 1 {
            return Err(crate::Error::integrity(
                "the timeline",
                format!("a row is numbered {seq}: renumbered outside Graphex"),
            ));
        }
        let Some(commit) = row.commit else {
            super::rowmac::check_timeline(&self.keys, &row, 0, 1, mac.as_deref())?;
            return Ok(Some(row));
        };
        let start = self.commit_start(seq, commit)?;
        let last = self.commit_end(seq, commit)?;
        let n = |d: i64| usize::try_from(d).unwrap_or(usize::MAX);
        if super::rowmac::check_timeline(&self.keys, &row, n(seq - start), n(last - start + 1), mac.as_deref()).is_err()
        {
            // Numbers a commit's rows do not hold one after the other (a store
            // rewritten by an older version, say): its rows counted instead.
            let count = |upto: i64| -> Result<usize> {
                let c: i64 = self.conn.query_row(
                    "SELECT COUNT(*) FROM timeline WHERE commit_seq = ?1 AND seq <= ?2",
                    params![commit, upto],
                    |r| r.get(0),
                )?;
                Ok(usize::try_from(c).unwrap_or(0))
            };
            super::rowmac::check_timeline(&self.keys, &row, count(seq - 1)?, count(i64::MAX)?, mac.as_deref())?;
        }
        Ok(Some(row))
    }

    /// One timeline row as shown: names instead of ids where readable.
    pub(crate) fn describe_change(
        &self,
        action: String,
        node: Option<Vec<u8>>,
        edge: Option<Vec<u8>>,
        before: Option<i64>,
        after: Option<i64>,
    ) -> Result<TimelineChange> {
        // An undo row's `before` is the commit it reverted.
        let undoes = if action == "undo" { before } else { None };
        let versions = [after, before.filter(|_| undoes.is_none())];
        Ok(TimelineChange {
            node: node.map(|b| self.describe_node(&b, versions)).transpose()?,
            edge: edge.map(|b| self.describe_edge_row(&b)).transpose()?,
            before: before.filter(|_| undoes.is_none()).map(row_version).transpose()?,
            after: after.map(row_version).transpose()?,
            undoes: undoes.map(row_version).transpose()?,
            action,
        })
    }

    /// Whether a reader of `cap` may see the row's node and edge.
    pub(super) fn visible_under(&self, node: Option<&[u8]>, edge: Option<&[u8]>, cap: Tier) -> Result<bool> {
        let readable = |id: &NodeId| self.catalog.node(id).is_some_and(|n| n.tier <= cap);
        if let Some(b) = node
            && !readable(&row_node_id(b)?)
        {
            return Ok(false);
        }
        if let Some(b) = edge {
            let id = row_edge_id(b)?;
            let e = match self.catalog.edge(&id) {
                Some(e) => Some(e.clone()),
                None => super::unlinked::read(&self.conn, &self.keys, &id).ok().flatten(),
            };
            return Ok(e.is_some_and(|e| e.tier <= cap && readable(&e.from) && readable(&e.to)));
        }
        Ok(true)
    }

    /// The node's name; for one no longer in the graph (an add since
    /// undone), the name its version of the row recorded, when this session
    /// reads that version's tier.
    fn describe_node(&self, bytes: &[u8], versions: [Option<i64>; 2]) -> Result<String> {
        let id = row_node_id(bytes)?;
        if let Some(n) = self.catalog.node(&id) {
            return Ok(n.name.to_string());
        }
        let recorded = versions
            .into_iter()
            .flatten()
            .filter_map(|v| u64::try_from(v).ok())
            .find_map(|v| self.node_version(&id, v).ok());
        Ok(match recorded {
            Some(n) => n.name.to_string(),
            None => format!("(node …{})", tail(&id.to_string())),
        })
    }

    fn describe_edge_row(&self, bytes: &[u8]) -> Result<String> {
        let id = row_edge_id(bytes)?;
        // A removed edge is named from its kept record, when readable.
        let kept = || super::unlinked::read(&self.conn, &self.keys, &id).ok().flatten();
        Ok(match self.catalog.edge(&id).cloned().or_else(kept) {
            Some(e) => self.describe_edge(&e),
            None => format!("(edge …{})", tail(&id.to_string())),
        })
    }
}

/// The last 8 characters of an id (the random part of a v7 uuid).
fn tail(id: &str) -> &str {
    &id[id.len().saturating_sub(8)..]
}
