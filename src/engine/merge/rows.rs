//! The three-way merge of index rows, inside the merge's transaction on a
//! copy of ours (`main`) with the base (`o`) and the other branch (`b`)
//! attached. What the other branch changed since the base lands when ours
//! left that row as the base had it; a node both changed becomes a
//! conflict row; everything else is ours.

use rusqlite::{Connection, OptionalExtension, params};

use crate::store::kit::manifest::digest;
use crate::store::kit::seal::{DecisionKey, sign_decision};
use std::collections::HashSet;

use super::rekey::Rekey;
use super::{MergeReport, Renumber};
use crate::error::Result;
use crate::keys::Keyring;
use crate::model::Tier;
use crate::store::ConflictRow;
use crate::store::kit::rowmac::TimelineRow;

/// What makes two node rows the same row.
#[derive(Clone, Debug, PartialEq, Eq)]
struct NodeRow {
    tier: i64,
    version: i64,
    blob: String,
    digest: Option<Vec<u8>>,
    token: Vec<u8>,
}

const NODE_COLUMNS: &str = "tier, version, blob, digest, name_token";

fn node_row(conn: &Connection, schema: &str, id: &[u8]) -> Result<Option<NodeRow>> {
    let blob = crate::store::kit::blob_name::BLOB_NAME;
    Ok(conn
        .prepare_cached(&format!(
            "SELECT tier, version, {blob}, digest, name_token FROM {schema}.nodes WHERE id = ?1"
        ))?
        .query_row([id], |r| {
            Ok(NodeRow {
                tier: r.get(0)?,
                version: r.get(1)?,
                blob: r.get(2)?,
                digest: r.get(3)?,
                token: r.get(4)?,
            })
        })
        .optional()?)
}

/// Ids whose rows differ between the base and `side` (added, removed or
/// changed there), over the columns that identify a row; with `tier`, only
/// rows of that tier on `side`.
fn changed_ids(conn: &Connection, table: &str, columns: &str, side: &str, tier: Option<Tier>) -> Result<Vec<Vec<u8>>> {
    let only = tier.map_or(String::new(), |t| format!(" WHERE tier = {}", t.code()));
    let sql = format!(
        "SELECT id FROM (SELECT id, {columns} FROM {side}.{table}{only} EXCEPT SELECT id, {columns} FROM o.{table}) \
         UNION SELECT id FROM (SELECT id, {columns} FROM o.{table} EXCEPT SELECT id, {columns} FROM {side}.{table})"
    );
    let mut ids: Vec<Vec<u8>> = conn
        .prepare(&sql)?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if tier.is_some() {
        // Only what the side wrote in the tier counts here.
        ids.retain(|id| {
            conn.query_row(
                &format!(
                    "SELECT 1 FROM {side}.{table} WHERE id = ?1{}",
                    only.replace(" WHERE", " AND")
                ),
                [id],
                |_| Ok(()),
            )
            .is_ok()
        });
    }
    Ok(ids)
}

/// The ids to look at: what the other branch changed, and with a rotation
/// on theirs, what ours wrote in the rotated tier (to be sealed again).
pub(super) fn ids_to_merge(
    tx: &Connection,
    table: &str,
    columns: &str,
    rekey: Option<&Rekey<'_>>,
) -> Result<Vec<Vec<u8>>> {
    let mut ids = changed_ids(tx, table, columns, "b", None)?;
    if let Some(rk) = rekey.filter(|rk| rk.stale_is_ours) {
        let known: HashSet<Vec<u8>> = ids.iter().cloned().collect();
        ids.extend(
            changed_ids(tx, table, columns, "main", Some(rk.tier))?
                .into_iter()
                .filter(|id| !known.contains(id)),
        );
    }
    Ok(ids)
}

/// Another row of ours holding `token` in `table`'s unique column: at v10
/// one whose token begins the same (what the unique index holds, see
/// `schema_v10`), at v9 the same token; either through the index.
fn holder(conn: &Connection, table: &str, column: &str, token: &[u8], id: &[u8]) -> Result<Option<Vec<u8>>> {
    let same = if crate::store::kit::schema::lean(conn)? {
        format!("substr({column}, 1, 16) = substr(?1, 1, 16)")
    } else {
        format!("{column} = ?1")
    };
    Ok(conn
        .prepare_cached(&format!("SELECT id FROM main.{table} WHERE {same} AND id != ?2"))?
        .query_row(params![token, id], |r| r.get(0))
        .optional()?)
}

pub(super) fn short(id: &[u8]) -> String {
    uuid::Uuid::from_slice(id).map_or_else(|_| "?".into(), |u| u.to_string())
}

/// Whether each side changed a row since the base. A branch that rotated
/// the row's tier sealed it again without changing it: for its rows only
/// the tier, version and name count.
fn sides_changed<R: PartialEq, L: PartialEq>(
    o: &Option<R>,
    a: &Option<R>,
    b: &Option<R>,
    logical: impl Fn(&Option<R>) -> L,
    rotated: Option<bool>,
) -> (bool, bool) {
    match rotated {
        // Theirs rotated the row's tier.
        Some(true) => (a != o, logical(b) != logical(o)),
        // Ours rotated it.
        Some(false) => (logical(a) != logical(o), b != o),
        None => (a != o, b != o),
    }
}

/// Merges the `nodes` and `node_versions` rows; conflicts are returned for
/// the caller to store.
pub(super) fn nodes(
    tx: &Connection,
    seq: i64,
    rekey: Option<&Rekey<'_>>,
    report: &mut MergeReport,
) -> Result<Vec<ConflictRow>> {
    let mut conflicts = Vec::new();
    for id in ids_to_merge(tx, "nodes", NODE_COLUMNS, rekey)? {
        let o = node_row(tx, "o", &id)?;
        let a = node_row(tx, "main", &id)?;
        let b = node_row(tx, "b", &id)?;
        let in_tier = |t: Tier| {
            [&o, &a, &b]
                .iter()
                .any(|r| r.as_ref().is_some_and(|r| r.tier == i64::from(t.code())))
        };
        let rk = rekey.filter(|rk| in_tier(rk.tier));
        let (a_changed, b_changed) = sides_changed(
            &o,
            &a,
            &b,
            |r| r.as_ref().map(|r| (r.tier, r.version, r.token.clone())),
            rk.map(|rk| rk.stale_is_ours),
        );
        // Ours as it stays: sealed again when ours is the stale branch.
        let keep_ours = |tx: &Connection| -> Result<()> {
            match rk.filter(|rk| rk.stale_is_ours) {
                Some(rk) if a.is_some() => rk.node(tx, "main", &id, seq),
                _ => Ok(()),
            }
        };
        let conflict = |ours: Vec<u8>, theirs: &NodeRow| -> Result<ConflictRow> {
            let blob = match rk.filter(|rk| !rk.stale_is_ours && theirs.tier == i64::from(rk.tier.code())) {
                Some(rk) => rk.rewrap("b", &crate::store::row_node_id(&id)?, theirs.version, &theirs.blob)?,
                None => theirs.blob.clone(),
            };
            Ok(ConflictRow {
                node: ours,
                theirs_id: id.clone(),
                theirs_version: theirs.version,
                theirs_tier: theirs.tier,
                theirs_blob: blob,
                base_version: o.as_ref().map(|r| r.version),
                branch: String::new(),
                commit: seq,
                at: 0,
            })
        };
        match (a_changed, b_changed) {
            (false, false) => {
                // Only a rotation on theirs: its rows, sealed anew, are the ones.
                if a != b && b.is_some() {
                    take_theirs(tx, &id, seq, None)?;
                }
            }
            (false, true) => {
                let Some(theirs) = b else {
                    tx.execute("DELETE FROM main.nodes WHERE id = ?1", [&id])?;
                    tx.execute("DELETE FROM main.node_versions WHERE node_id = ?1", [&id])?;
                    report.nodes_removed += 1;
                    continue;
                };
                // A name ours gave another node meanwhile: both are kept apart.
                if let Some(other) = holder(tx, "nodes", "name_token", &theirs.token, &id)? {
                    conflicts.push(conflict(other, &theirs)?);
                    continue;
                }
                take_theirs(tx, &id, seq, rk.filter(|rk| !rk.stale_is_ours))?;
                if o.is_none() {
                    report.nodes_added += 1;
                } else {
                    report.nodes_changed += 1;
                }
            }
            (true, false) => keep_ours(tx)?,
            (true, true) => {
                keep_ours(tx)?;
                match (&a, &b) {
                    _ if a == b => {}
                    (Some(_), Some(theirs)) => conflicts.push(conflict(id.clone(), theirs)?),
                    (None, Some(_)) => report.notes.push(format!(
                        "node {}: removed on this branch (an undone add) and changed on the other; it stays removed",
                        short(&id)
                    )),
                    _ => report.notes.push(format!(
                        "node {}: changed on this branch and removed on the other (an undone add); it is kept",
                        short(&id)
                    )),
                }
            }
        }
    }
    Ok(conflicts)
}

/// Theirs' row of node `id` and its whole history into `main` (sealed
/// again when theirs is the stale branch of a rotation).
fn take_theirs(tx: &Connection, id: &[u8], seq: i64, rekey: Option<&Rekey<'_>>) -> Result<()> {
    if let Some(rk) = rekey {
        return rk.node(tx, "b", id, seq);
    }
    tx.execute("DELETE FROM main.node_versions WHERE node_id = ?1", [id])?;
    tx.execute(
        "INSERT INTO main.node_versions (node_id, version, tier, blob) \
         SELECT node_id, version, tier, blob FROM b.node_versions WHERE node_id = ?1",
        [id],
    )?;
    tx.execute(
        "INSERT OR REPLACE INTO main.nodes (id, tier, version, name_token, blob, summary, seq, digest) \
         SELECT id, tier, version, name_token, blob, summary, ?2, digest FROM b.nodes WHERE id = ?1",
        params![id, seq],
    )?;
    Ok(())
}

/// What makes two edge rows the same row.
pub(super) const EDGE_COLUMNS: &str = "tier, token, digest";

pub(super) type EdgeRow = (i64, Vec<u8>, Option<Vec<u8>>);

/// An `edges` row on the base (`o`), ours (`a`) and theirs (`b`), the
/// rotation that touches it, and which side changed it since the base.
pub(super) struct EdgeSides<'r, 'k> {
    pub(super) o: Option<EdgeRow>,
    pub(super) a: Option<EdgeRow>,
    pub(super) b: Option<EdgeRow>,
    pub(super) rk: Option<&'r Rekey<'k>>,
    pub(super) a_changed: bool,
    pub(super) b_changed: bool,
}

impl<'r, 'k> EdgeSides<'r, 'k> {
    pub(super) fn read(tx: &Connection, id: &[u8], rekey: Option<&'r Rekey<'k>>) -> Result<Self> {
        let o = edge_row(tx, "o", id)?;
        let a = edge_row(tx, "main", id)?;
        let b = edge_row(tx, "b", id)?;
        let rk = rekey.filter(|rk| {
            [&o, &a, &b]
                .iter()
                .any(|r| r.as_ref().is_some_and(|r| r.0 == i64::from(rk.tier.code())))
        });
        let (a_changed, b_changed) = sides_changed(
            &o,
            &a,
            &b,
            |r| r.as_ref().map(|r| (r.0, r.1.clone())),
            rk.map(|rk| rk.stale_is_ours),
        );
        Ok(Self {
            o,
            a,
            b,
            rk,
            a_changed,
            b_changed,
        })
    }
}

fn edge_row(conn: &Connection, schema: &str, id: &[u8]) -> Result<Option<EdgeRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {EDGE_COLUMNS} FROM {schema}.edges WHERE id = ?1"))?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// Whether theirs' edge `id` ends at one of `unlanded` (nodes of theirs
/// kept apart as merge proposals): it would point at nothing here. An
/// edge this session cannot open is not held back.
fn to_unlanded(tx: &Connection, keys: &Keyring, id: &[u8], unlanded: &HashSet<Vec<u8>>) -> bool {
    if unlanded.is_empty() {
        return false;
    }
    let row: Option<(i64, Vec<u8>)> = tx
        .query_row("SELECT tier, sealed FROM b.edges WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .ok();
    let (Some((tier, sealed)), Ok(edge_id)) = (row, crate::store::row_edge_id(id)) else {
        return false;
    };
    let Some(tier) = Tier::from_code(tier) else {
        return false;
    };
    let mut terms = crate::codec::Interner::default();
    crate::codec::open_edge(keys, &edge_id, tier, &sealed, &mut terms)
        .is_ok_and(|e| unlanded.contains(e.from.as_bytes().as_slice()) || unlanded.contains(e.to.as_bytes().as_slice()))
}

/// Merges the `edges` rows, and the removed edges kept for undo. `keys`
/// opens theirs' records; edges to `unlanded` nodes stay out (noted).
pub(super) fn edges(
    tx: &Connection,
    seq: i64,
    rekey: Option<&Rekey<'_>>,
    keys: &Keyring,
    unlanded: &HashSet<Vec<u8>>,
    report: &mut MergeReport,
) -> Result<()> {
    for id in ids_to_merge(tx, "edges", EDGE_COLUMNS, rekey)? {
        let EdgeSides {
            o,
            a,
            b,
            rk,
            a_changed,
            b_changed,
        } = EdgeSides::read(tx, &id, rekey)?;
        let copy_theirs = |tx: &Connection| -> Result<()> {
            match rk.filter(|rk| !rk.stale_is_ours) {
                Some(rk) => rk.edge(tx, "b", &id, seq),
                None => {
                    tx.execute(
                        "INSERT OR REPLACE INTO main.edges (id, tier, token, sealed, seq, digest) \
                         SELECT id, tier, token, sealed, ?2, digest FROM b.edges WHERE id = ?1",
                        params![id, seq],
                    )?;
                    Ok(())
                }
            }
        };
        let keep_ours = |tx: &Connection| -> Result<()> {
            match rk.filter(|rk| rk.stale_is_ours) {
                Some(rk) if a.is_some() => rk.edge(tx, "main", &id, seq),
                _ => Ok(()),
            }
        };
        match (a_changed, b_changed) {
            (false, false) => {
                if a != b && b.is_some() {
                    copy_theirs(tx)?;
                }
            }
            (false, true) => match &b {
                None => {
                    tx.execute("DELETE FROM main.edges WHERE id = ?1", [&id])?;
                    report.edges_removed += 1;
                }
                // The same edge made on both branches (under two ids): one is enough.
                Some((_, token, _)) if holder(tx, "edges", "token", token, &id)?.is_some() => {}
                Some(_) if to_unlanded(tx, keys, &id, unlanded) => report.notes.push(format!(
                    "edge {}: the other branch linked it to a node kept apart as a merge proposal (both branches \
                     added that name); link it again if you accept that proposal",
                    short(&id)
                )),
                Some(_) => {
                    copy_theirs(tx)?;
                    if o.is_none() {
                        report.edges_added += 1;
                    } else {
                        report.edges_changed += 1;
                    }
                }
            },
            (true, false) => keep_ours(tx)?,
            (true, true) => {
                keep_ours(tx)?;
                if a != b {
                    report.notes.push(format!(
                        "edge {}: changed on both branches; this branch's is kept",
                        short(&id)
                    ));
                }
            }
        }
    }
    tx.execute(
        "INSERT OR IGNORE INTO main.unlinked (edge_id, tier, sealed) \
         SELECT edge_id, tier, sealed FROM b.unlinked WHERE edge_id NOT IN (SELECT edge_id FROM o.unlinked)",
        [],
    )?;
    if let Some(rk) = rekey {
        rk.unlinked(tx)?;
    }
    Ok(())
}

/// Merges the decisions: the other branch's new ones are added at their
/// renumbered commit and signed again; one it undid is undone here unless
/// ours changed it too.
pub(super) fn decisions(
    tx: &Connection,
    keys: &Keyring,
    renumber: &Renumber,
    rekey: Option<&Rekey<'_>>,
    report: &mut MergeReport,
) -> Result<()> {
    // Decisions are sealed under one tier: a rotation of it on theirs
    // leaves ours under the old key.
    let rk = rekey.filter(|rk| rk.tier == crate::codec::DECISION_TIER);
    if let Some(rk) = rk.filter(|rk| rk.stale_is_ours) {
        crate::store::kit::rotate::rekey_decisions(tx, keys, rk.old, rk.new)?;
    }
    type Row = (String, i64, i64, String, Vec<u8>);
    let read = |schema: &str| -> Result<Vec<Row>> {
        Ok(tx
            .prepare(&format!(
                "SELECT proposal, seq, at, outcome, sealed FROM {schema}.decisions"
            ))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
            .collect::<rusqlite::Result<_>>()?)
    };
    let base: std::collections::HashMap<String, Row> = read("o")?.into_iter().map(|r| (r.0.clone(), r)).collect();
    let ours: std::collections::HashMap<String, Row> = read("main")?.into_iter().map(|r| (r.0.clone(), r)).collect();
    let theirs = read("b")?;
    for row in &theirs {
        if base.contains_key(&row.0) {
            continue;
        }
        if let Some(mine) = ours.get(&row.0) {
            if mine.3 != row.3 {
                report.notes.push(format!(
                    "proposal {}: decided {} here and {} on the other branch; this branch's decision is the one \
                     recorded, while what the other branch's decision changed came with its nodes (a node both \
                     branches changed waits as a merge proposal)",
                    row.0.chars().take(12).collect::<String>(),
                    mine.3,
                    row.3
                ));
            }
            continue;
        }
        let (proposal, old_seq, at, outcome, mut sealed) = row.clone();
        if let Some(rk) = rk.filter(|rk| !rk.stale_is_ours) {
            let what = || format!("decision on proposal {proposal}");
            sealed = crate::codec::reseal(rk.old, rk.new, &crate::codec::decision_ad(&proposal), &sealed, &what)?;
        }
        let seq = renumber.commit(old_seq);
        let key = DecisionKey {
            proposal: proposal.clone(),
            seq,
            at,
            outcome: outcome.clone(),
            digest: digest(&sealed),
        };
        let sig = sign_decision(keys, &key)?;
        tx.execute(
            "INSERT INTO main.decisions (proposal, seq, at, outcome, sealed, sig) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![proposal, seq, at, outcome, sealed, sig],
        )?;
        report.decisions += 1;
    }
    let theirs_ids: std::collections::HashSet<&str> = theirs.iter().map(|r| r.0.as_str()).collect();
    for (proposal, row) in &base {
        if !theirs_ids.contains(proposal.as_str()) && ours.get(proposal) == Some(row) {
            tx.execute("DELETE FROM main.decisions WHERE proposal = ?1", [proposal])?;
            report.decisions += 1;
        }
    }
    Ok(())
}

/// Appends the other branch's timeline rows after the base's, at their
/// renumbered commits (their MACs are written again afterwards).
pub(super) fn timeline(tx: &Connection, renumber: &Renumber, report: &mut MergeReport) -> Result<()> {
    // Rows are told by what they say: those ours holds already (the
    // ancestor's, and the other branch's an earlier merge brought) stay out.
    let known = super::lineage::keys(tx, "main")?;
    let mut has_version = tx.prepare("SELECT 1 FROM main.node_versions WHERE node_id = ?1 AND version = ?2")?;
    // Each commit's rows kept, stored as ours stores a commit's rows
    // (packed at v10); their MACs are written afterwards.
    let mut kept: Vec<TimelineRow> = Vec::new();
    let mut put = crate::store::kit::rowmac::timeline_insert(tx)?;
    let mut flush = |kept: &mut Vec<TimelineRow>| -> Result<()> {
        for r in crate::store::kit::rowmac::stored_rows(tx, kept.drain(..))? {
            crate::store::kit::rowmac::put_timeline_row(&mut put, &r, None)?;
        }
        Ok(())
    };
    super::lineage::each_row(tx, "b", "", |r| {
        keep(r, &known, &mut has_version, renumber, &mut kept, &mut flush, report)
    })?;
    flush(&mut kept)
}

/// Keeps one row of the other branch's, renumbered, unless ours holds it
/// already or it names a version ours does not; `flush` stores the rows
/// kept so far, when a commit ends or a run is long.
fn keep(
    r: TimelineRow,
    known: &std::collections::HashSet<[u8; 32]>,
    has_version: &mut rusqlite::Statement<'_>,
    renumber: &Renumber,
    kept: &mut Vec<TimelineRow>,
    flush: &mut impl FnMut(&mut Vec<TimelineRow>) -> Result<()>,
    report: &mut MergeReport,
) -> Result<()> {
    if known.contains(&super::lineage::key(&r)) {
        return Ok(());
    }
    // A step naming a version this store does not hold (the other
    // branch's versions of a node in conflict, a node it added and
    // undid): its merge-conflict row, or nothing, stands for it.
    if let (Some(node), Some(after)) = (&r.node, r.after)
        && !has_version.exists(rusqlite::params![node, after])?
    {
        return Ok(());
    }
    // An undo names the commit it undid in `before`.
    let before = if r.action == "undo" {
        r.before.map(|c| renumber.commit(c))
    } else {
        r.before
    };
    let row = TimelineRow {
        before,
        commit: r.commit.map(|c| renumber.commit(c)),
        ..r
    };
    if kept.len() >= FLUSH_AT
        || kept
            .last()
            .is_some_and(|last| last.commit != row.commit || row.commit.is_none())
    {
        flush(kept)?;
    }
    kept.push(row);
    report.timeline += 1;
    Ok(())
}

/// The most rows of the other branch's held before they are stored (a
/// commit's rows stored in several goes pack as well, cut between runs).
const FLUSH_AT: usize = if cfg!(test) { 4 } else { 1 << 16 };

/// Adds the other branch's new saved queries (a name saved on both keeps
/// ours), and removes those it deleted that ours left alone.
pub(super) fn saved_queries(tx: &Connection) -> Result<()> {
    tx.execute(
        "INSERT OR IGNORE INTO main.saved_queries (token, sealed) SELECT token, sealed FROM b.saved_queries \
         WHERE token NOT IN (SELECT token FROM o.saved_queries)",
        [],
    )?;
    tx.execute(
        "DELETE FROM main.saved_queries WHERE token IN (SELECT token FROM o.saved_queries \
         WHERE token NOT IN (SELECT token FROM b.saved_queries)) \
         AND sealed IN (SELECT sealed FROM o.saved_queries)",
        [],
    )?;
    Ok(())
}
