//! The console's history of executed queries: personal (never in the
//! repository), one file per store in the user's state directory, sealed so
//! that without the master identity it is unreadable.
//!
//! - **Where**: `STATE_DIR/query-history/<name>.qh`, `STATE_DIR` given by
//!   the caller (the console's log directory, `$XDG_STATE_HOME/graphex/`).
//!   `<name>` is an HMAC of the store's id (`meta.store_id`) under a key
//!   derived from the master identity (`Purpose::QueryHistory`), so the
//!   file name tells nothing about the store or its path to anyone without
//!   that identity.
//! - **Format**: `MAGIC | nonce | AES-256-GCM(JSON entries) | tag`, under the
//!   same derived key, the associated data binding the file name: a history
//!   copied over another store's name does not open.
//! - **Writes** are atomic (a new 0600 file synced, then renamed over the
//!   old one, the directory synced); the directory is made 0700.
//! - **A file that does not open** (altered, damaged, another store's, or
//!   another master's) is never overwritten: [`History::open`] moves it aside
//!   (`<name>.qh.unreadable-<millis>`) and says so in its error; opening again
//!   starts an empty history.
//!
//! Master level only: below it there is no key, and [`History::open`] says
//! so. Two consoles on one store each write the history they hold: the last
//! writer's wins.

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use crate::crypto::{Sealer, SymmetricKey, hex};
use crate::error::{Error, Result};
use crate::keys::{Keyring, Level};
use crate::model::Timestamp;
use crate::store::Store;

/// The most entries a history keeps; the oldest go first.
pub const MAX_ENTRIES: usize = 1000;

const MAGIC: &[u8; 8] = b"GXQHIST1";
const AD: &[u8] = b"graphex/query-history/v1";
const SUBDIR: &str = "query-history";
const EXTENSION: &str = "qh";

/// One executed query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub text: String,
    pub at: Timestamp,
}

/// A store's query history, in memory and on disk. Its entries are
/// zeroized when it is dropped or [`History::wipe`]d.
pub struct History {
    path: PathBuf,
    key: SymmetricKey,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "History({}, {} entries)", self.path.display(), self.entries.len())
    }
}

impl Drop for History {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl History {
    /// The history file of `store` under `state_dir` (master level): its
    /// name is a keyed hash of the store's id.
    pub fn path_in(state_dir: &Path, store: &Store) -> Result<PathBuf> {
        let key = key(store.keys())?;
        let id = match crate::store::meta(store.conn(), "store_id")? {
            Some(id) => id,
            // A store made before ids: its root, as this session found it.
            None => store.layout().root().display().to_string(),
        };
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        mac.update(b"graphex/query-history/file/v1\0");
        mac.update(id.as_bytes());
        let name = hex(&mac.finalize().into_bytes()[..16]);
        Ok(state_dir.join(SUBDIR).join(format!("{name}.{EXTENSION}")))
    }

    /// [`History::open`] of `store`'s file under `state_dir`.
    pub fn open_in(state_dir: &Path, store: &Store) -> Result<History> {
        Self::open(&Self::path_in(state_dir, store)?, store.keys())
    }

    /// Reads the history at `path` (none yet: empty), sealed under the key
    /// `keys` derive (master level). A file that does not open is moved
    /// aside, never overwritten, and the error names where it went.
    pub fn open(path: &Path, keys: &Keyring) -> Result<History> {
        let key = SymmetricKey::from_bytes(*key(keys)?.expose());
        let mut history = History {
            path: path.to_owned(),
            key,
            entries: Vec::new(),
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(history),
            Err(e) => return Err(Error::io(path, e)),
        };
        match history.decode(&bytes) {
            Some(entries) => {
                history.entries = entries;
                Ok(history)
            }
            None => Err(set_aside(path)),
        }
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The file this history is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records `text` as executed now and writes the file. Blank text is
    /// ignored; the same text as the newest entry only moves its time; past
    /// [`MAX_ENTRIES`] the oldest go. The entry is kept in memory even when
    /// the write fails (the error says why).
    pub fn record(&mut self, text: &str) -> Result<()> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let at = Timestamp::now();
        match self.entries.last_mut() {
            Some(last) if last.text == text => last.at = at,
            _ => self.entries.push(Entry {
                text: text.to_owned(),
                at,
            }),
        }
        if self.entries.len() > MAX_ENTRIES {
            let excess = self.entries.len() - MAX_ENTRIES;
            for e in &mut self.entries[..excess] {
                e.text.zeroize();
            }
            self.entries.drain(..excess);
        }
        self.save()
    }

    /// Forgets every entry, in memory and on disk.
    pub fn clear(&mut self) -> Result<()> {
        self.wipe();
        self.save()
    }

    /// Zeroizes and drops the entries held in memory (the file stays).
    pub fn wipe(&mut self) {
        for e in &mut self.entries {
            e.text.zeroize();
        }
        self.entries.clear();
    }

    fn associated_data(&self) -> Vec<u8> {
        let name = self.path.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default();
        [AD, name].concat()
    }

    fn decode(&self, bytes: &[u8]) -> Option<Vec<Entry>> {
        let body = bytes.strip_prefix(MAGIC)?;
        let plain = Zeroizing::new(Sealer::new(&self.key).open(&self.associated_data(), body).ok()?);
        let entries: Vec<Entry> = serde_json::from_slice(&plain).ok()?;
        (entries.len() <= MAX_ENTRIES).then_some(entries)
    }

    /// Writes the file atomically: a new file (0600) synced, renamed over
    /// the old one, the directory synced.
    fn save(&self) -> Result<()> {
        let plain = Zeroizing::new(
            serde_json::to_vec(&self.entries).map_err(|e| Error::integrity("the query history", e.to_string()))?,
        );
        let sealed = Sealer::new(&self.key).seal(&self.associated_data(), &plain)?;
        let dir = self
            .path
            .parent()
            .ok_or_else(|| Error::invalid("history path", self.path.display().to_string(), "it has no directory"))?;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Error::io(dir, e))?;
        let mut nonce = [0u8; 8];
        crate::crypto::fill_random(&mut nonce)?;
        let tmp = self.path.with_extension(format!("{EXTENSION}.tmp-{}", hex(&nonce)));
        let written = (|| -> std::io::Result<()> {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.write_all(MAGIC)?;
            f.write_all(&sealed)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(&self.path, e));
        }
        crate::store::sync_dir(dir)
    }
}

/// The history key of a master-level session.
fn key(keys: &Keyring) -> Result<&SymmetricKey> {
    keys.seal()
        .map(|s| s.history_key())
        .ok_or_else(|| keys.needs(Level::Master, "the query history"))
}

/// Moves an unreadable history out of the way, keeping it, and says so.
fn set_aside(path: &Path) -> Error {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".unreadable-{}", Timestamp::now().0));
    let aside = PathBuf::from(aside);
    let moved = match std::fs::rename(path, &aside) {
        Ok(()) => format!(
            "it was moved to {} (kept, not overwritten); a new history starts",
            aside.display()
        ),
        Err(e) => format!("it could not be moved aside ({e}) and is left as it is; no history is written over it"),
    };
    Error::integrity(
        format!("the query history {}", path.display()),
        format!("it does not open with this master identity (altered, damaged, or written for another store): {moved}"),
    )
}

#[cfg(test)]
mod tests;
