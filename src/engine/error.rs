//! Typed errors of the engine. Each variant is a kind a caller can match on; the
//! message names the problem in words a user can act on. Hints and context are
//! added at the edge (CLI, console), never here.

use std::path::PathBuf;

use crate::model::{Status, Tier};

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value given by the user does not meet the rules (name, type, tier, ...).
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        what: &'static str,
        value: String,
        reason: String,
    },

    /// No store was found where one was expected.
    #[error("no Graphex store at {0} (create one with `graphex init`)")]
    NoStore(PathBuf),

    /// `init` was asked to create a store where one already exists.
    #[error("a Graphex store already exists at {0}")]
    StoreExists(PathBuf),

    /// The store was written by a newer version of Graphex.
    #[error("the store's schema version {found} is newer than this program supports ({supported}); upgrade graphex")]
    SchemaTooNew { found: u32, supported: u32 },

    /// A node with this name does not exist (or is not readable at this unlock level).
    #[error("no node named {0:?}")]
    NotFound(String),

    /// A node exists and is readable but is not Active, so it is never
    /// projected (the spec: deprecated is visible but flagged, not projected).
    #[error("{name:?} is {status} and is not projected to agents ({successor})")]
    NotProjected {
        name: String,
        status: crate::model::Status,
        /// "its successor is X", or why there is none.
        successor: String,
    },

    /// No proposal (pending, decided or quarantined) has an id starting so.
    #[error("no proposal with an id starting {0:?} (`graphex pending` lists those waiting)")]
    NoProposal(String),

    /// No saved query has this name.
    #[error("no saved query named {0:?}")]
    NoSavedQuery(String),

    /// A node with this name already exists.
    #[error("a node named {0:?} already exists")]
    NameTaken(String),

    /// The name is taken by a node whose tier this session cannot read.
    #[error("the name {0:?} is taken by a node you cannot read at this unlock level")]
    NameTakenHidden(String),

    /// The same edge already exists.
    #[error("the edge {0} already exists")]
    EdgeExists(String),

    /// No such edge among those this session can read.
    #[error("no edge {edge}: {reason}")]
    EdgeNotFound { edge: String, reason: String },

    /// The operation needs a higher unlock level.
    #[error("{action} needs the {needed} unlock level (this session is {current})")]
    Locked {
        action: String,
        needed: crate::keys::Level,
        current: crate::keys::Level,
    },

    /// Content of a tier the session holds no key for.
    #[error("{0} content is locked: unlock a level that can read the {1} tier")]
    TierLocked(String, Tier),

    /// A passphrase or identity did not open a key file.
    #[error("wrong {0}: it does not open {1}")]
    WrongSecret(&'static str, String),

    /// A key file is missing, malformed, or not what it should be.
    #[error("key file {path}: {reason}")]
    KeyFile { path: PathBuf, reason: String },

    /// A key file or the keyring file is not what the keyring commits to:
    /// replaced, forged or altered. The store is not opened.
    #[error("key substitution refused: {file}: {reason}")]
    KeyringForged { file: String, reason: String },

    /// A key file holds a tier key that a rotation has retired: the index
    /// is sealed under its successor. The store is not opened.
    #[error(
        "retired key refused: {file} holds an old {tier} key (the key was rotated; the index is sealed under key version {current}): put the current key file, and the keyring.auth beside it, back"
    )]
    KeyRetired { tier: Tier, file: String, current: u64 },

    /// Another process rotated a tier key since this session unlocked.
    #[error("the {0} key was rotated by another process since this session unlocked; open the store again")]
    KeyRotated(Tier),

    /// graph.db is another file than the one this session opened (a
    /// checkout or a restore replaced it): what it holds must be opened and
    /// verified as at any open.
    #[error("graph.db was replaced since this session opened it (a checkout or a restore); open the store again")]
    IndexReplaced,

    /// A key rotation cannot start, or an interrupted one cannot be finished.
    #[error("key rotation: {0}")]
    Rotation(String),

    /// Stored data failed authentication or did not match the index: it was
    /// altered, swapped, replayed or corrupted. Never served.
    #[error("integrity check failed for {what}: {reason}")]
    Integrity { what: String, reason: String },

    /// A stored object is in a format version this program does not know.
    #[error("{what} has format version {found}, which this program does not know")]
    UnknownFormat { what: String, found: u8 },

    /// An illegal lifecycle transition.
    #[error("cannot move {name:?} from {from} to {to}{}", match (from, to) {
        (Status::Active, Status::Archived) => " (deprecate it first: active → deprecated → archived)",
        (Status::Deprecated, Status::Deprecated) => " (to name its successor all the same: supersede OLD NEW --force)",
        _ => "",
    })]
    Transition { name: String, from: Status, to: Status },

    /// A seed or import document is malformed.
    #[error("{path}: {reason}")]
    Document { path: String, reason: String },

    /// A required secret was not supplied.
    #[error("{0}")]
    MissingSecret(String),

    /// Filesystem failure, with the path involved.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// SQLite failure.
    #[error("index database: {0}")]
    Db(#[from] rusqlite::Error),

    /// Another process wrote to the store since this session loaded it.
    #[error("the store changed since this session opened it (another process wrote to it); nothing was written")]
    Stale,

    /// Work an idle session does for itself (checking a backup copy) was
    /// stopped for a client: it is done again when next idle.
    #[error("stopped for a waiting client")]
    Stopped,

    /// A fault injected by a test (crash-safety tests only).
    #[error("proposal {0} was decided by another session meanwhile (or its decision was already undone)")]
    AlreadyDecided(String),

    /// Accepting would overwrite changes made since the proposal was written.
    #[error("proposal {id} is stale: {names} changed since the agent proposed it (review the versions, or force)")]
    StaleBase { id: String, names: String },

    /// An undo would overwrite later changes.
    #[error("cannot undo: {0}")]
    UndoBlocked(String),

    /// A node pulled from another project is read-only here.
    #[error(
        "{name} is federated from {origin}: read-only here (change it in {origin}, publish it there, and pull again)"
    )]
    Federated { name: String, origin: String },

    /// The store went back (a rollback through git or a replaced file):
    /// read-only until a person restores the newer one or accepts it.
    #[error("{action} refused: {detail}")]
    RolledBack { action: String, detail: String },

    /// A repair step found differences it will not take without a person
    /// saying so (see `Store::seal`).
    #[error("{0}")]
    Unexplained(String),

    #[error("injected fault: {0}")]
    InjectedFault(&'static str),

    /// A query names a node this session may not read (absent, or above
    /// the tier it reads for): the query drawn with the name marked.
    #[error("invalid query {query:?}: {rendered}")]
    QueryUnknownNode {
        query: String,
        name: String,
        rendered: String,
    },
}

impl Error {
    /// The name a read asked for and found no node it may read under, when
    /// that is what this error says.
    pub fn missing_node(&self) -> Option<&str> {
        match self {
            Error::NotFound(name) | Error::QueryUnknownNode { name, .. } => Some(name),
            _ => None,
        }
    }

    pub(crate) fn invalid(what: &'static str, value: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid {
            what,
            value: value.into(),
            reason: reason.into(),
        }
    }

    /// Something read from disk is not what Graphex wrote.
    pub fn integrity(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Integrity {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// An I/O failure on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    /// True for errors caused by the user's input or environment (exit code 1),
    /// false for internal or integrity failures.
    pub fn is_user_error(&self) -> bool {
        !matches!(
            self,
            Self::Integrity { .. }
                | Self::KeyringForged { .. }
                | Self::KeyRetired { .. }
                | Self::Db(_)
                | Self::RolledBack { .. }
                | Self::InjectedFault(_)
        )
    }
}
