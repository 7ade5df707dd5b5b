//! The master's statement over the index (see `seal`): its fields and
//! its byte form. Version 3 adds the timeline: the count and XOR of
//! master-keyed tags over every timeline row up to `timeline_seq`.
//! Version 4 adds the statements it follows (see `seal_log`): one for a
//! commit, two for a merge of two branches, none for a new store.

use sha2::{Digest, Sha256};

use super::manifest::Sum;

const DOMAIN_V1: &[u8; 16] = b"graphex/seal/v1\0";
const DOMAIN_V2: &[u8; 16] = b"graphex/seal/v2\0";
const DOMAIN_V3: &[u8; 16] = b"graphex/seal/v3\0";
const DOMAIN: &[u8; 16] = b"graphex/seal/v4\0";
const STATEMENT_LEN_V1: usize = 16 + 8 + 2 * (8 + 32) + 32 + 8 + 64 + 32;
const STATEMENT_LEN_V2: usize = STATEMENT_LEN_V1 + 8 + 32;
pub(super) const STATEMENT_LEN_V3: usize = STATEMENT_LEN_V2 + 8 + 32 + 8;
/// The most statements one statement follows (a merge's two sides).
pub(super) const MAX_PARENTS: usize = 2;

/// A statement's identity: a hash of its exact bytes, whatever their
/// version (an older statement keeps the id it was written with).
pub type StatementId = [u8; 32];

/// The id of the statement whose bytes are `bytes`.
pub fn statement_id(bytes: &[u8]) -> StatementId {
    Sha256::new()
        .chain_update(b"graphex/seal/id/v1")
        .chain_update(bytes)
        .finalize()
        .into()
}

/// What the master vouches for at one commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Statement {
    pub seq: u64,
    pub rows: Sum,
    pub decisions: Sum,
    /// Digest of the set hash of the public and agent-readable rows.
    pub readable: [u8; 32],
    pub audit_seq: u64,
    pub audit_hash: String,
    /// SHA-256 of the approved settings (`config::Config::digest`).
    pub policy: [u8; 32],
    /// The saved queries' rows (see `saved`).
    pub queries: Sum,
    /// The timeline rows up to `timeline_seq` (from version 3; an older
    /// statement vouches for none, and the next one written covers all).
    pub timeline: Sum,
    pub timeline_seq: u64,
    /// The ids of the statements this one follows (from version 4; an
    /// older statement names none).
    pub parents: Vec<StatementId>,
}

impl Statement {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(STATEMENT_LEN_V3 + 1 + 32 * self.parents.len());
        out.extend_from_slice(DOMAIN);
        out.extend_from_slice(&self.seq.to_le_bytes());
        for s in [&self.rows, &self.decisions] {
            out.extend_from_slice(&s.count.to_le_bytes());
            out.extend_from_slice(&s.acc);
        }
        out.extend_from_slice(&self.readable);
        out.extend_from_slice(&self.audit_seq.to_le_bytes());
        out.extend_from_slice(self.audit_hash.as_bytes());
        out.extend_from_slice(&self.policy);
        for sum in [&self.queries, &self.timeline] {
            out.extend_from_slice(&sum.count.to_le_bytes());
            out.extend_from_slice(&sum.acc);
        }
        out.extend_from_slice(&self.timeline_seq.to_le_bytes());
        let parents = &self.parents[..self.parents.len().min(MAX_PARENTS)];
        out.push(parents.len() as u8);
        for p in parents {
            out.extend_from_slice(p);
        }
        out
    }

    /// Version 4, 3 (no parents), 2 (no timeline) or 1 (no saved queries
    /// either).
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let v4 = bytes.len() > STATEMENT_LEN_V3
            && &bytes[..16] == DOMAIN
            && usize::from(bytes[STATEMENT_LEN_V3]) <= MAX_PARENTS
            && bytes.len() == STATEMENT_LEN_V3 + 1 + 32 * usize::from(bytes[STATEMENT_LEN_V3]);
        let v3 = v4 || (bytes.len() == STATEMENT_LEN_V3 && &bytes[..16] == DOMAIN_V3);
        let v2 = v3 || (bytes.len() == STATEMENT_LEN_V2 && &bytes[..16] == DOMAIN_V2);
        if !v2 && (bytes.len() != STATEMENT_LEN_V1 || &bytes[..16] != DOMAIN_V1) {
            return None;
        }
        let u64_at = |at: usize| {
            bytes
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
        };
        let sum_at = |at: usize| -> Option<Sum> {
            Some(Sum {
                count: i64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?),
                acc: bytes.get(at + 8..at + 40)?.try_into().ok()?,
            })
        };
        let hash = std::str::from_utf8(&bytes[144..208]).ok()?;
        if !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(Statement {
            seq: u64_at(16)?,
            rows: sum_at(24)?,
            decisions: sum_at(64)?,
            readable: bytes[104..136].try_into().ok()?,
            audit_seq: u64_at(136)?,
            audit_hash: hash.to_owned(),
            policy: bytes[208..240].try_into().ok()?,
            queries: if v2 { sum_at(240)? } else { Sum::default() },
            timeline: if v3 { sum_at(280)? } else { Sum::default() },
            timeline_seq: if v3 { u64_at(320)? } else { 0 },
            parents: if v4 {
                bytes[STATEMENT_LEN_V3 + 1..]
                    .chunks_exact(32)
                    .map(|c| c.try_into().ok())
                    .collect::<Option<Vec<_>>>()?
            } else {
                Vec::new()
            },
        })
    }
}
