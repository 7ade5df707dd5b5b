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

use crate::store::kit::blob_name::{BLOB_NAME, stored};
use std::collections::HashMap;

use age::secrecy::SecretString;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

use crate::codec;
use crate::error::{Error, Result};
use crate::keys::rotation::{self, Staged};
use crate::keys::{KdfCost, Level, TierCiphers};
use crate::model::{EdgeId, NodeId, Tier};
use crate::store::kit::rotate::{MARKER, ROTATION_KEY_HEX, clear_marker, key_version, marker, rekey_decisions};
use crate::store::kit::{audit_chain, manifest, rowmac, schema, seal, unlinked};
use crate::store::{Durability, Store, row_node_id, row_version, sql_version};

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
        if !self.keys().reads(tier) {
            return Err(self.keys().needs(Level::Human, "rotating the human-only key"));
        }
        if tier == Tier::HumanOnly && human.is_none() {
            return Err(Error::MissingSecret(
                "rotating the human-only key needs the human passphrase (GRAPHEX_HUMAN_PASSPHRASE), \
                 which seals the new key file"
                    .into(),
            ));
        }
        let paths = self.layout().keys();
        let _lock = rotation::lock(&paths, false)?;
        // Under the lock: a committed rotation is finished first, and only
        // then are staged files known to be leftovers.
        if let Some((done, _)) = marker(self.conn())? {
            rotation::finish(&paths, done)?;
        }
        // The keyring as it is now, not as this session opened it: another
        // process may have rotated a tier since (one this session may not
        // even hold), and the new keyring file is built from this one.
        self.keys_mut().reverify(&paths)?;
        if let Some(moved) = self.keys().stale_tier() {
            return Err(Error::KeyRotated(moved));
        }
        clear_marker(self.conn(), self.keys(), &paths)?;
        let stale_files_removed = rotation::discard(&paths)?;
        self.refresh()?;
        let audit = self.audit_verify()?;
        if !audit.ok {
            return Err(Error::Rotation(format!(
                "the audit log fails verification ({}); re-chaining it would hide that: see `graphex audit verify`",
                audit.problems.join("; ")
            )));
        }
        let staged = rotation::stage(&paths, self.keys(), tier, human, cost)?;
        let mut done = match self.rekey(&staged) {
            Ok(done) => done,
            Err(e) => {
                // Once committed, the staged files are the keys the index
                // needs: an error after the commit (or a commit reported as
                // failed that landed) must keep them for the next open.
                if !committed(self.conn(), &staged) {
                    let _ = rotation::discard(&paths);
                }
                return Err(e);
            }
        };
        self.fault_point("rotate-after-commit")?;
        rotation::finish(&paths, tier)?;
        self.keys_mut().reverify(&paths)?;
        clear_marker(self.conn(), self.keys(), &paths)?;
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
                let _ = store.objects().remove(&b.new_hash);
            }
        };
        if let Err(e) = self.fault_point("rotate-after-blobs") {
            cleanup(self);
            return Err(e);
        }
        let (seq, version, counts, dropped) = match self.commit_rekey(staged, &new, &blobs) {
            Ok(c) => c,
            Err(e) => {
                if !committed(self.conn(), staged) {
                    cleanup(self);
                }
                return Err(e);
            }
        };
        self.set_seen_seq(seq);
        // Committed: what follows is clean-up and must not fail the rotation.
        for hash in blobs.iter().map(|b| &b.old_hash).chain(&dropped) {
            let _ = self.objects().remove(hash);
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
        let old = self.keys().tier(tier)?;
        let mut found: HashMap<String, (NodeId, u64)> = HashMap::new();
        for table in ["node_versions", "nodes"] {
            let id = if table == "nodes" { "id" } else { "node_id" };
            let mut stmt = self.conn().prepare(&format!(
                "SELECT {id}, version, {BLOB_NAME} FROM {table} WHERE tier = ?1"
            ))?;
            let mut rows = stmt.query([tier.code()])?;
            while let Some(r) = rows.next()? {
                let id = row_node_id(crate::store::blob(r, 0)?)?;
                found.insert(r.get(2)?, (id, row_version(r.get(1)?)?));
            }
        }
        let found: Vec<(String, (NodeId, u64))> = found.into_iter().collect();
        let objects = self.objects();
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
                let _ = self.objects().remove(&b.new_hash);
            }
            return Err(e);
        }
        self.objects().sync_files(out.iter().map(|b| b.new_hash.as_str()))?;
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
        let seen = self.seen_seq();
        let (keys, conn, objects) = self.rekey_parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if schema::commit_seq(&tx)? != seen {
            return Err(Error::Stale);
        }
        // Verified under the old key inside this transaction: rows altered
        // outside Graphex are refused, not vouched for under the new key.
        manifest::check(&tx, &*keys)?;
        // Under the write lock no orphan collection runs: the new files are
        // there now, and stay.
        if let Some(gone) = blobs.iter().find(|b| !objects.exists(&b.new_hash)) {
            return Err(Error::integrity(
                format!("blob {}", gone.new_hash),
                "a rewrapped blob was removed before the rotation committed (orphan collection?); \
                 nothing changed: rotate again",
            ));
        }
        let old = keys.tier(tier)?;
        let seq = schema::next_commit_seq(&tx)?;
        let row_seq = sql_version(seq);
        let code = tier.code();
        let mut counts = [0u64; 4];
        {
            let binary = crate::store::kit::schema::grouped(&tx)?;
            let mut set_blob =
                tx.prepare("UPDATE node_versions SET blob = ?3, mac = ?4 WHERE node_id = ?1 AND version = ?2")?;
            for b in blobs {
                set_blob.execute(params![
                    b.node.as_bytes().as_slice(),
                    sql_version(b.version),
                    stored(binary, &b.new_hash),
                    rowmac::version_mac(&*keys, &b.node, sql_version(b.version), tier, &b.new_hash)
                ])?;
            }
            let new_hash: HashMap<&str, &str> = blobs
                .iter()
                .map(|b| (b.old_hash.as_str(), b.new_hash.as_str()))
                .collect();
            let nodes: Vec<(Vec<u8>, i64, String, Vec<u8>)> = tx
                .prepare(&format!(
                    "SELECT id, version, {BLOB_NAME}, summary FROM nodes WHERE tier = ?1"
                ))?
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
                set_node.execute(params![
                    id,
                    stored(binary, blob),
                    sealed,
                    manifest::digest(&sealed).as_slice(),
                    row_seq
                ])?;
                counts[0] += 1;
            }
            let edges: Vec<(Vec<u8>, Vec<u8>)> = tx
                .prepare("SELECT id, sealed FROM edges WHERE tier = ?1")?
                .query_map([code], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let mut set_edge = tx.prepare("UPDATE edges SET sealed = ?2, digest = ?3, seq = ?4 WHERE id = ?1")?;
            let grouped = crate::store::kit::schema::grouped(&tx)?;
            for (id, sealed) in edges {
                let edge = EdgeId(crate::store::uuid_from(&id)?);
                let what = || format!("edge row {edge}");
                let ad = crate::store::kit::edge_groups::row_ad(grouped, &edge, tier);
                let sealed = codec::reseal(old, new, &ad, &sealed, &what)?;
                set_edge.execute(params![id, sealed, manifest::digest(&sealed).as_slice(), row_seq])?;
                counts[1] += 1;
            }
            counts[1] += unlinked::rekey(&tx, &*keys, old, new, tier)?;
            counts[2] = audit_chain::rekey(&tx, old, new, tier)?;
            if tier == codec::DECISION_TIER {
                counts[3] = rekey_decisions(&tx, &*keys, old, new)?;
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
        rowmac::note_action(
            &tx,
            &*keys,
            format!("rotate-key {tier} v{version} key {key}"),
            Some(row_seq),
        )?;
        // The new key from here on; the old one back if the commit fails.
        let old_key = keys.put(tier, &staged.key);
        let result = manifest::rebuild(&tx, &*keys, tier)
            .and_then(|()| seal::rebuild(&tx, &*keys, seq, &[]))
            .and(fault)
            .and_then(|()| tx.commit().map_err(Error::from));
        if let Err(e) = result {
            keys.restore(tier, old_key);
            return Err(e);
        }
        self.note_fresh();
        Ok((seq, version, counts, dropped))
    }
}
