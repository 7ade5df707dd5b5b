//! A node's index row once checked, opened apart from the index: what
//! lets many nodes' blobs be read and decrypted on several threads while
//! the index (one SQLite connection) is read on one.

use rusqlite::OptionalExtension;

use super::objects::Objects;
use super::{Store, row_tier, row_version};
use crate::codec;
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{Node, NodeId, Tier};

/// A node row checked against the rows the session verified.
pub(super) struct CheckedRow {
    pub id: NodeId,
    pub tier: Tier,
    pub version: u64,
    pub hash: String,
}

impl CheckedRow {
    /// Reads the row's blob (its name checked) and opens it.
    pub fn open(&self, keys: &Keyring, objects: &Objects) -> Result<Node> {
        codec::decode_node(keys, &self.id, self.version, self.tier, &objects.read(&self.hash)?)
    }
}

impl Store {
    /// The current version of every node of `ids`, in order, as
    /// [`Store::node_by_id`] reads each: the index rows are looked up and
    /// checked here, the blobs read and opened on every core. CPU-heavy.
    pub fn nodes_by_ids(&self, ids: &[NodeId]) -> Result<Vec<Node>> {
        let rows = ids
            .iter()
            .map(|id| self.checked_row(id))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| self.rotated_or(e))?;
        let (keys, objects) = (&self.keys, &self.objects);
        crate::parallel::map(&rows, |row| row.open(keys, objects)).map_err(|e| self.rotated_or(e))
    }

    /// The index row of node `id`, checked against the rows this session verified.
    pub(super) fn checked_row(&self, id: &NodeId) -> Result<CheckedRow> {
        let (tier, version, hash, digest, token): (i64, i64, String, Option<Vec<u8>>, Vec<u8>) = self
            .conn
            .prepare_cached(&format!(
                "SELECT tier, version, {}, digest, name_token FROM nodes WHERE id = ?1",
                super::blob_name::BLOB_NAME
            ))?
            .query_row([id.as_bytes().as_slice()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(id.to_string()))?;
        let (tier, version) = (row_tier(tier)?, row_version(version)?);
        let digest_ref = digest
            .as_deref()
            .map_or(rusqlite::types::ValueRef::Null, rusqlite::types::ValueRef::Blob);
        super::verified::check_read(
            &self.verified,
            &self.keys,
            id,
            tier,
            version,
            &hash,
            digest_ref,
            &token,
            !self.unsealed,
        )?;
        Ok(CheckedRow {
            id: *id,
            tier,
            version,
            hash,
        })
    }
}
