//! What the master's seal counts for each row (see `seal`): the master-keyed
//! row tags, and the keyless elements of the readable rows' set hash that
//! an agent recomputes.

use sha2::{Digest, Sha256};

use super::manifest::{RowKey, RowToken};
use super::seal::DecisionKey;
use crate::crypto::SymmetricKey;
use crate::model::{EdgeId, NodeId, Tier};

/// A readable node row as an element of the set hash (no key: the hash
/// must be one an agent can recompute).
pub(crate) fn node_element(id: &NodeId, tier: Tier, version: u64, blob: &str, digest: &[u8; 16]) -> [u8; 32] {
    Sha256::new()
        .chain_update(b"graphex/seal/readable-node/v1")
        .chain_update([tier.code()])
        .chain_update(id.as_bytes())
        .chain_update(version.to_le_bytes())
        .chain_update(blob.as_bytes())
        .chain_update(digest)
        .finalize()
        .into()
}

/// A readable edge row as an element of the set hash; a group's (`group`:
/// its tokens, see `RowToken::group`) is of its own kind.
pub(crate) fn edge_element(id: &EdgeId, tier: Tier, seq: u64, digest: &[u8; 16], group: Option<&RowToken>) -> [u8; 32] {
    let label: &[u8] = if group.is_some() {
        b"graphex/seal/readable-edge-group/v1"
    } else {
        b"graphex/seal/readable-edge/v1"
    };
    let mut h = Sha256::new()
        .chain_update(label)
        .chain_update([tier.code()])
        .chain_update(id.as_bytes())
        .chain_update(seq.to_le_bytes())
        .chain_update(digest);
    if let Some(tokens) = group {
        h.update(tokens.fixed());
    }
    h.finalize().into()
}

/// A readable row as an element of the set hash.
pub(crate) fn element(row: &RowKey) -> [u8; 32] {
    match row {
        RowKey::Node {
            id,
            tier,
            version,
            blob,
            digest,
            ..
        } => node_element(id, *tier, *version, blob, digest),
        RowKey::Edge {
            id,
            tier,
            seq,
            digest,
            token,
            grouped,
            ..
        } => edge_element(id, *tier, *seq, digest, grouped.then_some(token)),
    }
}

/// Master-keyed row tags: the manifest's construction (SHA-256 over one
/// key block, then fixed-length fields) under the master's seal key.
pub(crate) struct SealTagger(Sha256);

impl SealTagger {
    pub(crate) fn new(key: &SymmetricKey) -> Self {
        SealTagger(super::manifest::keyed_block(
            key,
            b"graphex/seal/row-tag/v1\0\0\0\0\0\0\0\0\0",
        ))
    }

    /// A node row's tag (`token` is the name's blind-index token). Every
    /// field is fixed-length (the blob name as its 32 bytes): two SHA-256
    /// blocks a row, which keeps the check at open cheap.
    pub(crate) fn node(
        &self,
        id: &NodeId,
        tier: Tier,
        version: u64,
        blob: &str,
        digest: &[u8; 16],
        token: &[u8],
    ) -> [u8; 32] {
        self.node_row(id, tier, version, blob, digest, &RowToken::of(token))
    }

    fn node_row(
        &self,
        id: &NodeId,
        tier: Tier,
        version: u64,
        blob: &str,
        digest: &[u8; 16],
        token: &RowToken,
    ) -> [u8; 32] {
        // One update of the fields laid end to end: the same hash as one
        // update a field, without the bookkeeping of six calls a row.
        let mut fields = [0u8; 106];
        fields[..2].copy_from_slice(&[b'n', tier.code()]);
        fields[2..18].copy_from_slice(id.as_bytes());
        fields[18..26].copy_from_slice(&version.to_le_bytes());
        fields[26..58].copy_from_slice(&fixed(blob.as_bytes(), true));
        fields[58..74].copy_from_slice(digest);
        fields[74..].copy_from_slice(token.fixed());
        let mut h = self.0.clone();
        h.update(fields);
        h.finalize().into()
    }

    /// An edge row's tag (`grouped`: a group's row, v11, whose token
    /// column is hashed whole, see `RowToken::group`).
    #[cfg(test)]
    pub(crate) fn edge(
        &self,
        id: &EdgeId,
        tier: Tier,
        seq: u64,
        digest: &[u8; 16],
        token: &[u8],
        grouped: bool,
    ) -> [u8; 32] {
        let token = if grouped {
            RowToken::group(token)
        } else {
            RowToken::of(token)
        };
        self.edge_row(id, tier, seq, digest, &token, grouped)
    }

    /// [`SealTagger::edge`] of a token column already read as the seal
    /// covers it.
    pub(crate) fn edge_row(
        &self,
        id: &EdgeId,
        tier: Tier,
        seq: u64,
        digest: &[u8; 16],
        token: &RowToken,
        grouped: bool,
    ) -> [u8; 32] {
        let mut fields = [0u8; 74];
        fields[..2].copy_from_slice(&[if grouped { b'g' } else { b'e' }, tier.code()]);
        fields[2..18].copy_from_slice(id.as_bytes());
        fields[18..26].copy_from_slice(&seq.to_le_bytes());
        fields[26..42].copy_from_slice(digest);
        fields[42..].copy_from_slice(token.fixed());
        let mut h = self.0.clone();
        h.update(fields);
        h.finalize().into()
    }

    pub(crate) fn row(&self, row: &RowKey) -> [u8; 32] {
        match row {
            RowKey::Node {
                id,
                tier,
                version,
                blob,
                digest,
                token,
            } => self.node_row(id, *tier, *version, blob, digest, token),
            RowKey::Edge {
                id,
                tier,
                seq,
                digest,
                token,
                grouped,
                ..
            } => self.edge_row(id, *tier, *seq, digest, token, *grouped),
        }
    }

    /// A timeline row's tag: its number and the digest of its fields.
    pub(crate) fn timeline(&self, seq: i64, fields: &[u8; 32]) -> [u8; 32] {
        let mut h = self.0.clone();
        h.update([b't', 0]);
        h.update(seq.to_le_bytes());
        h.update(fields);
        h.finalize().into()
    }

    /// A saved query row's tag: its name token and the digest of its
    /// sealed record.
    pub(crate) fn query(&self, token: &[u8], digest: &[u8; 16]) -> [u8; 32] {
        let mut h = self.0.clone();
        h.update([b'q', 0]);
        h.update(fixed(token, false));
        h.update(digest);
        h.finalize().into()
    }

    pub(crate) fn decision(&self, d: &DecisionKey) -> [u8; 32] {
        let mut h = self.0.clone();
        h.update([b'd', 0]);
        for field in [d.proposal.as_bytes(), d.outcome.as_bytes()] {
            h.update((field.len() as u64).to_le_bytes());
            h.update(field);
        }
        h.update(d.seq.to_le_bytes());
        h.update(d.at.to_le_bytes());
        h.update(d.digest);
        h.finalize().into()
    }
}

/// A field as exactly 32 bytes: a blob name (64 hex digits) decoded, a
/// token as it is. Anything else (never written by Graphex) is hashed,
/// under a prefix no well-formed field can produce, so it still gets a tag
/// of its own, which matches nothing the master sealed.
pub(super) fn fixed(field: &[u8], hex: bool) -> [u8; 32] {
    let mut out = [0u8; 32];
    let well_formed = if hex {
        // Every row's blob name at open: decoded without a branch a digit,
        // any digit outside the table marking the whole field.
        let mut marks = 0u8;
        if field.len() == 64 {
            for (o, pair) in out.iter_mut().zip(field.chunks_exact(2)) {
                let (hi, lo) = (NIBBLE[usize::from(pair[0])], NIBBLE[usize::from(pair[1])]);
                marks |= hi | lo;
                *o = hi << 4 | lo;
            }
        }
        field.len() == 64 && marks < 16
    } else if field.len() == 32 {
        out.copy_from_slice(field);
        true
    } else {
        false
    };
    if well_formed {
        out
    } else {
        Sha256::new()
            .chain_update(b"graphex/seal/malformed-field")
            .chain_update(field)
            .finalize()
            .into()
    }
}

/// Each byte's value as a hex digit; 0xFF for any other byte. Lowercase
/// only: Graphex writes no other, and an upper-case twin would name
/// another file.
const NIBBLE: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut c = 0;
    while c < 10 {
        table[b'0' as usize + c] = c as u8;
        c += 1;
    }
    let mut c = 0;
    while c < 6 {
        table[b'a' as usize + c] = 10 + c as u8;
        c += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The master's row tags are what every sealed store holds: computed here
    /// as a fixed answer (SHA-256 of the key block, the label and the fields in
    /// order, worked out apart from this code), so a faster way of hashing
    /// them can never change them.
    #[test]
    fn the_seal_s_row_tags_are_their_fixed_answers() {
        let seal = SealTagger::new(&crate::crypto::SymmetricKey::from_bytes([3; 32]));
        let id: [u8; 16] = std::array::from_fn(|i| i as u8 + 1);
        let digest: [u8; 16] = std::array::from_fn(|i| i as u8 + 100);
        let token: [u8; 32] = std::array::from_fn(|i| i as u8 + 200);
        let blob: String = (50u8..82).map(|b| format!("{b:02x}")).collect();
        let edge = seal.edge(
            &crate::model::EdgeId(uuid::Uuid::from_bytes(id)),
            Tier::AgentReadable,
            42,
            &digest,
            &token,
            false,
        );
        assert_eq!(
            crate::crypto::hex(&edge),
            "d0025e7217dc4c2399d148bca037a1dcfb8a0f741de6b14199b904204792a75a"
        );
        // A group's row (v11): a tag of its own kind, over its tokens hashed
        // whole (the same 32 bytes as a group's column are not a token).
        let group = seal.edge(
            &crate::model::EdgeId(uuid::Uuid::from_bytes(id)),
            Tier::AgentReadable,
            42,
            &digest,
            &token,
            true,
        );
        assert_eq!(
            crate::crypto::hex(&group),
            "7179b45fa428600fc3e337af63e9e5b4c48f2f05fddcd69aa3aaba0b92f26fdc"
        );
        let node = seal.node(
            &crate::model::NodeId(uuid::Uuid::from_bytes(id)),
            Tier::AgentRestricted,
            7,
            &blob,
            &digest,
            &token,
        );
        assert_eq!(
            crate::crypto::hex(&node),
            "28c4a478f002993644f4ee191e88d3e8ac64c17752b53581c8ba57a6407c71da"
        );
    }
}
