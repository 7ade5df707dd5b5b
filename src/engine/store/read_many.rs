//! A node's index row once checked, opened apart from the index: what
//! lets many nodes' blobs be read and decrypted on several threads while
//! the index (one SQLite connection) is read on one.

use super::objects::Objects;
use crate::codec;
use crate::error::Result;
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
