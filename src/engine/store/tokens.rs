//! The blind-index tokens of names and edges: keyed hashes (master level
//! and above) that keep names and edges unique without storing them.

use crate::error::Result;
use crate::keys::Keyring;
use crate::model::Edge;

/// The blind-index token of a node name.
pub(super) fn name_token(keys: &Keyring, name: &str) -> Result<Vec<u8>> {
    Ok(keys.blind()?.token("name", &[name.as_bytes()]))
}

/// The blind-index token of an edge's (from, relation, to).
pub(super) fn edge_token(keys: &Keyring, e: &Edge) -> Result<Vec<u8>> {
    Ok(keys.blind()?.token(
        "edge",
        &[e.from.as_bytes(), e.relation.as_str().as_bytes(), e.to.as_bytes()],
    ))
}
