//! The other branch's audit records, appended by a merge: each sealed
//! again under its tier with its new sequence number (its associated data)
//! and chained after ours.

use rusqlite::{Connection, params};

use super::audit_chain::{AUDIT_DOMAIN as DOMAIN, audit_chain_hash as chain_hash};
use super::audit_head as head;
use crate::codec::associated_data;
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::Tier;

/// Appends the records of the attached database `schema` numbered after
/// `after` (the base's last record), inside the merge's transaction.
/// Returns how many were appended, and how many were left out because
/// this session does not hold their tier's key (or they fail it).
pub(crate) fn append_from(
    tx: &Connection,
    open_keys: &Keyring,
    keys: &Keyring,
    schema: &str,
    after: u64,
) -> Result<(u64, u64)> {
    type Row = (i64, i64, String, i64, Vec<u8>);
    // The other branch's whole chain is checked first: a record deleted,
    // altered or reordered there is refused, not chained anew.
    let altered = |seq: i64| {
        Error::integrity(
            format!("the other branch's audit record {seq}"),
            "its log was altered outside Graphex (see `graphex audit verify` there); nothing was merged",
        )
    };
    let all = super::audit_chain::chained(tx, schema)?;
    let mut prev_hash = super::AUDIT_ZERO.to_owned();
    for (i, row) in all.iter().enumerate() {
        if row.0 != i as i64 + 1 || super::audit_chain::follows(&prev_hash, row).is_none() {
            return Err(altered(row.0));
        }
        prev_hash = row.6.clone();
    }
    let rows: Vec<Row> = all
        .into_iter()
        .filter(|r| u64::try_from(r.0).unwrap_or(0) > after)
        .map(|(seq, at, kind, tier, sealed, _, _)| (seq, at, kind, tier, sealed))
        .collect();
    // Records ours holds already (an earlier merge brought them, under
    // other numbers): told by time, kind, tier and sealed length.
    let held: std::collections::HashSet<(i64, String, i64, usize)> = super::audit_chain::chained(tx, "main")?
        .into_iter()
        .map(|(_, at, kind, tier, sealed, _, _)| (at, kind, tier, sealed.len()))
        .collect();
    let (mut last, mut prev) = head(tx)?;
    let (mut appended, mut skipped) = (0u64, 0u64);
    let mut counts = [0u64; 4];
    for (old_seq, at, kind, code, sealed) in rows {
        if held.contains(&(at, kind.clone(), code, sealed.len())) {
            continue;
        }
        let Some(tier) = Tier::from_code(code) else {
            return Err(altered(old_seq));
        };
        let (Ok(opener), Ok(ciphers)) = (open_keys.tier(tier), keys.tier(tier)) else {
            // Sealed under a tier this session does not read: kept out,
            // and said so (the caller's note).
            skipped += 1;
            continue;
        };
        let old_ad = associated_data(DOMAIN, &[0; 16], u64::try_from(old_seq).unwrap_or(0), tier);
        let Ok(plain) = opener.index.open(&old_ad, &sealed) else {
            return Err(altered(old_seq));
        };
        let plain = zeroize::Zeroizing::new(plain);
        let seq = last + 1;
        let sealed = ciphers
            .index
            .seal(&associated_data(DOMAIN, &[0; 16], seq, tier), &plain)?;
        let hash = chain_hash(&prev, seq, at, &kind, tier, &sealed);
        tx.execute(
            "INSERT INTO main.audit (seq, at, kind, tier, sealed, prev, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                i64::try_from(seq).unwrap_or(i64::MAX),
                at,
                kind,
                code,
                sealed,
                prev,
                hash
            ],
        )?;
        counts[usize::from(tier.code())] += 1;
        (last, prev) = (seq, hash);
        appended += 1;
    }
    if appended > 0 {
        tx.execute(
            "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('audit_head', ?1)",
            [format!("{last}:{prev}")],
        )?;
        crate::store::count_sealings(tx, counts)?;
    }
    Ok((appended, skipped))
}
