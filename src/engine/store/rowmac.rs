//! The master's MACs on history and timeline rows.
//!
//! `node_versions` (which file holds each old version) and `timeline` (who
//! changed what, in which commit) are read after open: history, the
//! review card's stale base, and undo, which reverts a commit by following
//! its timeline rows and restoring the versions they name. An agent with
//! write access could point a version at a file it sealed under a key it
//! holds, or add a timeline row that makes the master's undo remove an
//! unrelated edge. So each row carries a MAC under the master's seal key,
//! checked whenever a master-level session reads it. A timeline row's MAC
//! also covers its place among the rows of its commit and their number, so
//! a row deleted from, added to or reordered in a commit is caught.
//!
//! Edges removed by `unlink` are kept sealed for undo (`unlinked`); each
//! such row carries a MAC too, so undo puts back only what the master removed.
//!
//! Sessions below the master level cannot check these MACs; what they read
//! from history is still bound to its node, version and tier by AEAD.

use hmac::{Hmac, KeyInit, Mac};
use rusqlite::{Connection, params};
use sha2::Sha256;

use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{NodeId, Tier};

/// What a timeline row says, as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TimelineRow {
    pub at: i64,
    pub actor: String,
    pub action: String,
    pub node: Option<Vec<u8>>,
    pub edge: Option<Vec<u8>>,
    pub before: Option<i64>,
    pub after: Option<i64>,
    pub proposal: Option<String>,
    pub commit: Option<i64>,
}

fn hmac(keys: &Keyring, domain: &[u8]) -> Option<Hmac<Sha256>> {
    let seal = keys.seal()?;
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(seal.mac_key().expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(domain);
    Some(m)
}

fn field(m: &mut Hmac<Sha256>, bytes: Option<&[u8]>) {
    match bytes {
        None => m.update(&[0]),
        Some(b) => {
            m.update(&[1]);
            m.update(&(b.len() as u64).to_le_bytes());
            m.update(b);
        }
    }
}

fn version_hmac(keys: &Keyring, id: &[u8], version: i64, tier: i64, blob: &str) -> Option<Hmac<Sha256>> {
    let mut m = hmac(keys, b"graphex/row-mac/version/v1")?;
    field(&mut m, Some(id));
    m.update(&version.to_le_bytes());
    m.update(&tier.to_le_bytes());
    field(&mut m, Some(blob.as_bytes()));
    Some(m)
}

/// The MAC of a `node_versions` row (`None` below the master level, which
/// never writes).
pub(crate) fn version_mac(keys: &Keyring, id: &NodeId, version: i64, tier: Tier, blob: &str) -> Option<Vec<u8>> {
    version_hmac(keys, id.as_bytes(), version, i64::from(tier.code()), blob).map(|m| m.finalize().into_bytes().to_vec())
}

fn unlinked_hmac(keys: &Keyring, id: &[u8], tier: i64, sealed: &[u8]) -> Option<Hmac<Sha256>> {
    let mut m = hmac(keys, b"graphex/row-mac/unlinked/v1")?;
    field(&mut m, Some(id));
    m.update(&tier.to_le_bytes());
    field(&mut m, Some(sealed));
    Some(m)
}

/// The MAC of an `unlinked` row (`None` below the master level).
pub(crate) fn unlinked_mac(keys: &Keyring, id: &[u8], tier: i64, sealed: &[u8]) -> Option<Vec<u8>> {
    unlinked_hmac(keys, id, tier, sealed).map(|m| m.finalize().into_bytes().to_vec())
}

/// Refuses an `unlinked` row the master did not write, at the master level.
pub(crate) fn check_unlinked(keys: &Keyring, id: &[u8], tier: i64, sealed: &[u8], mac: Option<&[u8]>) -> Result<()> {
    let Some(m) = unlinked_hmac(keys, id, tier, sealed) else {
        return Ok(());
    };
    match mac {
        Some(tag) if m.verify_slice(tag).is_ok() => Ok(()),
        _ => Err(altered(format!(
            "the kept record of removed edge {}",
            super::row_edge_id(id).map_or_else(|_| "(malformed id)".to_owned(), |e| e.to_string())
        ))),
    }
}

fn timeline_hmac(keys: &Keyring, row: &TimelineRow, place: usize, of: usize) -> Option<Hmac<Sha256>> {
    let mut m = hmac(keys, b"graphex/row-mac/timeline/v1")?;
    for n in [row.commit.unwrap_or(0), place as i64, of as i64, row.at] {
        m.update(&n.to_le_bytes());
    }
    for f in [
        Some(row.actor.as_bytes()),
        Some(row.action.as_bytes()),
        row.node.as_deref(),
        row.edge.as_deref(),
        row.proposal.as_ref().map(|p| p.as_bytes()),
    ] {
        field(&mut m, f);
    }
    for n in [row.before, row.after] {
        field(&mut m, n.map(i64::to_le_bytes).as_ref().map(|b| &b[..]));
    }
    Some(m)
}

/// Inserts `rows` as one commit's timeline rows, each stored row with its
/// MAC (packed, see `timeline_pack`, in a store at v10).
pub(crate) fn insert_timeline(tx: &Connection, keys: &Keyring, rows: &[TimelineRow]) -> Result<()> {
    let stored = stored_rows(tx, rows.iter().cloned())?;
    let count = stored.len();
    let mut put = timeline_insert(tx)?;
    for (i, r) in stored.iter().enumerate() {
        put_timeline_row(&mut put, r, timeline_mac(keys, r, i, count))?;
    }
    Ok(())
}

/// One commit's rows as `tx`'s store keeps them: packed at v10, one by one
/// at v9 (which an older graphex reads).
pub(crate) fn stored_rows(tx: &Connection, rows: impl IntoIterator<Item = TimelineRow>) -> Result<Vec<TimelineRow>> {
    Ok(if super::schema::lean(tx)? {
        super::timeline_pack::pack(rows)
    } else {
        rows.into_iter().collect()
    })
}

/// The MAC of timeline row `row`, at `place` among the `of` rows of its
/// commit (`None` below the master level).
pub(crate) fn timeline_mac(keys: &Keyring, row: &TimelineRow, place: usize, of: usize) -> Option<Vec<u8>> {
    timeline_hmac(keys, row, place, of).map(|m| m.finalize().into_bytes().to_vec())
}

/// The statement [`put_timeline_row`] runs.
pub(crate) fn timeline_insert(tx: &Connection) -> Result<rusqlite::CachedStatement<'_>> {
    Ok(tx.prepare_cached(
        "INSERT INTO timeline (at, actor, action, node_id, edge_id, before_version, after_version, proposal, \
         commit_seq, mac) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?)
}

/// Inserts one timeline row with its MAC.
pub(crate) fn put_timeline_row(put: &mut rusqlite::Statement<'_>, r: &TimelineRow, mac: Option<Vec<u8>>) -> Result<()> {
    put.execute(params![
        r.at, r.actor, r.action, r.node, r.edge, r.before, r.after, r.proposal, r.commit, mac
    ])?;
    Ok(())
}

/// One timeline row of a person's action (`commit` when it made one).
pub(crate) fn note_action(tx: &Connection, keys: &Keyring, action: String, commit: Option<i64>) -> Result<()> {
    insert_timeline(
        tx,
        keys,
        &[TimelineRow {
            at: crate::model::Timestamp::now().0,
            actor: "human".into(),
            action,
            commit,
            ..Default::default()
        }],
    )
}

fn altered(what: String) -> Error {
    Error::integrity(
        what,
        "its MAC does not verify: written, deleted or altered outside Graphex; nothing is done with it \
         (see `graphex doctor`)",
    )
}

/// Refuses a `node_versions` row the master did not write, at the master
/// level (others cannot check it).
pub(crate) fn check_version(
    keys: &Keyring,
    id: &NodeId,
    version: i64,
    tier: i64,
    blob: &str,
    mac: Option<&[u8]>,
) -> Result<()> {
    let Some(m) = version_hmac(keys, id.as_bytes(), version, tier, blob) else {
        return Ok(());
    };
    match mac {
        Some(tag) if m.verify_slice(tag).is_ok() => Ok(()),
        _ => Err(altered(format!("the history row of node {id} version {version}"))),
    }
}

const TIMELINE_ROW: &str = "SELECT at, actor, action, node_id, edge_id, before_version, after_version, proposal, commit_seq, mac, seq \
     FROM timeline";

/// A timeline row's fields, from the first nine columns of a query that
/// selects them as [`TIMELINE_ROW`] does.
pub(crate) fn timeline_fields(r: &rusqlite::Row<'_>) -> rusqlite::Result<TimelineRow> {
    Ok(TimelineRow {
        at: r.get(0)?,
        actor: r.get(1)?,
        action: r.get(2)?,
        node: r.get(3)?,
        edge: r.get(4)?,
        before: r.get(5)?,
        after: r.get(6)?,
        proposal: r.get(7)?,
        commit: r.get(8)?,
    })
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRow> {
    Ok((timeline_fields(r)?, r.get(9)?, r.get(10)?))
}

/// Every timeline row of commit `commit`, in order (those a packed row
/// stands for, see `timeline_pack`), each stored row checked at the master
/// level (with the number of rows the commit stored).
pub(crate) fn commit_rows(conn: &Connection, keys: &Keyring, commit: i64) -> Result<Vec<TimelineRow>> {
    super::timeline_pack::unpack_all(commit_stored(conn, keys, commit)?.into_iter().map(|(_, row)| row))
}

/// The stored rows of commit `commit` and their numbers, in order, each
/// checked at the master level, not unpacked.
pub(crate) fn commit_stored(conn: &Connection, keys: &Keyring, commit: i64) -> Result<Vec<(i64, TimelineRow)>> {
    let rows = conn
        .prepare_cached(&format!("{TIMELINE_ROW} WHERE commit_seq = ?1 ORDER BY seq"))?
        .query_map([commit], read_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let of = rows.len();
    rows.into_iter()
        .enumerate()
        .map(|(i, (row, mac, seq))| check_timeline(keys, &row, i, of, mac.as_deref()).map(|()| (seq, row)))
        .collect()
}

/// Stored row `seq` as it is (packed or not) and its MAC.
pub(crate) fn stored_at(conn: &Connection, seq: i64) -> Result<Option<(TimelineRow, Option<Vec<u8>>)>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached(&format!("{TIMELINE_ROW} WHERE seq = ?1"))?
        .query_row([seq], |r| read_row(r).map(|(row, mac, _)| (row, mac)))
        .optional()?)
}

/// Refuses a stored timeline row whose MAC (over the row, its `place` among
/// the `of` stored rows of its commit) does not verify, at the master level.
pub(crate) fn check_timeline(
    keys: &Keyring,
    row: &TimelineRow,
    place: usize,
    of: usize,
    mac: Option<&[u8]>,
) -> Result<()> {
    let Some(m) = timeline_hmac(keys, row, place, of) else {
        return Ok(());
    };
    match mac {
        Some(tag) if m.verify_slice(tag).is_ok() => Ok(()),
        _ => Err(altered(match row.commit {
            Some(c) => format!("the timeline of commit {c}"),
            None => format!("the timeline row '{}'", row.action),
        })),
    }
}

type StoredRow = (TimelineRow, Option<Vec<u8>>, i64);

/// Each row's place among the rows of its commit, and their number (rows
/// in `seq` order; a row of no commit stands alone).
fn places(rows: &[StoredRow]) -> Vec<(usize, usize)> {
    let mut counts = std::collections::HashMap::<i64, usize>::new();
    for (row, _, _) in rows {
        if let Some(c) = row.commit {
            *counts.entry(c).or_default() += 1;
        }
    }
    let mut seen = std::collections::HashMap::<i64, usize>::new();
    rows.iter()
        .map(|(row, _, _)| match row.commit {
            Some(c) => {
                let place = seen.entry(c).or_default();
                *place += 1;
                (*place - 1, counts[&c])
            }
            None => (0, 1),
        })
        .collect()
}

/// Checks every history and timeline row (master level): `doctor`.
pub(crate) fn check_all(conn: &Connection, keys: &Keyring) -> Result<()> {
    if keys.seal().is_none() {
        return Ok(());
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT node_id, version, tier, {}, mac FROM node_versions",
        super::blob_name::BLOB_NAME
    ))?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id = super::row_node_id(super::blob(r, 0)?)?;
        let mac: Option<Vec<u8>> = r.get(4)?;
        check_version(keys, &id, r.get(1)?, r.get(2)?, &r.get::<_, String>(3)?, mac.as_deref())?;
    }
    rows_through(conn, keys, i64::MAX)?;
    for (id, tier, sealed, mac) in super::unlinked::rows(conn)? {
        check_unlinked(keys, &id, tier, &sealed, mac.as_deref())?;
    }
    Ok(())
}

/// Every timeline row up to stored row `seq` (included), in order (those a
/// packed row stands for, see `timeline_pack`), each stored row checked at
/// the master level. `seq` must end a commit (its last row), so that each
/// commit's rows are read whole.
pub(crate) fn rows_through(conn: &Connection, keys: &Keyring, seq: i64) -> Result<Vec<TimelineRow>> {
    let rows = conn
        .prepare(&format!("{TIMELINE_ROW} WHERE seq <= ?1 ORDER BY seq"))?
        .query_map([seq], read_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let places = places(&rows);
    let checked = rows
        .into_iter()
        .zip(places)
        .map(|((row, mac, _), (place, of))| check_timeline(keys, &row, place, of, mac.as_deref()).map(|()| row))
        .collect::<Result<Vec<_>>>()?;
    super::timeline_pack::unpack_all(checked)
}

/// Writes the MAC of every history and timeline row as they are (a store
/// sealed by `graphex seal`, whose rows predate these MACs).
pub(crate) fn mac_all(tx: &Connection, keys: &Keyring) -> Result<()> {
    mac_rows(tx, keys, false)
}

/// Writes the MAC of every history, timeline and removed-edge row that has
/// none (a merge's inserted and re-sealed rows); a timeline row's MAC
/// covers its place in its commit, so the rows of each commit that has a
/// row without one are all MAC'd again.
pub(crate) fn mac_missing(tx: &Connection, keys: &Keyring) -> Result<()> {
    mac_rows(tx, keys, true)
}

fn mac_rows(tx: &Connection, keys: &Keyring, only_missing: bool) -> Result<()> {
    let (versions, timeline) = if only_missing {
        (
            " WHERE mac IS NULL",
            " WHERE mac IS NULL OR commit_seq IN \
             (SELECT commit_seq FROM timeline WHERE mac IS NULL AND commit_seq IS NOT NULL)",
        )
    } else {
        ("", "")
    };
    let versions: Vec<(Vec<u8>, i64, i64, String)> = tx
        .prepare(&format!(
            "SELECT node_id, version, tier, {} FROM node_versions{versions}",
            super::blob_name::BLOB_NAME
        ))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut set = tx.prepare("UPDATE node_versions SET mac = ?3 WHERE node_id = ?1 AND version = ?2")?;
    for (id, version, tier, blob) in &versions {
        let mac = version_hmac(keys, id, *version, *tier, blob).map(|m| m.finalize().into_bytes().to_vec());
        set.execute(params![id, version, mac])?;
    }
    let rows = tx
        .prepare(&format!("{TIMELINE_ROW}{timeline} ORDER BY seq"))?
        .query_map([], read_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut set = tx.prepare("UPDATE timeline SET mac = ?2 WHERE seq = ?1")?;
    for ((row, _, seq), (place, of)) in rows.iter().zip(places(&rows)) {
        let mac = timeline_hmac(keys, row, place, of).map(|m| m.finalize().into_bytes().to_vec());
        set.execute(params![seq, mac])?;
    }
    let mut set = tx.prepare("UPDATE unlinked SET mac = ?2 WHERE edge_id = ?1")?;
    for (id, tier, sealed, mac) in super::unlinked::rows(tx)? {
        if !(only_missing && mac.is_some()) {
            set.execute(params![id, unlinked_mac(keys, &id, tier, &sealed)])?;
        }
    }
    Ok(())
}

/// The master's MAC on a merge conflict row: every field, so the other
/// branch's version a reviewer is shown is the one the merge found.
pub(crate) fn conflict_mac(keys: &Keyring, row: &super::merge_conflicts::ConflictRow) -> Option<Vec<u8>> {
    let mut m = hmac(keys, b"graphex/row-mac/merge-conflict/v1")?;
    for f in [
        Some(row.node.as_slice()),
        Some(row.theirs_id.as_slice()),
        Some(row.theirs_blob.as_bytes()),
        Some(row.branch.as_bytes()),
    ] {
        field(&mut m, f);
    }
    for n in [row.theirs_version, row.theirs_tier, row.commit, row.at] {
        m.update(&n.to_le_bytes());
    }
    field(&mut m, row.base_version.map(i64::to_le_bytes).as_ref().map(|b| &b[..]));
    Some(m.finalize().into_bytes().to_vec())
}

/// The master's MAC on the list of snapshot files merges retired (see
/// `merge`): `doctor` honours only a list the master wrote.
pub(crate) fn retired_mac(keys: &Keyring, list: &str) -> Option<String> {
    let mut m = hmac(keys, b"graphex/row-mac/retired-snapshots/v1")?;
    field(&mut m, Some(list.as_bytes()));
    Some(crate::crypto::hex(&m.finalize().into_bytes()))
}
