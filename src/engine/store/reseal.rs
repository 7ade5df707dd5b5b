//! A node whose tier rises takes its history with it: every stored
//! version below the new tier is re-encrypted under it, into a new blob,
//! and its version row is pointed at that blob in the commit (the old
//! blobs are wiped after it, see `wipe`).

use rusqlite::{Connection, params};

use super::objects::Durability;
use super::plan::Plan;
use super::{Store, row_tier, row_version, sql_version};
use crate::codec;
use crate::error::Result;
use crate::model::{NodeId, Tier};

/// An old version re-encrypted under a higher tier.
pub(super) struct Reseal {
    pub node: NodeId,
    pub version: u64,
    pub tier: Tier,
    pub old_hash: String,
    pub new_hash: String,
}

impl Store {
    /// The re-encrypted versions of every node of `plan` whose tier rises,
    /// their blobs written (deferred: the commit makes them durable with
    /// its own).
    pub(super) fn reseals(&self, plan: &Plan) -> Result<Vec<Reseal>> {
        let mut reseals = Vec::new();
        for w in &plan.nodes {
            if let Some((_, old_tier)) = w.previous
                && w.node.tier > old_tier
            {
                reseals.extend(self.reseal_versions(&w.node.id, w.node.tier)?);
            }
        }
        Ok(reseals)
    }

    /// Re-encrypts every stored version of `id` below `tier` under `tier`.
    fn reseal_versions(&self, id: &NodeId, tier: Tier) -> Result<Vec<Reseal>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT version, tier, {} FROM node_versions WHERE node_id = ?1 AND tier < ?2",
            super::blob_name::BLOB_NAME
        ))?;
        let rows = stmt
            .query_map(params![id.as_bytes().as_slice(), tier.code()], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for (version, old_tier, old_hash) in rows {
            let (version, old_tier) = (row_version(version)?, row_tier(old_tier)?);
            let mut node = codec::decode_node(&self.keys, id, version, old_tier, &self.objects.read(&old_hash)?)?;
            node.tier = tier;
            let new_hash = self
                .objects
                .write(&codec::encode_node(&self.keys, &node)?, Durability::Deferred)?;
            out.push(Reseal {
                node: *id,
                version,
                tier,
                old_hash,
                new_hash,
            });
        }
        Ok(out)
    }
}

/// Points each re-encrypted version's row at its new blob, with its MAC
/// (inside the commit's transaction).
pub(super) fn update_rows(tx: &Connection, keys: &crate::keys::Keyring, reseals: &[Reseal]) -> Result<()> {
    let mut reseal = tx.prepare_cached(
        "UPDATE node_versions SET tier = ?3, blob = ?4, mac = ?5 WHERE node_id = ?1 AND version = ?2",
    )?;
    let binary = super::schema::grouped(tx)?;
    for r in reseals {
        reseal.execute(params![
            r.node.as_bytes().as_slice(),
            sql_version(r.version),
            r.tier.code(),
            super::blob_name::stored(binary, &r.new_hash),
            super::rowmac::version_mac(keys, &r.node, sql_version(r.version), r.tier, &r.new_hash)
        ])?;
    }
    Ok(())
}
