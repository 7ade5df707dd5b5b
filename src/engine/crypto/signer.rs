//! The master's seal: a MAC key and an Ed25519 signing key, both derived from
//! the master identity, so only a master-level session can produce either.
//!
//! Tier keys are shared: every agent identity opens the agent-readable key,
//! so anything keyed from it (row tags, the readable group's manifest) can be
//! recomputed by an agent. The seal is what an agent cannot make: the master
//! MACs and signs a statement over the whole index at every commit. A master
//! session checks the MAC (and recomputes what it covers); an agent checks
//! the signature with the public half pinned in its identity file.

use ed25519_dalek::{Signer as _, SigningKey, Verifier as _, VerifyingKey};
use zeroize::Zeroizing;

use super::derive::{Purpose, derive};
use super::secret::SymmetricKey;

/// What a master-level session seals with. Not Clone; Debug redacted.
pub struct MasterSeal {
    mac: SymmetricKey,
    signing: SigningKey,
    queries: SymmetricKey,
    history: SymmetricKey,
    publisher: SigningKey,
    federation: SymmetricKey,
}

impl std::fmt::Debug for MasterSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterSeal(<redacted>)")
    }
}

impl MasterSeal {
    /// Derives the seal from the master identity's secret text.
    pub fn derive(master_secret: &[u8]) -> Self {
        let seed = derive(master_secret, Purpose::SealSigning);
        let signing = SigningKey::from_bytes(&Zeroizing::new(*seed.expose()));
        let seed = derive(master_secret, Purpose::FederationSigning);
        let publisher = SigningKey::from_bytes(&Zeroizing::new(*seed.expose()));
        Self {
            publisher,
            federation: derive(master_secret, Purpose::FederationState),
            mac: derive(master_secret, Purpose::SealMac),
            signing,
            queries: derive(master_secret, Purpose::SavedQueries),
            history: derive(master_secret, Purpose::QueryHistory),
        }
    }

    /// The key saved queries are sealed under in the index.
    pub fn queries_key(&self) -> &SymmetricKey {
        &self.queries
    }

    /// The key of the console's query history (sealing and file name).
    pub fn history_key(&self) -> &SymmetricKey {
        &self.history
    }

    /// The MAC key (row tags, decisions, the statement's MAC).
    pub fn mac_key(&self) -> &SymmetricKey {
        &self.mac
    }

    /// The key the federation state is sealed under in the index.
    pub fn federation_key(&self) -> &SymmetricKey {
        &self.federation
    }

    /// Signs a federation bundle's `message` with the publisher's key.
    pub fn sign_bundle(&self, message: &[u8]) -> [u8; 64] {
        self.publisher.sign(message).to_bytes()
    }

    /// The publisher's public key, which consumers pin.
    pub fn publisher(&self) -> SealVerifier {
        SealVerifier(self.publisher.verifying_key())
    }

    /// Signs `message` (64 bytes).
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.signing.sign(message).to_bytes()
    }

    /// The public half, pinned in agent identity files.
    pub fn verifier(&self) -> SealVerifier {
        SealVerifier(self.signing.verifying_key())
    }
}

/// The public half of the master's signing key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealVerifier(VerifyingKey);

impl SealVerifier {
    /// Whether `signature` is the master's over `message` (strict: no
    /// malleable or small-order forms).
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(sig) = ed25519_dalek::Signature::from_slice(signature) else {
            return false;
        };
        self.0.verify_strict(message, &sig).is_ok() && self.0.verify(message, &sig).is_ok()
    }

    /// The key as lowercase hex (64 characters), as pinned.
    pub fn to_hex(&self) -> String {
        super::hex(self.0.as_bytes())
    }

    /// The key's 32 bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// Parses a pinned key; `None` when it is not a valid Ed25519 point.
    pub fn from_hex(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        let key = VerifyingKey::from_bytes(&bytes).ok()?;
        if key.is_weak() {
            return None;
        }
        Some(Self(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_message_and_key() {
        let seal = MasterSeal::derive(b"AGE-SECRET-KEY-1TEST");
        let other = MasterSeal::derive(b"AGE-SECRET-KEY-1OTHER");
        let sig = seal.sign(b"statement");
        assert!(seal.verifier().verifies(b"statement", &sig));
        assert!(!seal.verifier().verifies(b"statemenT", &sig));
        assert!(!other.verifier().verifies(b"statement", &sig));
        assert!(!seal.verifier().verifies(b"statement", &sig[..63]));
        // Derivation is stable: the pin stays valid across sessions.
        let hex = seal.verifier().to_hex();
        assert_eq!(MasterSeal::derive(b"AGE-SECRET-KEY-1TEST").verifier().to_hex(), hex);
        assert_eq!(SealVerifier::from_hex(&hex), Some(seal.verifier()));
        assert_eq!(SealVerifier::from_hex("zz"), None);
        assert_eq!(
            SealVerifier::from_hex(&"0".repeat(64)),
            None,
            "the identity point is weak"
        );
    }
}
