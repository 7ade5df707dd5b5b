//! A merge across a key rotation: one branch (the rotating one) sealed a
//! tier under a new key since the base; what the other (stale) branch
//! wrote in that tier is sealed again under the new key as it lands.
//! Index records are re-sealed in place; a blob's data key is rewrapped
//! into a new file (the payload stays), which git must then commit: the
//! driver reports those files and leaves the merge for the user to commit.

use crate::store::kit::blob_name::{BLOB_NAME, stored};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use rusqlite::{Connection, OptionalExtension, params};

use crate::codec;
use crate::error::{Error, Result};
use crate::keys::TierCiphers;
use crate::model::Tier;
use crate::store::kit::manifest::digest;
use crate::store::{Durability, Objects};
use crate::store::{row_edge_id, row_node_id, row_version};

/// The other branch's files, which git has not put in the work tree yet
/// while the driver runs.
pub trait OtherBranch {
    /// A directory holding a copy of the other branch's `keys/` files,
    /// or `None` when they cannot be had.
    fn keys(&self) -> Result<Option<PathBuf>>;
    /// One blob file of the other branch, by name.
    fn blob(&self, name: &str) -> Result<Vec<u8>>;
}

/// How the stale branch's records of the rotated tier are sealed again.
pub(crate) struct Rekey<'a> {
    pub tier: Tier,
    /// Ours is the stale branch (theirs rotated).
    pub stale_is_ours: bool,
    /// The stale branch's key of the tier, and the rotating branch's.
    pub old: &'a TierCiphers,
    pub new: &'a TierCiphers,
    pub objects: &'a Objects,
    pub theirs: &'a dyn OtherBranch,
    /// The blob files written (new files for git to commit).
    pub written: RefCell<Vec<String>>,
}

impl Rekey<'_> {
    /// The schema holding the rotating branch's rows.
    fn rotating(&self) -> &'static str {
        if self.stale_is_ours { "b" } else { "main" }
    }

    fn read_blob(&self, schema: &str, name: &str) -> Result<Vec<u8>> {
        if schema == "main" {
            self.objects.read(name)
        } else {
            self.theirs.blob(name)
        }
    }

    /// Writes node `id` from the stale branch's `schema` into `main`, its
    /// records of the rotated tier sealed under the new key: versions the
    /// rotating branch already re-sealed are taken from it, the others
    /// rewrapped into new files.
    pub(crate) fn node(&self, tx: &Connection, schema: &str, id: &[u8], seq: i64) -> Result<()> {
        let node = row_node_id(id)?;
        let t = i64::from(self.tier.code());
        let versions = |s: &str| -> Result<Vec<(i64, i64, String)>> {
            Ok(tx
                .prepare_cached(&format!(
                    "SELECT version, tier, {BLOB_NAME} FROM {s}.node_versions WHERE node_id = ?1 ORDER BY version"
                ))?
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?)
        };
        let rotated: HashMap<i64, (i64, String)> = versions(self.rotating())?
            .into_iter()
            .map(|(v, tier, b)| (v, (tier, b)))
            .collect();
        let base: HashMap<i64, String> = versions("o")?.into_iter().map(|(v, _, b)| (v, b)).collect();
        let mut renamed: HashMap<String, String> = HashMap::new();
        let mut rows = Vec::new();
        for (v, tier, blob) in versions(schema)? {
            if tier != t {
                rows.push((v, tier, blob));
                continue;
            }
            let done = match rotated.get(&v) {
                Some((rt, rb)) if *rt == t && base.get(&v) == Some(&blob) => Some(rb.clone()),
                _ => None,
            };
            let name = match done {
                Some(name) => name,
                None => self.rewrap(schema, &node, v, &blob)?,
            };
            renamed.insert(blob, name.clone());
            rows.push((v, tier, name));
        }
        let row: (i64, i64, Vec<u8>, String, Vec<u8>) = tx.query_row(
            &format!("SELECT tier, version, name_token, {BLOB_NAME}, summary FROM {schema}.nodes WHERE id = ?1"),
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
        let (tier, version, token, mut blob, mut summary) = row;
        if tier == t {
            let what = || format!("index row of node {node}");
            let ad = codec::summary_ad(&node, row_version(version)?, self.tier);
            summary = codec::reseal(self.old, self.new, &ad, &summary, &what)?;
            blob = match renamed.get(&blob) {
                Some(n) => n.clone(),
                None => self.rewrap(schema, &node, version, &blob)?,
            };
        }
        tx.execute("DELETE FROM main.node_versions WHERE node_id = ?1", [id])?;
        let mut put =
            tx.prepare_cached("INSERT INTO main.node_versions (node_id, version, tier, blob) VALUES (?1, ?2, ?3, ?4)")?;
        let binary = crate::store::kit::schema::grouped(tx)?;
        for (v, tier, b) in rows {
            put.execute(params![id, v, tier, stored(binary, &b)])?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO main.nodes (id, tier, version, name_token, blob, summary, seq, digest) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                id,
                tier,
                version,
                token,
                stored(binary, &blob),
                summary,
                seq,
                digest(&summary).as_slice()
            ],
        )?;
        Ok(())
    }

    /// A stale blob of the rotated tier with its data key rewrapped, as a
    /// new file; returns its name.
    pub(crate) fn rewrap(&self, schema: &str, node: &crate::model::NodeId, version: i64, blob: &str) -> Result<String> {
        let bytes = self.read_blob(schema, blob)?;
        let fresh = codec::rewrap(self.old, self.new, node, row_version(version)?, self.tier, &bytes)?;
        let name = self.objects.write(&fresh, Durability::Sync)?;
        self.written.borrow_mut().push(name.clone());
        Ok(name)
    }

    /// Writes edge `id` from the stale branch's `schema` into `main`, its
    /// record sealed under the new key when it is of the rotated tier.
    pub(crate) fn edge(&self, tx: &Connection, schema: &str, id: &[u8], seq: i64) -> Result<()> {
        let (tier, token, mut sealed): (i64, Vec<u8>, Vec<u8>) = tx.query_row(
            &format!("SELECT tier, token, sealed FROM {schema}.edges WHERE id = ?1"),
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        if tier == i64::from(self.tier.code()) {
            let edge = row_edge_id(id)?;
            let what = || format!("edge row {edge}");
            let grouped = crate::store::kit::schema::grouped(tx)?;
            let ad = crate::store::kit::edge_groups::row_ad(grouped, &edge, self.tier);
            sealed = codec::reseal(self.old, self.new, &ad, &sealed, &what)?;
        }
        tx.execute(
            "INSERT OR REPLACE INTO main.edges (id, tier, token, sealed, seq, digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, tier, token, sealed, seq, digest(&sealed).as_slice()],
        )?;
        Ok(())
    }

    /// Removed edges kept for undo, of the rotated tier, still under the
    /// old key: sealed again (each row opens under one key or the other).
    pub(crate) fn unlinked(&self, tx: &Connection) -> Result<()> {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = tx
            .prepare("SELECT edge_id, sealed FROM main.unlinked WHERE tier = ?1")?
            .query_map([self.tier.code()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (id, sealed) in rows {
            let edge = row_edge_id(&id)?;
            let what = || format!("removed edge {edge}");
            if let Ok(fresh) = codec::reseal(self.old, self.new, &codec::edge_ad(&edge, self.tier), &sealed, &what) {
                tx.execute(
                    "UPDATE main.unlinked SET sealed = ?2, mac = NULL WHERE edge_id = ?1",
                    params![id, fresh],
                )?;
            }
        }
        Ok(())
    }

    /// The rotating branch's key version, commitment and sealing count of
    /// the tier, into the result (when the rotating branch is theirs).
    pub(crate) fn key_meta(&self, tx: &Connection) -> Result<()> {
        if !self.stale_is_ours {
            return Ok(());
        }
        let code = self.tier.code();
        for key in [
            format!("key_version:{code}"),
            format!("key_commit:{code}"),
            format!("sealings:{code}"),
        ] {
            let value: Option<String> = tx
                .query_row("SELECT value FROM b.meta WHERE key = ?1", [&key], |r| r.get(0))
                .optional()?;
            if let Some(v) = value {
                tx.execute(
                    "INSERT OR REPLACE INTO main.meta (key, value) VALUES (?1, ?2)",
                    params![key, v],
                )?;
            }
        }
        Ok(())
    }
}

/// Refuses what a merge across rotations cannot do.
pub(crate) fn both_rotated(tier: Tier) -> Error {
    Error::invalid(
        "merge",
        tier.to_string(),
        "keys were rotated on both branches since they parted: merge before rotating, or rotate again after \
         merging one branch's rotation",
    )
}

/// Refuses key files of the rotating branch other than the ones its
/// rotation made: the branch's timeline (rows under the master's MAC,
/// checked) names the new key's commitment in its `rotate-key` row after
/// the ancestor, and the branch's index records it too. An older genuine
/// key set put back on the branch (a rotation undone) does not match.
pub(crate) fn vouch_rotation(tx: &Connection, tier: Tier, held: Option<&str>) -> Result<()> {
    // The branch's newest rotation of the tier names the key in force.
    let prefix = format!("rotate-key {tier} v");
    let action: Option<String> = tx
        .query_row(
            "SELECT action FROM b.timeline WHERE substr(action, 1, ?1) = ?2 ORDER BY seq DESC LIMIT 1",
            rusqlite::params![prefix.len() as i64, prefix],
            |r| r.get(0),
        )
        .optional()?;
    let named = action
        .as_deref()
        .and_then(|a| a.split_once(" key ").map(|(_, k)| k.to_owned()));
    let recorded: Option<String> = tx
        .query_row(
            "SELECT value FROM b.meta WHERE key = ?1",
            [format!("key_commit:{}", tier.code())],
            |r| r.get(0),
        )
        .optional()?;
    let ok = match (named, held) {
        (Some(named), Some(held)) => {
            named.len() == crate::store::kit::rotate::ROTATION_KEY_HEX
                && held.starts_with(&named)
                && recorded.as_deref() == Some(held)
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::integrity(
            format!("the other branch's {tier} key"),
            "its key files are not the ones its rotation made (the rotation is not in its history under the \
             master's MAC, was made by an earlier version, or older key files were put back): nothing was merged; \
             if the rotation is genuine, merge before rotating, or rotate again after the merge",
        ))
    }
}
