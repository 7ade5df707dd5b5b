//! The console's history of executed queries: personal (never in the
//! repository), per store in the user's state directory, sealed so that
//! without the master identity it is unreadable, and in two sections
//! ([`Section`]): what was typed at the master level, and what was typed
//! at the human level, which can name human-only nodes and so is sealed to
//! the human-only key in a file of its own. [`Histories`] is the pair a
//! session sees.
//!
//! - **Where**: `STATE_DIR/query-history/<name>.qh`, `STATE_DIR` given by
//!   the caller (the console's log directory, `$XDG_STATE_HOME/graphex/`).
//!   `<name>` is an HMAC of the section and the store's id (`meta.store_id`)
//!   under a key derived from the master identity (`Purpose::QueryHistory`),
//!   so the file name tells nothing about the store or its path to anyone
//!   without that identity.
//! - **Format**: `MAGIC | nonce | AES-256-GCM(JSON entries) | tag`: the
//!   master section under that derived key, the human section under a key
//!   derived from the human-only tier key (`Purpose::TierQueryHistory`),
//!   the associated data binding the section and the file name: a history
//!   copied over another store's name, or over the other section's, does
//!   not open.
//! - **Writes** are atomic (a new 0600 file synced, then renamed over the
//!   old one, the directory synced); the directory is made 0700.
//! - **A file that does not open** (altered, damaged, another store's,
//!   another master's, or sealed under a human-only key since rotated) is
//!   never overwritten: [`History::open`] moves it aside
//!   (`<name>.qh.unreadable-<millis>`) and says so in its error; opening again
//!   starts an empty history.
//!
//! Master level for the master section, human level for the human one:
//! below it there is no key, and [`History::open`] says so. Two consoles on
//! one store each write the history they hold: the last writer's wins.

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
use crate::model::{Tier, Timestamp};
use crate::store::Store;

mod levels;
pub use levels::Histories;

/// The most entries a history keeps; the oldest go first.
pub const MAX_ENTRIES: usize = 1000;

const MAGIC: &[u8; 8] = b"GXQHIST1";
const AD: &[u8] = b"graphex/query-history/v1";
const AD_HUMAN: &[u8] = b"graphex/query-history/human/v1";
const SUBDIR: &str = "query-history";
const EXTENSION: &str = "qh";

/// One executed query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub text: String,
    pub at: Timestamp,
}

/// Which part of a store's history: who typed the queries it keeps, and
/// so which key seals it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Typed at the master level: sealed under a key derived from the
    /// master identity.
    Master,
    /// Typed at the human level, where queries can name human-only nodes:
    /// sealed under a key derived from the human-only tier key, which no
    /// master-level session holds.
    Human,
}

impl Section {
    /// The level that reads and writes this section.
    pub fn level(self) -> Level {
        match self {
            Section::Master => Level::Master,
            Section::Human => Level::Human,
        }
    }

    fn file_label(self) -> &'static [u8] {
        match self {
            Section::Master => b"graphex/query-history/file/v1\0",
            Section::Human => b"graphex/query-history/human-file/v1\0",
        }
    }

    fn associated_data(self) -> &'static [u8] {
        match self {
            Section::Master => AD,
            Section::Human => AD_HUMAN,
        }
    }
}

/// One section of a store's query history, in memory and on disk. Its
/// entries are zeroized when it is dropped or [`History::wipe`]d.
pub struct History {
    path: PathBuf,
    section: Section,
    key: SymmetricKey,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "History({:?}, {}, {} entries)",
            self.section,
            self.path.display(),
            self.entries.len()
        )
    }
}

impl Drop for History {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl History {
    /// The file of `store`'s `section` under `state_dir` (at that
    /// section's level): its name is a keyed hash of the section and the
    /// store's id.
    pub fn path_in(state_dir: &Path, store: &Store, section: Section) -> Result<PathBuf> {
        // The section's own key first: below its level, nothing.
        key(store.keys(), section)?;
        let key = key(store.keys(), Section::Master)?;
        let id = match crate::store::meta(store.conn(), "store_id")? {
            Some(id) => id,
            // A store made before ids: its root, as this session found it.
            None => store.layout().root().display().to_string(),
        };
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        mac.update(section.file_label());
        mac.update(id.as_bytes());
        let name = hex(&mac.finalize().into_bytes()[..16]);
        Ok(state_dir.join(SUBDIR).join(format!("{name}.{EXTENSION}")))
    }

    /// [`History::open`] of `store`'s `section` under `state_dir`.
    pub fn open_in(state_dir: &Path, store: &Store, section: Section) -> Result<History> {
        Self::open(&Self::path_in(state_dir, store, section)?, store.keys(), section)
    }

    /// Reads the `section` history at `path` (none yet: empty), sealed
    /// under the key `keys` derive for it (master level for the master
    /// section, human level for the human one). A file that does not open
    /// is moved aside, never overwritten, and the error names where it went.
    pub fn open(path: &Path, keys: &Keyring, section: Section) -> Result<History> {
        let key = SymmetricKey::from_bytes(*key(keys, section)?.expose());
        let mut history = History {
            path: path.to_owned(),
            section,
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
            None => Err(set_aside(path, section)),
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

    /// The section this history is.
    pub fn section(&self) -> Section {
        self.section
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
        [self.section.associated_data(), name].concat()
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

/// The key of `section`: the master identity's history key, or the one the
/// human-only tier key yields.
fn key(keys: &Keyring, section: Section) -> Result<&SymmetricKey> {
    let held = match section {
        Section::Master => keys.seal().map(|s| s.history_key()),
        Section::Human => keys.tier(Tier::HumanOnly).ok().map(|c| &c.query_history),
    };
    held.ok_or_else(|| keys.needs(section.level(), "the query history"))
}

/// Moves an unreadable history out of the way, keeping it, and says so.
fn set_aside(path: &Path, section: Section) -> Error {
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
    let why = match section {
        Section::Master => {
            "it does not open with this master identity (altered, damaged, or written for another store)"
        }
        Section::Human => {
            "it does not open with this human-only key (altered, damaged, written for another store, or sealed \
             before the human-only key was rotated)"
        }
    };
    Error::integrity(
        format!("the query history {}", path.display()),
        format!("{why}: {moved}"),
    )
}

#[cfg(test)]
mod tests;
