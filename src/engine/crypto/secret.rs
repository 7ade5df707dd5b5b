//! Secret key material as types: not Clone, not Serialize, Debug redacted,
//! zeroized on drop, readable only through an explicit call.

use std::fmt;

use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// Length of every symmetric key in the store (AES-256).
pub const KEY_LEN: usize = 32;

/// A 256-bit symmetric key: a tier key, a node data key, or a derived sub-key.
pub struct SymmetricKey(Zeroizing<[u8; KEY_LEN]>);

impl SymmetricKey {
    /// A fresh key from the operating system's random source.
    pub fn random() -> Result<Self> {
        let mut k = Zeroizing::new([0u8; KEY_LEN]);
        fill_random(&mut k[..])?;
        Ok(Self(k))
    }

    /// Wraps existing key bytes (the caller's copy should be zeroized).
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Self {
        Self(Zeroizing::new(bytes))
    }

    /// Builds a key from a slice of exactly [`KEY_LEN`] bytes.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        let arr: [u8; KEY_LEN] = bytes.try_into().ok()?;
        Some(Self::from_bytes(arr))
    }

    /// The raw bytes. Every call site is a place where a secret leaves its type.
    pub fn expose(&self) -> &[u8; KEY_LEN] {
        &self.0
    }
}

impl fmt::Debug for SymmetricKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SymmetricKey(<redacted>)")
    }
}

/// Fills `buf` with random bytes from the operating system.
pub fn fill_random(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|e| Error::integrity("random source", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_redacted_and_keys_differ() {
        let a = SymmetricKey::random().unwrap();
        let b = SymmetricKey::random().unwrap();
        assert_ne!(a.expose(), b.expose());
        let shown = format!("{a:?}");
        assert_eq!(shown, "SymmetricKey(<redacted>)");
        assert!(SymmetricKey::from_slice(&[0u8; 31]).is_none());
    }
}
