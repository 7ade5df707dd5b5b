//! Edges removed by `unlink`, kept so that `undo` can put them back.
//!
//! An edge row holds the whole edge sealed; once removed, nothing else
//! does. Its record is kept in `unlinked`, sealed as the row was (under the
//! edge's tier, bound to its id and tier) with the master's MAC over it
//! (see `rowmac`). The copy obeys what the index row would: raising the
//! tier of one of its ends re-seals it under the new tier, and a key
//! rotation re-seals it under the new key, so no copy readable with an
//! older or lower key stays behind. Putting the edge back deletes its row.

use rusqlite::{Connection, OptionalExtension, params};

use crate::codec::{self, Interner};
use crate::error::{Error, Result};
use crate::keys::{Keyring, TierCiphers};
use crate::model::{Edge, EdgeId, NodeId, Tier};

/// One stored row: id, tier code, sealed record, MAC.
pub(super) type Row = (Vec<u8>, i64, Vec<u8>, Option<Vec<u8>>);

/// Every row, as stored (for `doctor` and `seal`).
pub(crate) fn rows(conn: &Connection) -> Result<Vec<Row>> {
    Ok(conn
        .prepare("SELECT edge_id, tier, sealed, mac FROM unlinked")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?)
}

/// Keeps `edge` (as it was when removed), inside the commit's transaction.
pub(crate) fn keep(tx: &Connection, keys: &Keyring, edge: &Edge) -> Result<()> {
    let sealed = codec::seal_edge(keys, edge)?;
    let id = edge.id.as_bytes().as_slice();
    let tier = i64::from(edge.tier.code());
    tx.prepare_cached("INSERT OR REPLACE INTO unlinked (edge_id, tier, sealed, mac) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![
            id,
            tier,
            sealed,
            super::rowmac::unlinked_mac(keys, id, tier, &sealed)
        ])?;
    Ok(())
}

/// Forgets the kept record of `id` (the edge is back in the index).
pub(crate) fn forget(tx: &Connection, id: &EdgeId) -> Result<()> {
    tx.prepare_cached("DELETE FROM unlinked WHERE edge_id = ?1")?
        .execute([id.as_bytes().as_slice()])?;
    Ok(())
}

/// The kept record of the removed edge `id`, checked against the master's
/// MAC (master level) and opened; `None` when none is kept.
pub(crate) fn read(conn: &Connection, keys: &Keyring, id: &EdgeId) -> Result<Option<Edge>> {
    let row: Option<(i64, Vec<u8>, Option<Vec<u8>>)> = conn
        .prepare_cached("SELECT tier, sealed, mac FROM unlinked WHERE edge_id = ?1")?
        .query_row([id.as_bytes().as_slice()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((tier, sealed, mac)) = row else {
        return Ok(None);
    };
    super::rowmac::check_unlinked(keys, id.as_bytes(), tier, &sealed, mac.as_deref())?;
    let tier = super::row_tier(tier)?;
    codec::open_edge(keys, id, tier, &sealed, &mut Interner::default()).map(Some)
}

/// Re-seals, under `tier`, the kept edges touching `node` that are below
/// it (the node's tier was raised). Returns how many.
pub(crate) fn raise(tx: &Connection, keys: &Keyring, node: &NodeId, tier: Tier) -> Result<u64> {
    let below: Vec<Vec<u8>> = tx
        .prepare_cached("SELECT edge_id FROM unlinked WHERE tier < ?1")?
        .query_map([tier.code()], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut n = 0;
    for bytes in below {
        let id = super::row_edge_id(&bytes)?;
        let Some(edge) = read(tx, keys, &id)? else { continue };
        if edge.from == *node || edge.to == *node {
            keep(tx, keys, &Edge { tier, ..edge })?;
            n += 1;
        }
    }
    Ok(n)
}

/// Re-seals the kept edges of `tier` from the `old` key to the `new` one
/// (a key rotation; `keys` still holds the old key). Returns how many.
pub(crate) fn rekey(tx: &Connection, keys: &Keyring, old: &TierCiphers, new: &TierCiphers, tier: Tier) -> Result<u64> {
    let code = i64::from(tier.code());
    let rows: Vec<Row> = rows(tx)?.into_iter().filter(|r| r.1 == code).collect();
    let mut set = tx.prepare("UPDATE unlinked SET sealed = ?2, mac = ?3 WHERE edge_id = ?1")?;
    for (bytes, _, sealed, mac) in &rows {
        super::rowmac::check_unlinked(keys, bytes, code, sealed, mac.as_deref())?;
        let id = super::row_edge_id(bytes)?;
        let what = || format!("kept record of removed edge {id}");
        let sealed = codec::reseal(old, new, &codec::edge_ad(&id, tier), sealed, &what)?;
        set.execute(params![
            bytes,
            sealed,
            super::rowmac::unlinked_mac(keys, bytes, code, &sealed)
        ])?;
    }
    Ok(rows.len() as u64)
}

/// The error when the kept record of `id` is missing.
pub(crate) fn missing(id: &EdgeId) -> Error {
    Error::UndoBlocked(format!(
        "the removed edge {id} was not kept (removed outside Graphex, or before this version)"
    ))
}
