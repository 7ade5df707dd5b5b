//! Cryptographic building blocks: secret key types, AES-256-GCM sealing, key
//! derivation and the blind index. Nothing here knows about nodes or files.

pub mod aead;
pub mod derive;
pub mod hex;
pub mod lthash;
pub mod secret;
pub mod signer;

pub use aead::{OpenFailed, Sealer};
pub use derive::{BlindIndex, Purpose, derive};
pub use hex::{hex, sha256_hex, unhex};
pub use lthash::LtHash;
pub use secret::{KEY_LEN, SymmetricKey, fill_random};
pub use signer::{MasterSeal, SealVerifier};
