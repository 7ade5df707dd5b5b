//! What a session presents to unlock: passphrases and identity files. Taken
//! from the environment for non-interactive use; the console and CLI may fill
//! in passphrases from a prompt.

use std::path::PathBuf;

use age::secrecy::SecretString;

/// `GRAPHEX_PASSPHRASE`: the master passphrase.
pub const ENV_PASSPHRASE: &str = "GRAPHEX_PASSPHRASE";
/// `GRAPHEX_IDENTITY`: path to an exported master identity file.
pub const ENV_IDENTITY: &str = "GRAPHEX_IDENTITY";
/// `GRAPHEX_HUMAN_PASSPHRASE`: the human-only passphrase.
pub const ENV_HUMAN_PASSPHRASE: &str = "GRAPHEX_HUMAN_PASSPHRASE";
/// `GRAPHEX_AGENT_IDENTITY`: path to an exported agent identity file.
pub const ENV_AGENT_IDENTITY: &str = "GRAPHEX_AGENT_IDENTITY";

/// Secrets offered for unlocking. Debug never shows a secret.
#[derive(Default)]
pub struct Credentials {
    /// The master passphrase (opens `keys/master.age`).
    pub passphrase: Option<SecretString>,
    /// A master identity file (skips the passphrase KDF).
    pub identity_file: Option<PathBuf>,
    /// The human-only passphrase (needs the master as well).
    pub human_passphrase: Option<SecretString>,
    /// An agent identity file (public + agent-readable).
    pub agent_identity_file: Option<PathBuf>,
}

impl Credentials {
    /// No secrets: public content only.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads the four `GRAPHEX_*` variables. Empty values count as unset.
    pub fn from_env() -> Self {
        let secret = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty()).map(SecretString::from);
        let path = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        Self {
            passphrase: secret(ENV_PASSPHRASE),
            identity_file: path(ENV_IDENTITY),
            human_passphrase: secret(ENV_HUMAN_PASSPHRASE),
            agent_identity_file: path(ENV_AGENT_IDENTITY),
        }
    }

    /// True when something that reaches the master is offered.
    pub fn has_master(&self) -> bool {
        self.passphrase.is_some() || self.identity_file.is_some()
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = |b: bool| if b { "<set>" } else { "<unset>" };
        f.debug_struct("Credentials")
            .field("passphrase", &shown(self.passphrase.is_some()))
            .field("identity_file", &self.identity_file)
            .field("human_passphrase", &shown(self.human_passphrase.is_some()))
            .field("agent_identity_file", &self.agent_identity_file)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_passphrases() {
        let c = Credentials {
            passphrase: Some(SecretString::from("hunter2-canary")),
            ..Credentials::default()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2-canary") && shown.contains("<set>"));
        assert!(c.has_master());
    }
}
