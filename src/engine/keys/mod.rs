//! The key hierarchy: key files, unlock levels, credentials, and the keyring a
//! session holds once unlocked.

pub(crate) mod auth;
pub mod channel;
mod credentials;
pub mod files;
mod keyring;
mod level;
pub(crate) mod rotation;

pub use credentials::{Credentials, ENV_AGENT_IDENTITY, ENV_HUMAN_PASSPHRASE, ENV_IDENTITY, ENV_PASSPHRASE};
pub use files::{KdfCost, KeyPaths, master_recipient};
pub use keyring::{Created, IdentityKind, Keyring, LentKey, TierCiphers, create};
pub use level::Level;
pub use rotation::staged_files;

#[cfg(test)]
mod debug_tests {
    //! Every type that holds a secret formats without it.

    use age::secrecy::SecretString;

    use super::*;
    use crate::crypto::{BlindIndex, Sealer, SymmetricKey, hex};
    use crate::model::Tier;

    #[test]
    fn every_secret_bearing_type_redacts_its_debug() {
        let key = [0xa7u8; 32];
        let key_hex = hex(&key);
        let ring = Keyring::fixed_for_tests(0x31);
        let creds = Credentials {
            passphrase: Some(SecretString::from("canary-passphrase-93")),
            human_passphrase: Some(SecretString::from("canary-human-93")),
            ..Credentials::default()
        };
        let shown = [
            format!(
                "{:?} {:#?}",
                SymmetricKey::from_bytes(key),
                SymmetricKey::from_bytes(key)
            ),
            format!("{:?}", Sealer::new(&SymmetricKey::from_bytes(key))),
            format!("{:?}", BlindIndex::new(SymmetricKey::from_bytes(key))),
            format!("{ring:?} {ring:#?}"),
            format!("{:?}", ring.tier(Tier::AgentReadable).unwrap()),
            format!("{creds:?} {creds:#?}"),
            format!("{:?}", SecretString::from("canary-passphrase-93")),
        ];
        for s in &shown {
            for secret in [
                key_hex.as_str(),
                "a7a7",
                "a7, a7",
                "167, 167",
                "canary",
                "3131",
                "49, 49",
            ] {
                assert!(!s.contains(secret), "{s:?} shows {secret:?}");
            }
        }
        assert!(shown.iter().all(|s| s.contains("redacted")
            || s.contains("Keyring(")
            || s.contains("<set>")
            || s.contains("REDACTED")));
    }
}
