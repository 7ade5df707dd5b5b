//! Another process's commits applied to an open store row by row, as a
//! long-lived session (the unlock session, the console, the MCP server)
//! needs: only the rows written since the commit it holds (their `seq` is
//! newer), and the rows the new timeline entries name that are gone, are
//! read; their tags replace the old ones in the totals kept since the last
//! full check (`tracked`), and the totals are compared with the manifest and
//! the master's seal exactly as a full check compares its own. Only the
//! changed rows are decrypted.
//!
//! Anything that does not add up (a row changed outside Graphex, a count
//! that differs, a seal that names another commit) is not reported from
//! here: the caller reloads in full, and that check names what is wrong.
//! A write that moved no commit is never applied this way either (see
//! [`Store::refresh`]).

use rusqlite::{Connection, params};

use super::load::{open_edge_row, open_node_row};
use super::manifest::{self, Group, RowKey, RowToken, stored_digest, token};
use super::schema::commit_seq;
use super::verified::{RowKind, Tags, Totals, Tracked};
use super::{Store, blob, row_edge_id, row_node_id, row_tier, row_version};
use crate::codec::Interner;
use crate::error::Result;
use crate::model::{Edge, EdgeId, NodeId, NodeSummary, Tier};

/// The node rows written after a commit, with what the manifest and the
/// catalog need of them.
fn nodes_since() -> String {
    format!(
        "SELECT id, tier, version, {}, digest, name_token, summary FROM nodes WHERE tier = ?1 AND seq > ?2",
        super::blob_name::BLOB_NAME
    )
}
/// The edge rows written after a commit.
const EDGES_SINCE: &str = "SELECT id, tier, seq, digest, token, sealed FROM edges WHERE tier = ?1 AND seq > ?2";

/// An edge row written since, as the catalog takes it.
enum EdgeRead {
    /// A readable edge's row.
    One(Edge),
    /// A row this session cannot read: the edge leaves its catalog.
    Unread(EdgeId),
    /// A readable group's row (v11): every edge leaving `source` in `tier`.
    Group {
        source: NodeId,
        tier: Tier,
        edges: Vec<Edge>,
    },
}

/// What a delta found, applied only once it checked out.
#[derive(Default)]
struct Found {
    /// Rows written since, as the manifest sees them.
    written: Vec<RowKey>,
    /// Rows the session holds that are gone, as far as its maps know them
    /// (id and tier).
    gone: Vec<RowKey>,
    /// Rows the session holds that `written` replaces.
    replaced: Vec<RowKey>,
    /// The catalog's side: readable rows decoded, others to drop.
    nodes: Vec<Result<NodeSummary, NodeId>>,
    edges: Vec<EdgeRead>,
    /// The totals after the delta, checked.
    totals: Totals,
    /// The newest time of the new timeline rows.
    newest_at: Option<i64>,
}

impl Store {
    /// Applies the commits made since `seen_seq` row by row; false when
    /// this session does not keep what that needs, or the result does not
    /// check out (the caller then reloads in full).
    pub(super) fn apply_foreign(&mut self) -> bool {
        if self.unsealed {
            return false;
        }
        let Some(tracked) = self.verified.tracked.as_deref() else {
            return false;
        };
        let Ok(version) = self.data_version() else {
            return false;
        };
        let tags = Tags::new(&self.keys, Some(tracked));
        let Ok(Some((seq, found))) = self.read_delta(&tags, tracked) else {
            return false;
        };
        if found.totals.master {
            let before: Vec<RowKey> = found.gone.iter().chain(&found.replaced).cloned().collect();
            self.move_counts(self.seen_seq, seq, &before, &found.written, [0; 4], found.newest_at);
        } else {
            // Rows of groups it cannot key are not known to it.
            *self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        }
        self.take(&tags, found);
        self.seen_seq = seq;
        self.data_version = version;
        self.deltas += 1;
        true
    }

    /// Reads what changed since `seen_seq` in one read transaction and
    /// checks the totals it leads to against the manifest and the seal in
    /// that same transaction.
    fn read_delta(&self, tags: &Tags, tracked: &Tracked) -> Result<Option<(u64, Found)>> {
        let tx = self.conn.unchecked_transaction()?;
        let seq = commit_seq(&tx)?;
        if seq <= self.seen_seq {
            return Ok(None);
        }
        let since = i64::try_from(self.seen_seq).unwrap_or(i64::MAX);
        let mut found = Found::default();
        let mut terms = Interner::default();
        let mut node_rows = tx.prepare(&nodes_since())?;
        let mut edge_rows = tx.prepare(EDGES_SINCE)?;
        let grouped = super::schema::grouped(&tx)?;
        for tier in Tier::ALL {
            let mut rows = node_rows.query(params![tier.code(), since])?;
            while let Some(r) = rows.next()? {
                let id = row_node_id(blob(r, 0)?)?;
                let version = row_version(r.get(2)?)?;
                let digest = stored_digest(r.get_ref(4)?);
                let row = RowKey::Node {
                    id,
                    tier: row_tier(r.get(1)?)?,
                    version,
                    blob: r.get::<_, String>(3)?.into_boxed_str(),
                    digest,
                    token: RowToken::of(token(r, 5)?),
                };
                if let RowKey::Node { blob, .. } = &row
                    && !super::objects::is_blob_name(blob)
                {
                    return Ok(None);
                }
                found.nodes.push(if self.keys.reads(tier) {
                    let sealed = (blob(r, 6)?, r.get_ref(4)?);
                    Ok(open_node_row(&self.keys, &id, version, tier, sealed, &mut terms)?)
                } else {
                    Err(id)
                });
                found.written.push(row);
            }
            let mut rows = edge_rows.query(params![tier.code(), since])?;
            while let Some(r) = rows.next()? {
                if grouped {
                    let row = super::edge_groups::GroupRow::read(r)?;
                    found.written.push(row.key());
                    if self.keys.reads(tier) {
                        let (source, edges) = row.open(&self.keys, &mut terms)?;
                        found.edges.push(EdgeRead::Group { source, tier, edges });
                    }
                    continue;
                }
                let id = row_edge_id(blob(r, 0)?)?;
                found.written.push(RowKey::Edge {
                    id,
                    tier: row_tier(r.get(1)?)?,
                    seq: row_version(r.get(2)?)?,
                    digest: stored_digest(r.get_ref(3)?),
                    token: RowToken::of(token(r, 4)?),
                    edges: 1,
                    grouped: false,
                });
                found.edges.push(if self.keys.reads(tier) {
                    let sealed = (blob(r, 5)?, r.get_ref(3)?);
                    EdgeRead::One(open_edge_row(&self.keys, &id, tier, sealed, &mut terms)?)
                } else {
                    EdgeRead::Unread(id)
                });
            }
        }
        let mut totals = tracked.totals.clone();
        let (gone, timeline, newest_at) = self.gone(&tx, tracked, &found.written)?;
        let replaced: Vec<RowKey> = found.written.iter().filter_map(|r| self.held(tracked, r)).collect();
        for row in gone.iter().chain(&replaced) {
            self.count_out(tracked, &mut totals, row);
        }
        for row in &found.written {
            if let Some(tag) = tags.tag(row) {
                totals.count(row.tier(), &tag, 1);
                if let Some(e) = tags.element(row) {
                    totals.element(&e, 1);
                }
            }
        }
        totals.timeline = timeline;
        if !self.totals_match(&tx, seq, &totals)? {
            return Ok(None);
        }
        (found.gone, found.replaced, found.newest_at) = (gone, replaced, newest_at);
        found.totals = totals;
        Ok(Some((seq, found)))
    }

    /// The rows this session holds that the timeline entries since name and
    /// the index no longer has (removed by an unlink or an undo), the newest
    /// timeline row and its time. The timeline is only a hint here: a row
    /// removed without an entry leaves a count the manifest does not match.
    fn gone(&self, tx: &Connection, tracked: &Tracked, written: &[RowKey]) -> Result<(Vec<RowKey>, i64, Option<i64>)> {
        // Each id is looked at once; the rewritten ones are not gone.
        let mut looked: std::collections::HashSet<(RowKind, [u8; 16])> =
            written.iter().map(|r| (RowKind::of(r), r.id_bytes())).collect();
        let mut named = tx.prepare("SELECT seq, node_id, edge_id, at FROM timeline WHERE seq > ?1 ORDER BY seq")?;
        let mut rows = named.query([tracked.totals.timeline])?;
        let mut newest = tracked.totals.timeline;
        let mut newest_at: Option<i64> = None;
        let mut out: Vec<RowKey> = Vec::new();
        let mut node_there = tx.prepare("SELECT 1 FROM nodes WHERE id = ?1")?;
        let mut edge_there = tx.prepare("SELECT 1 FROM edges WHERE id = ?1")?;
        while let Some(r) = rows.next()? {
            newest = newest.max(r.get(0)?);
            newest_at = newest_at.max(r.get(3)?);
            let named = super::timeline_pack::named(r.get(1)?, r.get(2)?)?;
            for (node, edge) in &named {
                if let Some(bytes) = node.as_deref()
                    && let Ok(id) = row_node_id(bytes)
                    && looked.insert((RowKind::Node, *id.as_bytes()))
                    && let Some(m) = self.verified.nodes.get(&id)
                    && !node_there.exists([bytes])?
                {
                    out.push(removed_node(id, m.tier(), m.version()));
                }
                if let Some(bytes) = edge.as_deref()
                    && let Ok(id) = row_edge_id(bytes)
                    && looked.insert((RowKind::Edge, *id.as_bytes()))
                    && let Some(held) = tracked.edges.get(&id)
                    && !edge_there.exists([bytes])?
                {
                    out.push(removed_edge(id, held));
                }
            }
        }
        Ok((out, newest, newest_at))
    }

    /// The row this session holds under `row`'s id (its id and tier), if any.
    fn held(&self, tracked: &Tracked, row: &RowKey) -> Option<RowKey> {
        match row {
            RowKey::Node { id, .. } => self
                .verified
                .nodes
                .get(id)
                .map(|m| removed_node(*id, m.tier(), m.version())),
            RowKey::Edge { id, .. } => tracked.edges.get(id).map(|held| removed_edge(*id, held)),
        }
    }

    /// Takes the row the session holds under this id out of `totals`.
    fn count_out(&self, tracked: &Tracked, totals: &mut Totals, row: &RowKey) {
        match row {
            RowKey::Node { id, .. } => {
                if let Some(m) = self.verified.nodes.get(id) {
                    totals.count_half(m.tier(), m.tag(), -1);
                }
            }
            RowKey::Edge { id, .. } => {
                if let Some((tier, tag, _)) = tracked.edges.get(id) {
                    totals.count_half(*tier, tag, -1);
                }
            }
        }
        if let Some(e) = tracked.elements.get(&(RowKind::of(row), row.id_bytes())) {
            totals.element(e, -1);
        }
    }

    /// Whether the totals are the ones the manifest (every group this
    /// session keys) and the master's seal record for commit `seq`.
    fn totals_match(&self, tx: &Connection, seq: u64, after: &Totals) -> Result<bool> {
        for g in Group::ALL {
            let Ok(ciphers) = self.keys.tier(g.key_tier()) else {
                continue;
            };
            let want = manifest::stored(tx, &ciphers.manifest, g)?;
            let have = after.sums[g.index()];
            let same = if after.master {
                want.count == have.count
            } else {
                after.same(&want, &have)
            };
            if !same {
                return Ok(false);
            }
        }
        let found = super::seal::Recomputed {
            rows: after.master.then_some(after.sealed),
            readable: after.readable.as_ref().map(crate::crypto::LtHash::digest),
            halved: after.halved,
        };
        Ok(super::seal::check(tx, &self.keys, seq, &found).is_ok())
    }

    /// Applies a checked delta to the catalog and the verified rows.
    fn take(&mut self, tags: &Tags, found: Found) {
        self.verified.forget(&found.gone);
        self.verified.forget(&found.replaced);
        self.verified.record(tags, &found.written);
        if let Some(t) = self.verified.tracked.as_mut() {
            debug_assert_eq!(t.totals.sums, found.totals.sums);
            debug_assert_eq!(t.totals.sealed, found.totals.sealed);
            t.totals = found.totals;
        }
        for n in found.nodes {
            match n {
                Ok(summary) => self.catalog.put_node(summary),
                Err(id) => self.catalog.drop_node(&id),
            }
        }
        for e in found.edges {
            match e {
                EdgeRead::One(edge) => self.catalog.put_edge(edge),
                EdgeRead::Unread(id) => self.catalog.drop_edge(&id),
                EdgeRead::Group { source, tier, edges } => self.catalog.replace_group(&source, tier, edges),
            }
        }
        for row in &found.gone {
            match row {
                RowKey::Node { id, .. } => self.catalog.drop_node(id),
                RowKey::Edge { id, .. } => self.catalog.drop_edge(id),
            }
        }
    }
}

/// A removed node row as far as the session's maps need it (they are keyed
/// by id and tier).
fn removed_node(id: NodeId, tier: Tier, version: u64) -> RowKey {
    RowKey::Node {
        id,
        tier,
        version,
        blob: Box::default(),
        digest: [0; 16],
        token: RowToken::absent(),
    }
}

fn removed_edge(id: EdgeId, (tier, _, edges): &(Tier, super::tracked::HalfTag, u32)) -> RowKey {
    RowKey::Edge {
        id,
        tier: *tier,
        seq: 0,
        digest: [0; 16],
        token: RowToken::absent(),
        edges: *edges,
        grouped: false,
    }
}
