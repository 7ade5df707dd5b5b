//! A homomorphic hash of a set that needs no secret: LtHash with 1024
//! lanes of 16 bits.
//!
//! Each element is expanded to 1024 pseudo-random 16-bit lanes (AES-256 in
//! counter mode under a key hashed from the element); the set's hash is the
//! lane-wise sum modulo 2^16. Adding or removing an element is one
//! expansion, so a writer keeps the hash of a large set up to date at the
//! cost of what it changes. Unlike an XOR of keyed tags, finding two sets
//! with the same hash is believed infeasible even for someone who can
//! compute every element's expansion (its security rests on a lattice
//! problem), which is what lets an agent check the master's signature over
//! rows the agent itself could write.

use aes_gcm::aes::Aes256;
use aes_gcm::aes::cipher::{Array, BlockCipherEncrypt, KeyInit};
use sha2::{Digest, Sha256};

/// Lanes per hash.
pub const LANES: usize = 1024;

/// The hash of a multiset of 32-byte elements.
#[derive(Clone, PartialEq, Eq)]
pub struct LtHash(Box<[u16; LANES]>);

impl std::fmt::Debug for LtHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LtHash({})", super::hex(&self.digest()[..8]))
    }
}

impl Default for LtHash {
    fn default() -> Self {
        Self(Box::new([0; LANES]))
    }
}

fn expand(element: &[u8; 32]) -> [u16; LANES] {
    let key: [u8; 32] = Sha256::new()
        .chain_update(b"graphex/lthash/v1")
        .chain_update(element)
        .finalize()
        .into();
    let cipher = Aes256::new(&Array::from(key));
    let mut blocks = [Array::from([0u8; 16]); LANES * 2 / 16];
    for (i, b) in blocks.iter_mut().enumerate() {
        b[..8].copy_from_slice(&(i as u64).to_le_bytes());
    }
    cipher.encrypt_blocks(&mut blocks);
    let mut lanes = [0u16; LANES];
    for (chunk, b) in lanes.chunks_exact_mut(8).zip(&blocks) {
        for (lane, pair) in chunk.iter_mut().zip(b.chunks_exact(2)) {
            *lane = u16::from_le_bytes([pair[0], pair[1]]);
        }
    }
    lanes
}

impl LtHash {
    /// Adds one element (`sign` 1) or removes one (`sign` -1).
    pub fn add(&mut self, element: &[u8; 32], sign: i64) {
        let lanes = expand(element);
        if sign >= 0 {
            for (a, l) in self.0.iter_mut().zip(lanes) {
                *a = a.wrapping_add(l);
            }
        } else {
            for (a, l) in self.0.iter_mut().zip(lanes) {
                *a = a.wrapping_sub(l);
            }
        }
    }

    /// Adds the hash of a disjoint set (the union's hash).
    pub fn merge(&mut self, other: &LtHash) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a = a.wrapping_add(*b);
        }
    }

    /// The state as bytes (2048, little-endian lanes).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|l| l.to_le_bytes()).collect()
    }

    /// A state from [`LtHash::to_bytes`]; `None` when the length is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != LANES * 2 {
            return None;
        }
        let mut out = Self::default();
        for (lane, pair) in out.0.iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = u16::from_le_bytes([pair[0], pair[1]]);
        }
        Some(out)
    }

    /// SHA-256 of the state: what a signature covers.
    pub fn digest(&self) -> [u8; 32] {
        Sha256::digest(self.to_bytes()).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_of_the_multiset_whatever_the_order() {
        let (a, b, c) = ([1u8; 32], [2u8; 32], [3u8; 32]);
        let mut x = LtHash::default();
        x.add(&a, 1);
        x.add(&b, 1);
        x.add(&c, 1);
        let mut y = LtHash::default();
        y.add(&c, 1);
        y.add(&a, 1);
        y.add(&b, 1);
        assert_eq!(x.digest(), y.digest());
        // Removing an element undoes adding it.
        y.add(&b, -1);
        let mut z = LtHash::default();
        z.add(&a, 1);
        z.add(&c, 1);
        assert_eq!(y, z);
        assert_ne!(x, z);
        // Twice is not once (a multiset, unlike an XOR).
        let mut twice = LtHash::default();
        twice.add(&a, 1);
        twice.add(&a, 1);
        assert_ne!(twice, LtHash::default());
        assert_eq!(LtHash::from_bytes(&x.to_bytes()), Some(x));
        assert_eq!(LtHash::from_bytes(&[0; 7]), None);
    }
}
