//! On-disk encodings: the node blob wire format and the sealed index rows.
//! Every format starts with a version byte and is tested across versions.

mod blob;
mod bytes;
mod edge_bytes;
mod edge_group;
mod interner;
mod record;
mod snapshot;
mod summary_bytes;

pub(crate) use blob::{AUTH_PREFIX, authenticates_as, claimed};
pub use blob::{BLOB_FORMAT, MAX_PLAINTEXT, decode_node, encode_node};
pub use interner::{Decode, Interner};
pub use record::{
    DECISION_TIER, open_decision, open_edge, open_edge_group, open_summary, seal_decision, seal_edge, seal_edge_group,
    seal_summary, seal_summary_lean,
};
pub use snapshot::{Snapshot, open_snapshot, open_snapshot_in_buffer, seal_snapshot};
pub(crate) use {
    blob::rewrap,
    record::{decision_ad, edge_ad, edge_group_ad, reseal, summary_ad},
};
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use {
    blob::seal_node_payload,
    record::{seal_edge_plain, seal_summary_plain},
    snapshot::seal_snapshot_packed,
};
/// The plaintext decoders behind the AEAD, for fuzzing.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use {
    edge_bytes::{decode as decode_edge_plain, encode as encode_edge_plain},
    edge_group::decode as decode_edge_group,
    summary_bytes::{decode as decode_summary_plain, decode_row as decode_summary_row, encode as encode_summary_plain},
};

use crate::error::{Error, Result};

/// Associated data binding a ciphertext to its place: a domain label, the
/// object's id, its version and its tier. Changing any of them breaks the tag.
pub(crate) fn associated_data(domain: &[u8], id: &[u8; 16], version: u64, tier: crate::model::Tier) -> Vec<u8> {
    let mut ad = Vec::with_capacity(domain.len() + 25);
    ad.extend_from_slice(domain);
    ad.extend_from_slice(id);
    ad.extend_from_slice(&version.to_le_bytes());
    ad.push(tier.code());
    ad
}

/// Splits a stored record into its format byte, checked against `expected`,
/// and the rest.
pub(crate) fn strip_format<'a>(bytes: &'a [u8], expected: u8, what: &dyn Fn() -> String) -> Result<&'a [u8]> {
    match bytes.split_first() {
        Some((&f, rest)) if f == expected => Ok(rest),
        Some((&found, _)) => Err(Error::UnknownFormat { what: what(), found }),
        None => Err(Error::integrity(what(), "empty record")),
    }
}

/// MessagePack with field names, so later versions can add fields.
pub(crate) fn to_msgpack<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    rmp_serde::to_vec_named(value).map_err(|e| Error::integrity("encoding", e.to_string()))
}

pub(crate) fn from_msgpack<T: serde::de::DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T> {
    rmp_serde::from_slice(bytes).map_err(|e| Error::integrity(what, format!("undecodable content ({e})")))
}

#[cfg(test)]
mod tests;
