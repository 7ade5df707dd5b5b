//! The settings in force: `.gpp/config.toml` as the master approved it.
//!
//! The file is plaintext in the repository, where an agent can write: a
//! lowered trust threshold, a removed scrub pattern or skipped audit
//! previews would change what agents receive or what the log keeps. So the
//! master approves the settings (`graphex config approve`): their canonical
//! form is kept in `meta.policy` and its digest is part of the master's
//! seal. What is in force is the approved settings; a file that differs is
//! reported, with each difference, and changes nothing until approved.
//!
//! An approval is named by a digest of the settings it replaces and the
//! ones it puts in force ([`Approval::digest`]): the reviewer approves the
//! change they were shown, and a file edited after they looked (or another
//! approval in between) makes the digest they give stale, so nothing they
//! did not see is approved.

use rusqlite::Connection;

use super::Store;
use crate::config::Config;
use crate::crypto::sha256_hex;
use crate::error::{Error, Result};

/// How many hex digits name an approval: 64 bits, so no file can be
/// ground to match a digest a reviewer was shown.
const DIGEST_HEX: usize = 16;

/// The settings a session uses, and how the file compares.
#[derive(Clone, Debug)]
pub struct ConfigInForce {
    /// What is in force: the approved settings.
    pub config: Config,
    /// How `.gpp/config.toml` differs from them (`name: approved -> file`),
    /// or why it could not be read. Empty when they agree.
    pub unapproved: Vec<String>,
    /// The digest that approves the file as it is now
    /// ([`Store::approve_config`]); none when it agrees or cannot be used.
    pub approval: Option<String>,
}

/// What approving `.gpp/config.toml` as it is now would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Approval {
    /// `name: approved -> file` lines; empty when nothing would change.
    pub changes: Vec<String>,
    /// Names this change: from the settings in force to the file's.
    pub digest: String,
}

impl Approval {
    fn between(approved: &Config, file: &Config) -> Result<Self> {
        let mut named = b"graphex/config-approval/v1\0".to_vec();
        named.extend_from_slice(&approved.digest()?);
        named.extend_from_slice(&file.digest()?);
        Ok(Approval {
            changes: approved.differences(file),
            digest: sha256_hex(&named)[..DIGEST_HEX].to_owned(),
        })
    }
}

impl ConfigInForce {
    /// A one-line warning for a file that differs, if it does.
    pub fn warning(&self) -> Option<String> {
        (!self.unapproved.is_empty()).then(|| {
            format!(
                ".gpp/config.toml differs from the settings the master approved, which stay in force \
                 (approve with `graphex config approve`): {}",
                self.unapproved.join("; ")
            )
        })
    }
}

/// The approved settings as stored (defaults for a store that has none yet).
pub(super) fn approved(conn: &Connection) -> Result<Config> {
    match super::schema::meta(conn, "policy")? {
        Some(text) => Config::from_canonical(&text),
        None => Ok(Config::default()),
    }
}

/// Stores `config` as approved, inside the caller's transaction.
pub(super) fn put(conn: &Connection, config: &Config) -> Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('policy', ?1)",
        [config.canonical()?],
    )?;
    Ok(())
}

/// Whether settings were ever approved.
pub(super) fn is_set(conn: &Connection) -> Result<bool> {
    Ok(super::schema::meta(conn, "policy")?.is_some())
}

impl Store {
    /// The settings in force: the approved ones, authenticated by the
    /// master's seal when this session can check it, with how the file
    /// differs. A malformed file is reported the same way, never an error:
    /// a hand edit cannot stop a reviewer's console or an agent's server.
    pub fn config(&self) -> Result<ConfigInForce> {
        let approved = approved(&self.conn)?;
        if let Some(st) = super::seal::stored(&self.conn, &self.keys)?
            && st.policy != approved.digest()?
        {
            return Err(Error::integrity(
                "the approved settings",
                "they are not the ones the master sealed (edited outside Graphex); nothing is served",
            ));
        }
        let (unapproved, approval) = match Config::load(&self.layout.gpp()) {
            Ok(file) => {
                let a = Approval::between(&approved, &file)?;
                let digest = (!a.changes.is_empty() && file.projection_settings().is_ok()).then_some(a.digest);
                (a.changes, digest)
            }
            Err(e) => (vec![format!("the file cannot be used ({e})")], None),
        };
        Ok(ConfigInForce {
            config: approved,
            unapproved,
            approval,
        })
    }

    /// What approving `.gpp/config.toml` as it is now would change, and
    /// the digest [`Store::approve_config`] takes for it. An unusable file
    /// is an error naming why.
    pub fn config_approval(&self) -> Result<Approval> {
        let file = Config::load(&self.layout.gpp())?;
        file.settings_to_approve(self.catalog())?;
        Approval::between(&approved(&self.conn)?, &file)
    }

    /// Approves the settings in `.gpp/config.toml` as they are now (master
    /// level), if `digest` names that change ([`Store::config_approval`],
    /// as `graphex config show` prints it): from now on they are in force
    /// for every session. Another digest (the file edited, or other
    /// settings approved, since it was shown) is refused and changes
    /// nothing. Returns what changed, as `name: before -> after` lines.
    pub fn approve_config(&mut self, digest: &str) -> Result<Vec<String>> {
        self.require_writer("approving settings")?;
        let file = Config::load(&self.layout.gpp())?;
        // Checked before it is stored: an unusable file (a misspelt weight's
        // key too) is refused here.
        file.settings_to_approve(self.catalog())?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let before = approved(&tx)?;
        // Against what is stored, in the transaction that stores it.
        let now = Approval::between(&before, &file)?;
        if now.digest != digest {
            return Err(Error::invalid(
                "approval digest",
                digest,
                "it is not the change .gpp/config.toml asks for now (the file or the approved settings \
                 changed since it was shown): review it again with `graphex config show`",
            ));
        }
        let changed = now.changes;
        put(&tx, &file)?;
        let digest = file.digest()?;
        // The row first: the amended statement covers it.
        if !changed.is_empty() {
            super::rowmac::note_action(&tx, &self.keys, "approve-config".into(), None)?;
        }
        super::seal::amend(&tx, &self.keys, "approve settings", |st| st.policy = digest)?;
        tx.commit()?;
        self.note_fresh();
        Ok(changed)
    }
}
