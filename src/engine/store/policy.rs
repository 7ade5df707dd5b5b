//! The settings in force: `.gpp/config.toml` as the master approved it.
//!
//! The file is plaintext in the repository, where an agent can write: a
//! lowered trust threshold, a removed scrub pattern or skipped audit
//! previews would change what agents receive or what the log keeps. So the
//! master approves the settings (`graphex config approve`): their canonical
//! form is kept in `meta.policy` and its digest is part of the master's
//! seal. What is in force is the approved settings; a file that differs is
//! reported, with each difference, and changes nothing until approved.

use rusqlite::Connection;

use super::Store;
use crate::config::Config;
use crate::error::{Error, Result};

/// The settings a session uses, and how the file compares.
#[derive(Clone, Debug)]
pub struct ConfigInForce {
    /// What is in force: the approved settings.
    pub config: Config,
    /// How `.gpp/config.toml` differs from them (`name: approved -> file`),
    /// or why it could not be read. Empty when they agree.
    pub unapproved: Vec<String>,
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
        let unapproved = match Config::load(&self.layout) {
            Ok(file) => approved.differences(&file),
            Err(e) => vec![format!("the file cannot be used ({e})")],
        };
        Ok(ConfigInForce {
            config: approved,
            unapproved,
        })
    }

    /// Approves the settings in `.gpp/config.toml` as they are now (master
    /// level): from now on they are in force for every session. Returns
    /// what changed, as `name: before -> after` lines.
    pub fn approve_config(&mut self) -> Result<Vec<String>> {
        self.require_writer("approving settings")?;
        let file = Config::load(&self.layout)?;
        // Checked before it is stored: an unusable file is refused here.
        file.projection_settings()?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let before = approved(&tx)?;
        let changed = before.differences(&file);
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
