//! The master's signature on tier snapshots. The public snapshot is sealed
//! under a key anyone has and the agent-readable one under a key every
//! agent has, so a snapshot is the store's only when the master signed it.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::Tier;

/// What the master signs for a snapshot: its tier, commit and content.
fn snapshot_statement(tier: Tier, seq: u64, bytes: &[u8]) -> Vec<u8> {
    let mut m = b"graphex/snapshot/v2\0".to_vec();
    m.push(tier.code());
    m.extend_from_slice(&seq.to_le_bytes());
    m.extend_from_slice(&Sha256::digest(bytes));
    m
}

/// A snapshot's signature by the master (the only writer of snapshots).
/// Every tier's snapshot is signed: the public one is sealed under a key
/// anyone has, the agent-readable one under a key every agent has.
pub(super) fn snapshot_mac(keys: &Keyring, tier: Tier, seq: u64, bytes: &[u8]) -> Option<Vec<u8>> {
    keys.seal()
        .map(|s| s.sign(&snapshot_statement(tier, seq, bytes)).to_vec())
}

/// Refuses a snapshot whose signature does not verify, when this session
/// holds the key to check it (master or agent; a locked session checks
/// nothing).
pub(super) fn check_snapshot(keys: &Keyring, tier: Tier, seq: u64, bytes: &[u8], mac: Option<&[u8]>) -> Result<()> {
    let Some(verifier) = keys.verifier() else {
        return Ok(());
    };
    if mac.is_some_and(|m| verifier.verifies(&snapshot_statement(tier, seq, bytes), m)) {
        Ok(())
    } else {
        Err(Error::integrity(
            format!("the {tier} snapshot"),
            "the master's signature on it does not verify: it was replaced or forged outside Graphex; nothing is served",
        ))
    }
}
