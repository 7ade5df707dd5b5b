//! Making a new store: its directories, key files and an empty index
//! sealed by the master; and, for the process that makes one to fill it
//! (`graphex gen`), opening it with the secrets it still holds in memory.

use std::path::Path;

use age::secrecy::SecretString;
use rusqlite::{Connection, params};

use super::{Layout, Store, Unlock, layout, manifest, policy, schema, seal};
use crate::error::{Error, Result};
use crate::keys::{self, KdfCost};
use crate::model::Timestamp;

impl Store {
    /// Creates a new, empty store under `root` (`root/.gpp/graphex`), with a
    /// fresh key hierarchy sealed to the two passphrases.
    pub fn init(root: &Path, passphrase: &SecretString, human: &SecretString, cost: KdfCost) -> Result<Layout> {
        Ok(init_keys(root, passphrase, human, cost)?.0)
    }

    /// [`Store::init`], then the new store open at the human level, as
    /// [`Store::open`] with both passphrases opens it, but unlocked with
    /// the keys this process just made instead of running the two
    /// passphrase KDFs again (about a second each with age's default
    /// cost). The keys never leave memory; the files written are those of
    /// `init`, each checked on the way in as an open checks them.
    pub fn create(root: &Path, passphrase: &SecretString, human: &SecretString, cost: KdfCost) -> Result<Store> {
        let (_, created) = init_keys(root, passphrase, human, cost)?;
        Self::open_checked(root, Unlock::Created(&created), super::Opening::default())
    }
}

/// `init`, returning the new store's secrets.
fn init_keys(
    root: &Path,
    passphrase: &SecretString,
    human: &SecretString,
    cost: KdfCost,
) -> Result<(Layout, keys::Created)> {
    let layout = Layout::new(root);
    if layout.db().exists() {
        return Err(Error::StoreExists(layout.graphex()));
    }
    for dir in [layout.graphex(), layout.pending(), layout.objects()] {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    }
    layout::write_gitignore(&layout)?;
    let (new_keys, created) = keys::create(&layout.keys(), passphrase, human, cost)?;
    let mut conn = Connection::open(layout.db())?;
    schema::new_file(&conn)?;
    schema::configure(&conn)?;
    schema::migrate(&mut conn)?;
    // Every group starts with a MAC'd empty entry: a group whose rows and
    // entry are later deleted together is then caught, not read as new.
    manifest::init_empty(&conn, &new_keys)?;
    // The settings a repository already has are approved by its owner
    // creating the store; a file that cannot be used leaves defaults.
    if let Ok(config) = crate::config::Config::load(&layout.gpp())
        && config.projection_settings().is_ok()
    {
        policy::put(&conn, &config)?;
    }
    seal::rebuild(&conn, &new_keys, 0, &[])?;
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('store_id', ?1), ('created', ?2)",
        params![uuid::Uuid::now_v7().to_string(), Timestamp::now().0.to_string()],
    )?;
    Ok((layout, created))
}
