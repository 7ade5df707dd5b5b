//! The key versions the index records (which key seals each tier now,
//! and an interrupted rotation's marker), read at every open; and the
//! re-sealing of the decisions under a new key. The rotation itself is the
//! `rotate` module's, over `store::kit`.

use rusqlite::{Connection, params};

use super::schema;
use crate::codec;
use crate::error::{Error, Result};
use crate::keys::rotation;
use crate::keys::{KeyPaths, Keyring, Level, TierCiphers};
use crate::model::Tier;

/// How many hex digits of the new key's commitment a rotation's timeline
/// row names (128 bits).
pub(crate) const ROTATION_KEY_HEX: usize = 32;

/// The marker a committed rotation leaves until its key files are in place:
/// the tier and the keyring's commitment to the new key.
pub(crate) const MARKER: &str = "rotation";

/// The marker, if a rotation committed and its files may not be in place.
pub(crate) fn marker(conn: &Connection) -> Result<Option<(Tier, String)>> {
    let Some(value) = schema::meta(conn, MARKER)? else {
        return Ok(None);
    };
    let parsed = value
        .split_once(' ')
        .and_then(|(code, commit)| Some((Tier::from_code(code.parse().ok()?)?, commit.to_owned())));
    parsed
        .map(Some)
        .ok_or_else(|| Error::integrity("the rotation marker", format!("{value:?} is malformed")))
}

/// A tier key's version: 1 until its first rotation.
pub(crate) fn key_version(conn: &Connection, tier: Tier) -> Result<u64> {
    let v = schema::meta(conn, &format!("key_version:{}", tier.code()))?;
    Ok(v.and_then(|v| v.parse().ok()).unwrap_or(1))
}

/// The first tier whose key this session holds is not the one the index
/// was last sealed under (recorded at each rotation).
pub(crate) fn retired_key(conn: &Connection, keys: &Keyring) -> Result<Option<Tier>> {
    for tier in Tier::ALL {
        let Some(held) = keys.commitment(tier) else { continue };
        let current = schema::meta(conn, &format!("key_commit:{}", tier.code()))?;
        if current.is_some_and(|c| c != held) {
            return Ok(Some(tier));
        }
    }
    Ok(None)
}

/// Before unlocking: moves the key files of a committed rotation into
/// place, under the rotation lock (re-reading the marker once it is held).
pub(crate) fn finish_files(conn: &Connection, paths: &KeyPaths) -> Result<()> {
    match marker(conn)? {
        // Nothing staged: the files are in place (the marker clears at the
        // next master-level open), and a read-only keys/ is fine.
        Some((tier, _)) if paths.staged(tier).exists() || paths.auth_staged().exists() => {}
        _ => return Ok(()),
    }
    let _lock = rotation::lock(paths, true)?;
    if let Some((tier, _)) = marker(conn)? {
        rotation::finish(paths, tier)?;
    }
    Ok(())
}

/// After unlocking at the master level: clears the marker once the keyring
/// commits to the key it names; a keyring that does not means the staged
/// files were lost, and the store cannot be read.
pub(crate) fn clear_marker(conn: &Connection, keys: &Keyring, paths: &KeyPaths) -> Result<()> {
    let Some((tier, commit)) = marker(conn)? else {
        return Ok(());
    };
    let Some(auth) = keys.verified_auth().filter(|_| keys.level() >= Level::Master) else {
        return Ok(());
    };
    if auth.commitment(tier) != commit {
        return Err(Error::Rotation(format!(
            "the index was re-sealed under a new {tier} key, but {} does not hold it and {} is gone: \
             restore both from the rotation's staging (or a backup of keys/)",
            paths.tier(tier).display(),
            paths.staged(tier).display()
        )));
    }
    conn.execute(
        "DELETE FROM meta WHERE key = ?1 AND value = ?2",
        params![MARKER, format!("{} {commit}", tier.code())],
    )?;
    Ok(())
}

pub(crate) fn rekey_decisions(tx: &Connection, keys: &Keyring, old: &TierCiphers, new: &TierCiphers) -> Result<u64> {
    let rows = super::seal::decision_rows(tx, None)?;
    let mut set = tx.prepare("UPDATE decisions SET sealed = ?2, sig = ?3 WHERE proposal = ?1")?;
    for d in &rows {
        let what = || format!("decision on proposal {}", d.proposal);
        let sealed: Vec<u8> = tx.query_row("SELECT sealed FROM decisions WHERE proposal = ?1", [&d.proposal], |r| {
            r.get(0)
        })?;
        let sealed = codec::reseal(old, new, &codec::decision_ad(&d.proposal), &sealed, &what)?;
        // Signed again: the signature covers the sealed bytes.
        let key = super::seal::DecisionKey {
            digest: super::manifest::digest(&sealed),
            ..d.clone()
        };
        set.execute(params![d.proposal, sealed, super::seal::sign_decision(keys, &key)?])?;
    }
    Ok(rows.len() as u64)
}
