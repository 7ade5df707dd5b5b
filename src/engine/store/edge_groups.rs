//! Edge groups (schema v11): every edge leaving one node in one tier is
//! held in one row of `edges` and sealed once under the tier's key (see
//! `codec::seal_edge_group`).
//!
//! A group's row keeps the columns an edge row had, so the manifest, the
//! master's seal, a session's tracked tags and the delta see rows as they
//! did: the row's id is the group's (a keyed hash of its source and tier
//! under the blind-index key, so the file does not say which node a group
//! leaves), `token` holds its edges' blind-index tokens (8 bytes each,
//! sorted), and `sealed` the group's record. A group's tags are of their
//! own kind and cover its tokens (`RowToken::group`), so the edges a row
//! counts by them are vouched for at every level. What the file shows
//! beyond v10: how many edges leave some node in a tier, not which node.
//!
//! An edge is unique by its ends and relation across every tier: a writer
//! reads the tokens of the four groups of its source. A group a commit
//! empties is kept, even when its source goes: its record still names the
//! source, so a session that reads the rewritten row drops what it held,
//! and a row is never gone without a word (a session cannot tell which
//! group a removed edge was in: it does not hold the blind-index key).

use rusqlite::{Connection, OptionalExtension, params};
use rustc_hash::{FxHashMap, FxHashSet};

use super::edge_fold::{EdgeFold, EdgeTaggers};
use super::manifest::{self, RowKey, RowToken, stored_digest};
use super::{blob, row_edge_id, row_tier, row_version};
use crate::codec::{self, Interner};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{Edge, EdgeId, NodeId, Tier};

/// The bytes of an edge's token a group keeps: 64 bits. A token is only
/// compared with those of the four groups of its source (a few thousand
/// edges at most), so a false "already there" between two edges of one
/// node is as likely as 2^-40 in the largest graphs; no writer without the
/// blind-index key can aim at one, and the master's seal covers the tokens.
pub(crate) const TOKEN: usize = 8;

/// The columns of a group row, in [`GroupRow::read`]'s order.
pub(crate) const COLUMNS: &str = "id, tier, seq, digest, token, sealed";

/// The id of the group of `source`'s edges in `tier`.
pub(crate) fn group_id(keys: &Keyring, source: &NodeId, tier: Tier) -> Result<EdgeId> {
    let mac = keys.blind()?.token("edge-group", &[source.as_bytes(), &[tier.code()]]);
    let mut id = [0u8; 16];
    id.copy_from_slice(&mac[..16]);
    Ok(EdgeId(uuid::Uuid::from_bytes(id)))
}

/// The associated data of the record in the `edges` row `id`: a group's
/// (`grouped`, v11) or one edge's.
pub(crate) fn row_ad(grouped: bool, id: &EdgeId, tier: Tier) -> Vec<u8> {
    if grouped {
        codec::edge_group_ad(id.as_bytes(), tier)
    } else {
        codec::edge_ad(id, tier)
    }
}

/// [`count_sql`]'s aggregate for a store of groups.
const COUNT_GROUPED: &str =
    "COALESCE(SUM(CASE WHEN typeof(token) = 'blob' AND length(token) % 8 = 0 THEN length(token) / 8 ELSE 0 END), 0)";
const _: () = assert!(TOKEN == 8, "COUNT_GROUPED divides by TOKEN");

/// The SQL aggregate counting the edges of the `edges` rows it runs over:
/// each row one edge, or a group's by its tokens (v11).
pub(crate) fn count_sql(conn: &Connection) -> Result<&'static str> {
    Ok(if super::schema::grouped(conn)? {
        COUNT_GROUPED
    } else {
        "COUNT(*)"
    })
}

/// The token a group keeps of `e`.
pub(crate) fn short_token(keys: &Keyring, e: &Edge) -> Result<[u8; TOKEN]> {
    let full = super::tokens::edge_token(keys, e)?;
    let mut out = [0u8; TOKEN];
    out.copy_from_slice(&full[..TOKEN]);
    Ok(out)
}

/// The edges a stored token column counts (a column not made of whole
/// tokens counts none, and opening the row refuses it).
pub(crate) fn held(tokens: &[u8]) -> u32 {
    if tokens.len().is_multiple_of(TOKEN) {
        u32::try_from(tokens.len() / TOKEN).unwrap_or(u32::MAX)
    } else {
        0
    }
}

/// A group's row as stored.
pub(crate) struct GroupRow {
    pub(crate) id: EdgeId,
    pub(crate) tier: Tier,
    pub(crate) seq: u64,
    pub(crate) digest: [u8; 16],
    pub(crate) tokens: Vec<u8>,
    pub(crate) sealed: Vec<u8>,
}

impl GroupRow {
    /// A row read by a query of [`COLUMNS`].
    pub(crate) fn read(r: &rusqlite::Row<'_>) -> Result<Self> {
        Ok(Self {
            id: row_edge_id(blob(r, 0)?)?,
            tier: row_tier(r.get(1)?)?,
            seq: row_version(r.get(2)?)?,
            digest: stored_digest(r.get_ref(3)?),
            tokens: super::manifest::token(r, 4)?.to_vec(),
            sealed: blob(r, 5)?.to_vec(),
        })
    }

    /// Its edges' tokens, one by one.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = [u8; TOKEN]> + '_ {
        self.tokens.chunks_exact(TOKEN).map(|c| {
            let mut t = [0u8; TOKEN];
            t.copy_from_slice(c);
            t
        })
    }

    /// The row as the manifest and the seal see it.
    pub(crate) fn key(&self) -> RowKey {
        RowKey::Edge {
            id: self.id,
            tier: self.tier,
            seq: self.seq,
            digest: self.digest,
            token: RowToken::group(&self.tokens),
            edges: held(&self.tokens),
            grouped: true,
        }
    }

    /// The group's source and edges, once its record is the one its row
    /// vouches for and holds as many edges as its tokens count.
    pub(crate) fn open(&self, keys: &Keyring, terms: &mut Interner) -> Result<(NodeId, Vec<Edge>)> {
        let what = || format!("edge group {}", crate::crypto::hex(self.id.as_bytes()));
        if manifest::digest(&self.sealed) != self.digest {
            return Err(Error::integrity(
                what(),
                "its sealed record is not the one its row vouches for (replaced outside Graphex)",
            ));
        }
        let (source, edges) = codec::open_edge_group(keys, self.id.as_bytes(), self.tier, &self.sealed, terms)?;
        if !self.tokens.len().is_multiple_of(TOKEN) || edges.len() != self.tokens.len() / TOKEN {
            return Err(Error::integrity(what(), "its tokens do not count its edges"));
        }
        Ok((source, edges))
    }
}

/// A group sealed: its edges' tokens (sorted), its record and the
/// record's digest.
pub(crate) struct SealedGroup {
    pub(crate) tokens: Vec<[u8; TOKEN]>,
    pub(crate) sealed: Vec<u8>,
    pub(crate) digest: [u8; 16],
}

impl SealedGroup {
    /// Seals the group `id` of `source`'s `edges` (in order of their ids)
    /// in `tier`; a token held twice is named, not sealed.
    pub(crate) fn seal(
        keys: &Keyring,
        id: &EdgeId,
        tier: Tier,
        source: &NodeId,
        edges: &[&Edge],
    ) -> Result<std::result::Result<Self, [u8; TOKEN]>> {
        let mut tokens = edges.iter().map(|e| short_token(keys, e)).collect::<Result<Vec<_>>>()?;
        tokens.sort_unstable();
        if let Some(w) = tokens.windows(2).find(|w| w[0] == w[1]) {
            return Ok(Err(w[0]));
        }
        let sealed = codec::seal_edge_group(keys, id.as_bytes(), tier, source, edges)?;
        let digest = manifest::digest(&sealed);
        Ok(Ok(Self { tokens, sealed, digest }))
    }

    /// The row as the manifest and the seal see it, at commit `seq`.
    pub(crate) fn key(&self, id: EdgeId, tier: Tier, seq: u64) -> RowKey {
        RowKey::Edge {
            id,
            tier,
            seq,
            digest: self.digest,
            token: RowToken::group(self.tokens.as_flattened()),
            edges: u32::try_from(self.tokens.len()).unwrap_or(u32::MAX),
            grouped: true,
        }
    }

    /// Writes the row `id` of `schema` (`main`, or a merge's side) at commit `seq`.
    pub(crate) fn put(&self, conn: &Connection, schema: &str, id: &EdgeId, tier: Tier, seq: i64) -> Result<()> {
        conn.prepare_cached(&format!(
            "INSERT INTO {schema}.edges (id, tier, token, sealed, seq, digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET tier = ?2, token = ?3, sealed = ?4, seq = ?5, digest = ?6"
        ))?
        .execute(params![
            id.as_bytes().as_slice(),
            tier.code(),
            self.tokens.as_flattened(),
            self.sealed,
            seq,
            self.digest.as_slice()
        ])?;
        Ok(())
    }
}

/// The group row `id`, if the index has it.
pub(crate) fn read(conn: &Connection, id: &EdgeId) -> Result<Option<GroupRow>> {
    read_in(conn, "main", id)
}

/// The group row `id` of the index attached as `schema` (a merge's sides).
pub(crate) fn read_in(conn: &Connection, schema: &str, id: &EdgeId) -> Result<Option<GroupRow>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM {schema}.edges WHERE id = ?1"))?;
    let row = stmt
        .query_row([id.as_bytes().as_slice()], |r| Ok(GroupRow::read(r)))
        .optional()?;
    row.transpose()
}

/// One group a commit writes: its source and tier, and the plan's edges it
/// takes (a range of [`Regroup::order`]).
struct Unit {
    source: NodeId,
    tier: Tier,
    new: std::ops::Range<usize>,
}

/// What a commit does to the groups, worked out before it writes: which
/// groups it rewrites, what they held, and the tokens of their sources'
/// other groups.
pub(crate) struct Regroup {
    /// The plan's edges by source, tier and id.
    order: Vec<u32>,
    /// The groups written, by source and tier.
    units: Vec<Unit>,
    /// The edges the groups of `units` hold before the commit, by unit
    /// (each row opened and found to hold what the session read).
    existing: FxHashMap<usize, Vec<Edge>>,
    /// The tokens of the groups of a written group's source that the
    /// commit leaves as they are.
    others: FxHashMap<NodeId, Vec<[u8; TOKEN]>>,
    /// Edges the commit removes, or moves to another group.
    dropped: FxHashSet<EdgeId>,
    /// The rows the commit replaces, as they are before it.
    pub(crate) before: Vec<RowKey>,
}

/// Works out the groups a commit writing `edges` (distinct ids) and
/// removing `removed` rewrites, reading the rows they replace (`catalog`:
/// the session's, which knows where each edge it can read is).
pub(crate) fn prepare(
    tx: &Connection,
    keys: &Keyring,
    catalog: &super::Catalog,
    edges: &[Edge],
    removed: &[(EdgeId, Tier)],
) -> Result<Regroup> {
    let at = |i: u32| &edges[i as usize];
    let mut order: Vec<u32> = (0..u32::try_from(edges.len()).unwrap_or(u32::MAX)).collect();
    order.sort_unstable_by_key(|&i| (at(i).from, at(i).tier, at(i).id));
    let mut units: Vec<Unit> = Vec::new();
    let mut start = 0;
    for k in 1..=order.len() {
        let (first, e) = (at(order[start]), order.get(k).map(|&i| at(i)));
        if e.is_none_or(|e| (e.from, e.tier) != (first.from, first.tier)) {
            units.push(Unit {
                source: first.from,
                tier: first.tier,
                new: start..k,
            });
            start = k;
        }
    }
    // Where the edges removed or moved were.
    let mut dropped: FxHashSet<EdgeId> = FxHashSet::default();
    let mut left: Vec<(NodeId, Tier)> = Vec::new();
    if catalog.edge_count() > 0 {
        for e in edges {
            if let Some(old) = catalog.edge(&e.id)
                && (old.from, old.tier) != (e.from, e.tier)
            {
                dropped.insert(e.id);
                left.push((old.from, old.tier));
            }
        }
    }
    for (id, _) in removed {
        let old = catalog.edge(id).ok_or_else(|| {
            Error::integrity(
                format!("edge {id}"),
                "it is not one this session reads: its group is unknown",
            )
        })?;
        dropped.insert(*id);
        left.push((old.from, old.tier));
    }
    let mut written: FxHashSet<(NodeId, Tier)> = units.iter().map(|u| (u.source, u.tier)).collect();
    for (source, tier) in left {
        if written.insert((source, tier)) {
            units.push(Unit {
                source,
                tier,
                new: 0..0,
            });
        }
    }
    units.sort_unstable_by_key(|u| (u.source, u.tier));
    let mut regroup = Regroup {
        order,
        existing: FxHashMap::default(),
        others: FxHashMap::default(),
        dropped,
        before: Vec::new(),
        units,
    };
    // A store without edges has nothing to replace (a bulk import into a
    // new store looks nothing up).
    let any: Option<i64> = tx
        .query_row("SELECT 1 FROM edges LIMIT 1", [], |r| r.get(0))
        .optional()?;
    if any.is_none() {
        return Ok(regroup);
    }
    let mut i = 0;
    while i < regroup.units.len() {
        let source = regroup.units[i].source;
        let mut tiers = Vec::new();
        while i < regroup.units.len() && regroup.units[i].source == source {
            let tier = regroup.units[i].tier;
            tiers.push(tier);
            let row = read(tx, &group_id(keys, &source, tier)?)?;
            let held = held_as_read(keys, catalog, &source, tier, row.as_ref())?;
            if let Some(row) = row {
                regroup.before.push(row.key());
                regroup.existing.insert(i, held);
            }
            i += 1;
        }
        let mut others = Vec::new();
        for tier in Tier::ALL.into_iter().filter(|t| !tiers.contains(t)) {
            if let Some(row) = read(tx, &group_id(keys, &source, tier)?)? {
                others.extend(row.tokens());
            }
        }
        if !others.is_empty() {
            regroup.others.insert(source, others);
        }
    }
    Ok(regroup)
}

/// The edges `row` (the group of `source` in `tier`, if the index has it)
/// holds, refused unless they are exactly the ones the session read there:
/// a commit re-seals the edges it keeps, so it must keep none it did not
/// check, and lose none it did.
fn held_as_read(
    keys: &Keyring,
    catalog: &super::Catalog,
    source: &NodeId,
    tier: Tier,
    row: Option<&GroupRow>,
) -> Result<Vec<Edge>> {
    let mut held = match row {
        Some(row) => {
            let (from, held) = row.open(keys, &mut Interner::default())?;
            if from != *source {
                return Err(Error::integrity(
                    format!("edge group {}", crate::crypto::hex(row.id.as_bytes())),
                    "it holds another node's edges",
                ));
            }
            held
        }
        None => Vec::new(),
    };
    let mut read: Vec<&Edge> = catalog.outgoing(source).filter(|e| e.tier == tier).collect();
    read.sort_by_key(|e| e.id);
    held.sort_by_key(|e| e.id);
    if held.len() != read.len() || held.iter().zip(&read).any(|(h, r)| h != *r) {
        return Err(Error::integrity(
            format!("the {tier} edges of node {source}"),
            "the index holds other edges than this session read (changed outside Graphex since it opened)",
        ));
    }
    Ok(held)
}

/// Writes the groups `regroup` worked out at commit `seq`, each sealed
/// once and counted into `fold`; `describe` names an edge that exists
/// already (the same ends and relation, in any tier).
pub(crate) fn write(
    tx: &Connection,
    keys: &Keyring,
    regroup: &Regroup,
    edges: &[Edge],
    seq: u64,
    fold: &std::sync::Mutex<EdgeFold>,
    describe: &(dyn Fn(&Edge) -> String + Sync),
) -> Result<()> {
    let taggers = EdgeTaggers::new(keys)?;
    let row_seq = super::sql_version(seq);
    let new_of = |unit: &Unit| -> Vec<&Edge> {
        regroup.order[unit.new.clone()]
            .iter()
            .map(|&k| &edges[k as usize])
            .collect()
    };
    let exists = |unit: &Unit, token: &[u8; TOKEN]| -> Error {
        let e = new_of(unit)
            .into_iter()
            .find(|e| short_token(keys, e).is_ok_and(|t| t == *token));
        Error::EdgeExists(e.map_or_else(|| "an edge of this commit".to_string(), describe))
    };
    // The tokens of the groups of the source being written so far.
    let mut source: Option<(NodeId, FxHashSet<[u8; TOKEN]>)> = None;
    crate::parallel::pipeline(
        &regroup.units,
        |i, unit| {
            let id = group_id(keys, &unit.source, unit.tier)?;
            let new = new_of(unit);
            let kept: Vec<Edge> = regroup
                .existing
                .get(&i)
                .into_iter()
                .flatten()
                .filter(|e| !regroup.dropped.contains(&e.id) && new.binary_search_by_key(&e.id, |n| n.id).is_err())
                .cloned()
                .collect();
            let mut all: Vec<&Edge> = kept.iter().chain(new.iter().copied()).collect();
            if !kept.is_empty() {
                all.sort_unstable_by_key(|e| e.id);
            }
            let sealed = SealedGroup::seal(keys, &id, unit.tier, &unit.source, &all)?.map_err(|t| exists(unit, &t))?;
            super::edge_fold::add_shared(fold, &taggers, &sealed.key(id, unit.tier, seq))?;
            Ok((id, sealed))
        },
        |unit, (id, sealed)| {
            let seen = match &mut source {
                Some((s, seen)) if *s == unit.source => seen,
                _ => {
                    let others = regroup.others.get(&unit.source);
                    &mut source
                        .insert((unit.source, others.into_iter().flatten().copied().collect()))
                        .1
                }
            };
            if let Some(t) = sealed.tokens.iter().find(|t| !seen.insert(**t)) {
                return Err(exists(unit, t));
            }
            sealed.put(tx, "main", &id, unit.tier, row_seq)
        },
    )
}
