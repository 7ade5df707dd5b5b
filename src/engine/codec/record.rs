//! Sealed index rows: a node's summary and an edge, each encrypted with the
//! index key of its tier. Layout: `format u8 = 1 | nonce | ciphertext | tag`.
//! Associated data: domain, id, version, tier.

use super::interner::Interner;
use super::{associated_data, edge_bytes, strip_format, summary_bytes};
use crate::error::{Error, Result};
use crate::keys::{Keyring, TierCiphers};
use crate::model::{Edge, EdgeId, NodeId, NodeSummary, Tier};

const RECORD_FORMAT: u8 = 1;

fn seal(keys: &Keyring, tier: Tier, ad: &[u8], plain: &[u8]) -> Result<Vec<u8>> {
    let sealed = keys.tier(tier)?.index.seal(ad, plain)?;
    let mut out = Vec::with_capacity(1 + sealed.len());
    out.push(RECORD_FORMAT);
    out.extend_from_slice(&sealed);
    Ok(out)
}

fn open(keys: &Keyring, tier: Tier, ad: &[u8], bytes: &[u8], what: &dyn Fn() -> String) -> Result<Vec<u8>> {
    let body = strip_format(bytes, RECORD_FORMAT, what)?;
    keys.tier(tier)?
        .index
        .open(ad, body)
        .map_err(|_| Error::integrity(what(), "failed authentication (altered, swapped or relabelled)"))
}

/// A record sealed under `old` (with associated data `ad`), sealed again
/// under `new`: what a key rotation does to every record of its tier.
pub(crate) fn reseal(
    old: &TierCiphers,
    new: &TierCiphers,
    ad: &[u8],
    bytes: &[u8],
    what: &dyn Fn() -> String,
) -> Result<Vec<u8>> {
    let body = strip_format(bytes, RECORD_FORMAT, what)?;
    let plain = zeroize::Zeroizing::new(
        old.index
            .open(ad, body)
            .map_err(|_| Error::integrity(what(), "failed authentication (altered, swapped or relabelled)"))?,
    );
    let sealed = new.index.seal(ad, &plain)?;
    let mut out = Vec::with_capacity(1 + sealed.len());
    out.push(RECORD_FORMAT);
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// The associated data of a node's summary row.
pub(crate) fn summary_ad(id: &NodeId, version: u64, tier: Tier) -> Vec<u8> {
    associated_data(b"graphex/summary/v1", id.as_bytes(), version, tier)
}

/// The associated data of an edge row.
pub(crate) fn edge_ad(id: &EdgeId, tier: Tier) -> Vec<u8> {
    associated_data(b"graphex/edge/v1", id.as_bytes(), 0, tier)
}

/// The associated data of an edge group's row (schema v11): the group's id
/// (a keyed hash of its source and tier) and its tier.
pub(crate) fn edge_group_ad(group: &[u8; 16], tier: Tier) -> Vec<u8> {
    associated_data(b"graphex/edge-group/v1", group, 0, tier)
}

/// The associated data of a decision.
pub(crate) fn decision_ad(proposal: &str) -> Vec<u8> {
    let mut ad = b"graphex/decision/v1".to_vec();
    ad.extend_from_slice(proposal.as_bytes());
    ad
}

/// Seals arbitrary plaintext exactly as a summary row is sealed (fuzzing:
/// the decoder behind the AEAD sees bytes that authenticate).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn seal_summary_plain(
    keys: &Keyring,
    id: &NodeId,
    version: u64,
    tier: Tier,
    plain: &[u8],
) -> Result<Vec<u8>> {
    seal(keys, tier, &summary_ad(id, version, tier), plain)
}

/// Seals arbitrary plaintext exactly as an edge row is sealed (fuzzing).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn seal_edge_plain(keys: &Keyring, id: &EdgeId, tier: Tier, plain: &[u8]) -> Result<Vec<u8>> {
    seal(keys, tier, &edge_ad(id, tier), plain)
}

/// Seals a node summary for the index row of `summary.id`, as a store
/// before schema v11 keeps it (layout 1, which older versions read).
pub fn seal_summary(keys: &Keyring, summary: &NodeSummary) -> Result<Vec<u8>> {
    let ad = summary_ad(&summary.id, summary.version, summary.tier);
    let mut plain = Vec::with_capacity(160);
    summary_bytes::encode(summary, &mut plain);
    seal(keys, summary.tier, &ad, &plain)
}

/// [`seal_summary`] for a store at schema v11: without the id, version and
/// tier the row's associated data binds (layout 2).
pub fn seal_summary_lean(keys: &Keyring, summary: &NodeSummary) -> Result<Vec<u8>> {
    let ad = summary_ad(&summary.id, summary.version, summary.tier);
    let mut plain = Vec::with_capacity(128);
    summary_bytes::encode_row(summary, &mut plain);
    seal(keys, summary.tier, &ad, &plain)
}

/// Opens the summary in the index row of `id` at `version` and `tier`.
pub fn open_summary(
    keys: &Keyring,
    id: &NodeId,
    version: u64,
    tier: Tier,
    bytes: &[u8],
    terms: &mut Interner,
) -> Result<NodeSummary> {
    let what = || format!("index row of node {id}");
    let ad = summary_ad(id, version, tier);
    let s = summary_bytes::decode_row(&open(keys, tier, &ad, bytes, &what)?, (*id, version, tier), terms)?;
    if s.id != *id || s.version != version || s.tier != tier {
        return Err(Error::integrity(what(), "content does not match the index"));
    }
    Ok(s)
}

/// Seals an edge for its index row.
pub fn seal_edge(keys: &Keyring, edge: &Edge) -> Result<Vec<u8>> {
    let ad = edge_ad(&edge.id, edge.tier);
    let mut plain = Vec::with_capacity(96);
    edge_bytes::encode(edge, &mut plain)?;
    seal(keys, edge.tier, &ad, &plain)
}

/// Opens the edge row `id` stored under `tier`.
pub fn open_edge(keys: &Keyring, id: &EdgeId, tier: Tier, bytes: &[u8], terms: &mut Interner) -> Result<Edge> {
    let what = || format!("edge {id}");
    let ad = edge_ad(id, tier);
    let e = edge_bytes::decode(*id, &open(keys, tier, &ad, bytes, &what)?, terms)?;
    if e.id != *id || e.tier != tier {
        return Err(Error::integrity(what(), "content does not match the index"));
    }
    Ok(e)
}

/// Seals the edge group `group` (of `tier`): `edges` all leave `source`,
/// are of that tier, and are in order of their ids, each once.
pub fn seal_edge_group(
    keys: &Keyring,
    group: &[u8; 16],
    tier: Tier,
    source: &NodeId,
    edges: &[&Edge],
) -> Result<Vec<u8>> {
    if !super::edge_group::ordered(edges) || edges.iter().any(|e| e.tier != tier) {
        return Err(Error::integrity(
            format!("the edge group of node {source}"),
            "its edges are not one tier's, in order",
        ));
    }
    let mut plain = zeroize::Zeroizing::new(Vec::with_capacity(32 + 64 * edges.len()));
    super::edge_group::encode(source, edges, &mut plain)?;
    seal(keys, tier, &edge_group_ad(group, tier), &plain)
}

/// Opens the edge group in the row `group` stored under `tier`: its source
/// and its edges.
pub fn open_edge_group(
    keys: &Keyring,
    group: &[u8; 16],
    tier: Tier,
    bytes: &[u8],
    terms: &mut Interner,
) -> Result<(NodeId, Vec<Edge>)> {
    let what = || format!("edge group {}", crate::crypto::hex(group));
    let plain = zeroize::Zeroizing::new(open(keys, tier, &edge_group_ad(group, tier), bytes, &what)?);
    super::edge_group::decode(&plain, tier, terms)
}

/// The tier decisions are sealed under: readable by the agent identity.
pub const DECISION_TIER: Tier = Tier::AgentReadable;

/// Seals a proposal decision's details, bound to the proposal id.
pub fn seal_decision(keys: &Keyring, proposal: &str, plain: &[u8]) -> Result<Vec<u8>> {
    seal(keys, DECISION_TIER, &decision_ad(proposal), plain)
}

/// Opens a decision sealed by [`seal_decision`].
pub fn open_decision(keys: &Keyring, proposal: &str, bytes: &[u8]) -> Result<Vec<u8>> {
    open(keys, DECISION_TIER, &decision_ad(proposal), bytes, &|| {
        format!("decision on proposal {proposal}")
    })
}
