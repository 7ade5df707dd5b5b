//! Key rotation on the key files' side: a new tier key is staged beside the
//! current files, the index is re-sealed under it in one commit (see
//! the store's `rotate`), and only then are the staged files moved into place.
//!
//! The steps, and what a crash after each leaves:
//!
//! 1. Under `keys/.rotation.lock`: `<tier file>.next` holds the new key,
//!    sealed as the tier's file is, and `keyring.auth.next` commits to it.
//!    A crash leaves both unused; the next rotation (or `doctor
//!    --collect-orphans`) removes them.
//! 2. One index transaction re-seals every record of the tier and sets the
//!    `rotation` marker in `meta`. A crash before it commits leaves the old
//!    key in force; after it, the marker says the staged files are the keys
//!    the index now needs.
//! 3. The staged files are renamed over the current ones, and the marker is
//!    cleared. Whoever opens the store next with the marker set finishes
//!    the renames first (under the same lock), so a crash here loses
//!    nothing. Renames are atomic and idempotent.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;

use age::secrecy::SecretString;

use super::files::{self, KdfCost, KeyPaths};
use super::keyring::seal_tier_file;
use super::{Keyring, Level};
use crate::crypto::SymmetricKey;
use crate::error::{Error, Result};
use crate::model::Tier;

/// A new tier key whose files are staged.
pub(crate) struct Staged {
    pub tier: Tier,
    pub key: SymmetricKey,
    /// The keyring's commitment to `key`, which the marker records.
    pub commitment: String,
}

/// The rotation lock, held from staging to the last rename.
pub(crate) struct RotationLock(#[allow(dead_code, reason = "held for its lock")] File);

/// Takes the rotation lock: waiting for it when `wait`, otherwise failing
/// at once when another process holds it.
pub(crate) fn lock(paths: &KeyPaths, wait: bool) -> Result<RotationLock> {
    let path = paths.rotation_lock();
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    if wait {
        file.lock().map_err(|e| Error::io(&path, e))?;
    } else {
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => {
                Error::Rotation("another key rotation is running on this store; wait for it to finish".into())
            }
            std::fs::TryLockError::Error(e) => Error::io(&path, e),
        })?;
    }
    Ok(RotationLock(file))
}

/// Generates a new key for `tier` and stages its files (step 1). The
/// session must have verified the keyring at the master level; the
/// human-only file needs the human passphrase.
pub(crate) fn stage(
    paths: &KeyPaths,
    ring: &Keyring,
    tier: Tier,
    human: Option<&SecretString>,
    cost: KdfCost,
) -> Result<Staged> {
    let master = ring.master()?;
    let auth = ring
        .verified_auth()
        .filter(|_| ring.level() >= Level::Master)
        .ok_or_else(|| ring.needs(Level::Master, "rotating a key"))?;
    let agent = auth.agent_recipient()?;
    let key = SymmetricKey::random()?;
    let sealed = seal_tier_file(tier, &key, &master.to_public(), &agent, human, cost)?;
    files::replace_private(&paths.staged(tier), &sealed)?;
    let commitment = super::auth::commitment(tier, &key);
    let mut commitments = auth.commitments().clone();
    commitments[tier.code() as usize] = commitment.clone();
    super::auth::write_to(&paths.auth_staged(), master, &agent, &commitments)?;
    Ok(Staged { tier, key, commitment })
}

/// Moves `tier`'s staged files into place (step 3). Files already moved
/// are fine: another process may have finished first.
pub(crate) fn finish(paths: &KeyPaths, tier: Tier) -> Result<()> {
    let mut moved = false;
    for (from, to) in [
        (paths.staged(tier), paths.tier(tier)),
        (paths.auth_staged(), paths.auth()),
    ] {
        match std::fs::rename(&from, &to) {
            Ok(()) => moved = true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Error::Rotation(format!(
                    "the index is sealed under a new {tier} key, but {} cannot be moved into place ({e}); \
                     open the store where its keys/ directory is writable to finish",
                    from.display()
                )));
            }
        }
    }
    if moved {
        crate::durable::sync_dir(&paths.dir)?;
    }
    Ok(())
}

/// Every staged file present (left by a rotation that did not commit, when
/// no marker names them).
pub fn staged_files(paths: &KeyPaths) -> Vec<PathBuf> {
    Tier::ALL
        .map(|t| paths.staged(t))
        .into_iter()
        .chain([paths.auth_staged()])
        .filter(|p| p.exists())
        .collect()
}

/// Removes staged files no committed rotation needs.
pub(crate) fn discard(paths: &KeyPaths) -> Result<usize> {
    let found = staged_files(paths);
    for p in &found {
        match std::fs::remove_file(p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(p, e)),
        }
    }
    Ok(found.len())
}
