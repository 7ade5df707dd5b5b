//! Sub-keys derived from a tier key (HKDF-SHA256), and the keyed blind index.
//!
//! A tier key is never used directly: it yields a *wrap* key that encrypts node
//! data keys and an *index* key that seals the index rows (node summaries and
//! edges) of that tier. The blind index key, derived from the master identity,
//! turns names into opaque tokens so the index can enforce uniqueness without
//! holding a single name in the clear.

use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use super::secret::{KEY_LEN, SymmetricKey};

/// Purpose labels: each derived key serves exactly one purpose.
#[derive(Clone, Copy, Debug)]
pub enum Purpose {
    /// Wraps per-node data keys.
    Wrap,
    /// Seals index rows (node summaries, edges).
    Index,
    /// Keys the blind index of names and edges.
    Blind,
    /// Keys a tier group's manifest of index rows.
    Manifest,
    /// Keys the master's MAC of the keyring file.
    KeyringMaster,
    /// Keys the agent's MAC of the keyring file (from the master-agent
    /// X25519 shared secret).
    KeyringAgent,
    /// Keys the master's seal on the index (from the master identity).
    SealMac,
    /// Seeds the master's Ed25519 signing key (from the master identity).
    SealSigning,
    /// Seals saved queries in the index (from the master identity).
    SavedQueries,
    /// Seals the console's personal query history and keys its file name
    /// (from the master identity).
    QueryHistory,
    /// Seals what the console's query history keeps of a session at the
    /// level that reads a tier (from the tier key; used for human-only).
    TierQueryHistory,
    /// Seeds the Ed25519 key that signs federation bundles (from the
    /// master identity; separate from the seal's, so a bundle signature
    /// can never stand for a seal statement).
    FederationSigning,
    /// Seals the federation state kept in the index (from the master identity).
    FederationState,
    /// Authenticates what an unlock session and one client say to each
    /// other (from an X25519 shared secret and the client's first request).
    SessionChannel,
    /// Authenticates an agent's comment to the master (from the X25519
    /// shared secret of the master and agent keys).
    CommentAuth,
}

impl Purpose {
    fn label(self) -> &'static [u8] {
        match self {
            Purpose::Wrap => b"graphex/v1/wrap",
            Purpose::Index => b"graphex/v1/index",
            Purpose::Blind => b"graphex/v1/blind",
            Purpose::Manifest => b"graphex/v1/manifest",
            Purpose::KeyringMaster => b"graphex/v1/keyring-master",
            Purpose::KeyringAgent => b"graphex/v1/keyring-agent",
            Purpose::SealMac => b"graphex/v1/seal-mac",
            Purpose::SealSigning => b"graphex/v1/seal-signing",
            Purpose::SavedQueries => b"graphex/v1/saved-queries",
            Purpose::QueryHistory => b"graphex/v1/query-history",
            Purpose::TierQueryHistory => b"graphex/v1/tier-query-history",
            Purpose::FederationSigning => b"graphex/v1/federation-signing",
            Purpose::FederationState => b"graphex/v1/federation-state",
            Purpose::SessionChannel => b"graphex/v1/session-channel",
            Purpose::CommentAuth => b"graphex/v1/comment-auth",
        }
    }
}

/// Derives the sub-key for `purpose` from `ikm` (a tier key or master secret).
pub fn derive(ikm: &[u8], purpose: Purpose) -> SymmetricKey {
    let hk = Hkdf::<Sha256>::new(Some(b"graphex"), ikm);
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    // 32 bytes is far below HKDF-SHA256's output limit, so expand cannot fail.
    if hk.expand(purpose.label(), &mut out[..]).is_err() {
        unreachable!("HKDF output length is fixed and valid");
    }
    SymmetricKey::from_bytes(*out)
}

/// A keyed blind index: HMAC-SHA256 tokens of names and edge triples.
pub struct BlindIndex {
    key: SymmetricKey,
}

impl std::fmt::Debug for BlindIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlindIndex(<redacted>)")
    }
}

impl BlindIndex {
    /// Builds the index from its key.
    pub fn new(key: SymmetricKey) -> Self {
        Self { key }
    }

    /// The token for a set of fields, each length-prefixed so fields cannot run together.
    pub fn token(&self, domain: &str, fields: &[&[u8]]) -> Vec<u8> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(self.key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        mac.update(domain.as_bytes());
        for f in fields {
            mac.update(&(f.len() as u64).to_le_bytes());
            mac.update(f);
        }
        mac.finalize().into_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purposes_give_different_keys() {
        let ikm = [7u8; 32];
        let w = derive(&ikm, Purpose::Wrap);
        let i = derive(&ikm, Purpose::Index);
        assert_ne!(w.expose(), i.expose());
        assert_eq!(w.expose(), derive(&ikm, Purpose::Wrap).expose(), "deterministic");
    }

    #[test]
    fn blind_tokens_are_keyed_and_unambiguous() {
        let a = BlindIndex::new(SymmetricKey::from_bytes([1; 32]));
        let b = BlindIndex::new(SymmetricKey::from_bytes([2; 32]));
        assert_eq!(a.token("name", &[b"x"]), a.token("name", &[b"x"]));
        assert_ne!(a.token("name", &[b"x"]), b.token("name", &[b"x"]));
        assert_ne!(a.token("e", &[b"ab", b"c"]), a.token("e", &[b"a", b"bc"]));
    }
}
