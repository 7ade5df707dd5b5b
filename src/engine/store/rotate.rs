//! Key rotation: a tier's key replaced by a new one, and everything sealed
//! under the old key sealed again under the new, in one commit.
//!
//! Under the new key: every data key of the tier's blobs (current and past
//! versions; the payloads stay as they are, in new blob files), every
//! summary and edge row, every audit record sealed under the tier, and the
//! decisions when the tier is theirs. The tier's snapshot is dropped and
//! rebuilt, its manifest group recomputed under the new key (after the old
//! one is verified, so nothing altered is vouched for anew), and its
//! sealing count starts again. The key files move into place only after
//! the commit (see `keys::rotation` for the crash-safety argument); the old
//! blob files are removed and the WAL truncated, so the store keeps nothing
//! the old key opens. Copies outside the store (backups, git history) are
//! of course not reached.

use std::collections::HashMap;

use age::secrecy::SecretString;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

use super::objects::Durability;
use super::{Store, manifest, row_node_id, row_version, schema, sql_version};
use crate::codec;
use crate::error::{Error, Result};
use crate::keys::rotation::{self, Staged};
use crate::keys::{KdfCost, KeyPaths, Keyring, Level, TierCiphers};
use crate::model::{EdgeId, NodeId, Tier};

/// What a rotation re-sealed.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Rotated {
    pub tier: Tier,
    /// The tier key's version after the rotation (the first key is 1).
    pub key_version: u64,
    /// Blob files rewrapped (current and past node versions).
    pub blobs: u64,
    pub summaries: u64,
    pub edges: u64,
    pub audit_records: u64,
    pub decisions: u64,
    /// Files left by an earlier rotation that never committed, removed.
    pub stale_files_removed: usize,
}

/// How many hex digits of the new key's commitment a rotation's timeline
/// row names (128 bits).
pub(crate) const ROTATION_KEY_HEX: usize = 32;

/// The marker a committed rotation leaves until its key files are in place:
/// the tier and the keyring's commitment to the new key.
const MARKER: &str = "rotation";

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

/// Threads rewrapping blobs at once.
const REWRAP_THREADS: usize = 4;

/// Whether the index records `staged`'s key as the tier's current one: the
/// rotation committed (whatever an error said).
fn committed(conn: &Connection, staged: &Staged) -> bool {
    schema::meta(conn, &format!("key_commit:{}", staged.tier.code()))
        .is_ok_and(|c| c.as_deref() == Some(staged.commitment.as_str()))
}

/// One blob to rewrap.
struct Blob {
    node: NodeId,
    version: u64,
    old_hash: String,
    new_hash: String,
}

impl Store {
    /// Replaces `tier`'s key with a new one and re-seals everything the old
    /// key sealed (see the module documentation). Needs the master level,
    /// and for the human-only tier the human level and its passphrase
    /// (`human`), which seals the new key file. Resumable: a crash before
    /// the commit leaves the old key in force, one after it is finished by
    /// the next open.
    pub fn rotate_key(&mut self, tier: Tier, human: Option<&SecretString>, cost: KdfCost) -> Result<Rotated> {
        self.require_writer("rotating a key")?;
        if !self.keys.reads(tier) {
            return Err(self.keys.needs(Level::Human, "rotating the human-only key"));
        }
        if tier == Tier::HumanOnly && human.is_none() {
            return Err(Error::MissingSecret(
                "rotating the human-only key needs the human passphrase (GRAPHEX_HUMAN_PASSPHRASE), \
                 which seals the new key file"
                    .into(),
            ));
        }
        let paths = self.layout.keys();
        let _lock = rotation::lock(&paths, false)?;
        // Under the lock: a committed rotation is finished first, and only
        // then are staged files known to be leftovers.
        if let Some((done, _)) = marker(&self.conn)? {
            rotation::finish(&paths, done)?;
        }
        // The keyring as it is now, not as this session opened it: another
        // process may have rotated a tier since (one this session may not
        // even hold), and the new keyring file is built from this one.
        self.keys.reverify(&paths)?;
        if let Some(moved) = self.keys.stale_tier() {
            return Err(Error::KeyRotated(moved));
        }
        clear_marker(&self.conn, &self.keys, &paths)?;
        let stale_files_removed = rotation::discard(&paths)?;
        self.refresh()?;
        let audit = self.audit_verify()?;
        if !audit.ok {
            return Err(Error::Rotation(format!(
                "the audit log fails verification ({}); re-chaining it would hide that: see `graphex audit verify`",
                audit.problems.join("; ")
            )));
        }
        let staged = rotation::stage(&paths, &self.keys, tier, human, cost)?;
        let mut done = match self.rekey(&staged) {
            Ok(done) => done,
            Err(e) => {
                // Once committed, the staged files are the keys the index
                // needs: an error after the commit (or a commit reported as
                // failed that landed) must keep them for the next open.
                if !committed(&self.conn, &staged) {
                    let _ = rotation::discard(&paths);
                }
                return Err(e);
            }
        };
        self.fault_point("rotate-after-commit")?;
        rotation::finish(&paths, tier)?;
        self.keys.reverify(&paths)?;
        clear_marker(&self.conn, &self.keys, &paths)?;
        self.load_verified()?;
        // A failed rebuild leaves no snapshot: opening reads the rows.
        let _ = self.refresh_snapshots(true);
        done.stale_files_removed = stale_files_removed;
        Ok(done)
    }

    /// Re-seals the tier under the staged key and commits.
    fn rekey(&mut self, staged: &Staged) -> Result<Rotated> {
        let tier = staged.tier;
        let new = TierCiphers::from_key(&staged.key);
        let blobs = self.rewrap_blobs(tier, &new)?;
        let cleanup = |store: &Store| {
            for b in &blobs {
                let _ = store.objects.remove(&b.new_hash);
            }
        };
        if let Err(e) = self.fault_point("rotate-after-blobs") {
            cleanup(self);
            return Err(e);
        }
        let (seq, version, counts, dropped) = match self.commit_rekey(staged, &new, &blobs) {
            Ok(c) => c,
            Err(e) => {
                if !committed(&self.conn, staged) {
                    cleanup(self);
                }
                return Err(e);
            }
        };
        self.seen_seq = seq;
        // Committed: what follows is clean-up and must not fail the rotation.
        for hash in blobs.iter().map(|b| &b.old_hash).chain(&dropped) {
            let _ = self.objects.remove(hash);
        }
        self.purge_wal();
        self.fault_point("rotate-after-tx")?;
        Ok(Rotated {
            tier,
            key_version: version,
            blobs: blobs.len() as u64,
            summaries: counts[0],
            edges: counts[1],
            audit_records: counts[2],
            decisions: counts[3],
            stale_files_removed: 0,
        })
    }

    /// Writes every blob of `tier` (current and past versions) with its data
    /// key rewrapped under `new`, synced, before the index changes.
    fn rewrap_blobs(&self, tier: Tier, new: &TierCiphers) -> Result<Vec<Blob>> {
        let old = self.keys.tier(tier)?;
        let mut found: HashMap<String, (NodeId, u64)> = HashMap::new();
        for sql in [
            "SELECT node_id, version, blob FROM node_versions WHERE tier = ?1",
            "SELECT id, version, blob FROM nodes WHERE tier = ?1",
        ] {
            let mut stmt = self.conn.prepare(sql)?;
            let mut rows = stmt.query([tier.code()])?;
            while let Some(r) = rows.next()? {
                let id = row_node_id(super::blob(r, 0)?)?;
                found.insert(r.get(2)?, (id, row_version(r.get(1)?)?));
            }
        }
        let found: Vec<(String, (NodeId, u64))> = found.into_iter().collect();
        let objects = &self.objects;
        let one = |(old_hash, (node, version)): &(String, (NodeId, u64))| -> Result<Blob> {
            let bytes = codec::rewrap(old, new, node, *version, tier, &objects.read(old_hash)?)?;
            Ok(Blob {
                node: *node,
                version: *version,
                old_hash: old_hash.clone(),
                new_hash: objects.write(&bytes, Durability::Deferred)?,
            })
        };
        // File reads and writes wait on the disk more than on the CPU: a few
        // threads overlap them.
        let chunk = found.len().div_ceil(REWRAP_THREADS).max(1);
        let parts: Vec<Result<Vec<Blob>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = found
                .chunks(chunk)
                .map(|c| scope.spawn(move || c.iter().map(one).collect::<Result<Vec<_>>>()))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::integrity("key rotation", "a rewrap thread failed")))
                })
                .collect()
        });
        let mut out = Vec::with_capacity(found.len());
        let mut failed = None;
        for part in parts {
            match part {
                Ok(blobs) => out.extend(blobs),
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        if let Some(e) = failed {
            for b in &out {
                let _ = self.objects.remove(&b.new_hash);
            }
            return Err(e);
        }
        self.objects.sync_files(out.iter().map(|b| b.new_hash.as_str()))?;
        Ok(out)
    }

    /// The rotation's one transaction. Returns its commit, the new key
    /// version, the records re-sealed (summaries, edges, audit records,
    /// decisions) and the snapshot files it dropped.
    fn commit_rekey(
        &mut self,
        staged: &Staged,
        new: &TierCiphers,
        blobs: &[Blob],
    ) -> Result<(u64, u64, [u64; 4], Vec<String>)> {
        let tier = staged.tier;
        let fault = self.fault_point("rotate-before-commit");
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if schema::commit_seq(&tx)? != self.seen_seq {
            return Err(Error::Stale);
        }
        // Verified under the old key inside this transaction: rows altered
        // outside Graphex are refused, not vouched for under the new key.
        manifest::verify(&tx, &self.keys)?;
        // Under the write lock no orphan collection runs: the new files are
        // there now, and stay.
        if let Some(gone) = blobs.iter().find(|b| !self.objects.exists(&b.new_hash)) {
            return Err(Error::integrity(
                format!("blob {}", gone.new_hash),
                "a rewrapped blob was removed before the rotation committed (orphan collection?); \
                 nothing changed: rotate again",
            ));
        }
        let old = self.keys.tier(tier)?;
        let seq = schema::next_commit_seq(&tx)?;
        let row_seq = sql_version(seq);
        let code = tier.code();
        let mut counts = [0u64; 4];
        {
            let mut set_blob =
                tx.prepare("UPDATE node_versions SET blob = ?3, mac = ?4 WHERE node_id = ?1 AND version = ?2")?;
            for b in blobs {
                set_blob.execute(params![
                    b.node.as_bytes().as_slice(),
                    sql_version(b.version),
                    b.new_hash,
                    super::rowmac::version_mac(&self.keys, &b.node, sql_version(b.version), tier, &b.new_hash)
                ])?;
            }
            let new_hash: HashMap<&str, &str> = blobs
                .iter()
                .map(|b| (b.old_hash.as_str(), b.new_hash.as_str()))
                .collect();
            let nodes: Vec<(Vec<u8>, i64, String, Vec<u8>)> = tx
                .prepare("SELECT id, version, blob, summary FROM nodes WHERE tier = ?1")?
                .query_map([code], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let mut set_node =
                tx.prepare("UPDATE nodes SET blob = ?2, summary = ?3, digest = ?4, seq = ?5 WHERE id = ?1")?;
            for (id, version, blob, summary) in nodes {
                let node = row_node_id(&id)?;
                let what = || format!("index row of node {node}");
                let ad = codec::summary_ad(&node, row_version(version)?, tier);
                let sealed = codec::reseal(old, new, &ad, &summary, &what)?;
                let blob = new_hash
                    .get(blob.as_str())
                    .ok_or_else(|| Error::integrity(what(), "its blob was not rewrapped"))?;
                set_node.execute(params![id, blob, sealed, manifest::digest(&sealed).as_slice(), row_seq])?;
                counts[0] += 1;
            }
            let edges: Vec<(Vec<u8>, Vec<u8>)> = tx
                .prepare("SELECT id, sealed FROM edges WHERE tier = ?1")?
                .query_map([code], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let mut set_edge = tx.prepare("UPDATE edges SET sealed = ?2, digest = ?3, seq = ?4 WHERE id = ?1")?;
            for (id, sealed) in edges {
                let edge = EdgeId(super::uuid_from(&id)?);
                let what = || format!("edge {edge}");
                let sealed = codec::reseal(old, new, &codec::edge_ad(&edge, tier), &sealed, &what)?;
                set_edge.execute(params![id, sealed, manifest::digest(&sealed).as_slice(), row_seq])?;
                counts[1] += 1;
            }
            counts[1] += super::unlinked::rekey(&tx, &self.keys, old, new, tier)?;
            counts[2] = super::audit_chain::rekey(&tx, old, new, tier)?;
            if tier == codec::DECISION_TIER {
                counts[3] = rekey_decisions(&tx, &self.keys, old, new)?;
            }
        }
        // The tier's snapshot is sealed under the old key; the public one
        // carries a MAC under the agent-readable key.
        let mut dropped = Vec::new();
        {
            let mut drop_snapshot = tx.prepare("DELETE FROM snapshots WHERE tier = ?1 RETURNING blob")?;
            let mut tiers = vec![tier];
            if tier == Tier::AgentReadable {
                tiers.push(Tier::Public);
            }
            for t in tiers {
                dropped.extend(
                    drop_snapshot
                        .query_row([t.code()], |r| r.get::<_, String>(0))
                        .optional()?,
                );
            }
        }
        let version = key_version(&tx, tier)? + 1;
        let sealings = blobs.len() as u64 + counts.iter().sum::<u64>();
        for (key, value) in [
            (MARKER.to_owned(), format!("{code} {}", staged.commitment)),
            (format!("key_version:{code}"), version.to_string()),
            (format!("key_commit:{code}"), staged.commitment.clone()),
            (format!("sealings:{code}"), sealings.to_string()),
            // Old-key pages go from the WAL even if this process dies next.
            ("purge_owed".to_owned(), "1".to_owned()),
        ] {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )?;
        }
        // The new key's commitment (its first half) in the master's MAC'd
        // row: what a merge checks the other branch's key files against.
        let key = staged.commitment.get(..ROTATION_KEY_HEX).unwrap_or(&staged.commitment);
        super::rowmac::note_action(
            &tx,
            &self.keys,
            format!("rotate-key {tier} v{version} key {key}"),
            Some(row_seq),
        )?;
        // The new key from here on; the old one back if the commit fails.
        let old_key = self.keys.put(tier, &staged.key);
        let result = manifest::rebuild(&tx, &self.keys, tier)
            .and_then(|()| super::seal::rebuild(&tx, &self.keys, seq, &[]))
            .and(fault)
            .and_then(|()| tx.commit().map_err(Error::from));
        if let Err(e) = result {
            self.keys.restore(tier, old_key);
            return Err(e);
        }
        self.note_fresh();
        Ok((seq, version, counts, dropped))
    }
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
