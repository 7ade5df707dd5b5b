//! The audit log's chain as the store keeps it: the table's rows, their
//! hash chain, and what a key rotation or a merge does to them inside the
//! store's own transactions. What a record says (its format, replay,
//! verification for people) is the `audit` module's.

use rusqlite::params;
use sha2::{Digest, Sha256};

use super::AUDIT_ZERO as ZERO;
use crate::codec::associated_data;
use crate::error::{Error, Result};
use crate::model::Tier;

/// The associated-data domain of a sealed audit record.
pub const AUDIT_DOMAIN: &[u8] = b"graphex/audit/v1";
use AUDIT_DOMAIN as DOMAIN;

/// The hash of one record, chained to the one before it.
pub fn audit_chain_hash(prev: &str, seq: u64, at: i64, kind: &str, tier: Tier, sealed: &[u8]) -> String {
    // Every field length-prefixed: no bytes can move from one field to the next.
    let mut h = Sha256::new();
    for field in [
        prev.as_bytes(),
        &seq.to_le_bytes(),
        &at.to_le_bytes(),
        kind.as_bytes(),
        &[tier.code()],
        sealed,
    ] {
        h.update((field.len() as u64).to_le_bytes());
        h.update(field);
    }
    crate::crypto::hex(&h.finalize())
}

/// An audit row as stored: seq, at, kind, tier code, sealed record, the
/// previous record's hash and its own.
pub(crate) type Chained = (i64, i64, String, i64, Vec<u8>, String, String);

/// Every audit row of `schema` (`main`, or an attached branch's), in order.
pub(crate) fn chained(tx: &rusqlite::Connection, schema: &str) -> Result<Vec<Chained>> {
    Ok(tx
        .prepare(&format!(
            "SELECT seq, at, kind, tier, sealed, prev, hash FROM {schema}.audit ORDER BY seq"
        ))?
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?)
}

/// The tier of `row` when it follows the record whose hash is `prev` and
/// its own hash matches its content; `None` for a link broken or altered.
pub(crate) fn follows(prev: &str, row: &Chained) -> Option<Tier> {
    let (seq, at, kind, code, sealed, stored_prev, hash) = row;
    let tier = Tier::from_code(*code)?;
    let n = u64::try_from(*seq).ok()?;
    (stored_prev == prev && audit_chain_hash(prev, n, *at, kind, tier, sealed) == *hash).then_some(tier)
}

/// Re-seals every record sealed under `tier` from `old` to `new` (a key
/// rotation, inside its transaction), and chains the log again from the
/// first record that changed: its sealed bytes are part of every later
/// hash. Returns how many records were re-sealed.
pub(crate) fn rekey(
    tx: &rusqlite::Connection,
    old: &crate::keys::TierCiphers,
    new: &crate::keys::TierCiphers,
    tier: Tier,
) -> Result<u64> {
    let rows = chained(tx, "main")?;
    let mut update = tx.prepare("UPDATE audit SET sealed = ?2, prev = ?3, hash = ?4 WHERE seq = ?1")?;
    // The chain as stored is checked on the way, inside the transaction:
    // nothing altered since the rotation began is chained anew.
    let altered = |seq: i64| {
        Error::integrity(
            format!("audit record {seq}"),
            "the log was altered outside Graphex (see `graphex audit verify`); nothing was rotated",
        )
    };
    let (mut old_prev, mut prev, mut changed, mut resealed) = (ZERO.to_owned(), ZERO.to_owned(), false, 0u64);
    let (mut old_head, mut head) = (None, None);
    for row in rows {
        let record_tier = follows(&old_prev, &row).ok_or_else(|| altered(row.0))?;
        let (seq, at, kind, _, sealed, _, stored_hash) = row;
        let n = u64::try_from(seq).unwrap_or(0);
        old_head = Some(format!("{n}:{stored_hash}"));
        old_prev = stored_hash;
        let sealed = if record_tier == tier {
            changed = true;
            resealed += 1;
            let ad = associated_data(DOMAIN, &[0; 16], n, tier);
            let plain = zeroize::Zeroizing::new(old.index.open(&ad, &sealed).map_err(|_| altered(seq))?);
            new.index.seal(&ad, &plain)?
        } else {
            sealed
        };
        let hash = audit_chain_hash(&prev, n, at, &kind, record_tier, &sealed);
        if changed {
            update.execute(params![seq, sealed, prev, hash])?;
        }
        head = Some(format!("{n}:{hash}"));
        prev = hash;
    }
    let stored_head = super::meta(tx, "audit_head")?;
    if stored_head != old_head {
        return Err(Error::integrity(
            "the audit log",
            "its newest records were removed outside Graphex (see `graphex audit verify`); nothing was rotated",
        ));
    }
    if changed && let Some(head) = head {
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('audit_head', ?1)",
            [head],
        )?;
    }
    Ok(resealed)
}
