//! The key hierarchy: key files, unlock levels, credentials, and the keyring a
//! session holds once unlocked.

pub(crate) mod auth;
mod credentials;
pub mod files;
mod keyring;
mod level;

pub use credentials::{Credentials, ENV_AGENT_IDENTITY, ENV_HUMAN_PASSPHRASE, ENV_IDENTITY, ENV_PASSPHRASE};
pub use files::{KdfCost, KeyPaths};
pub use keyring::{IdentityKind, Keyring, TierCiphers, create};
pub use level::Level;
