//! Restoring the newer store after a rollback (`graphex freshness
//! restore`): the copy this machine can trust is the one whose seal is the
//! statement its freshness record names, from the backup it keeps or from
//! the git commit checked out when it recorded it. The store as it is now
//! is moved aside, never deleted, and the restored one is opened and
//! checked before anything is said to have worked.

use std::path::{Path, PathBuf};

use rusqlite::OptionalExtension;

use crate::crypto::hex::hex;
use crate::error::{Error, Result};
use crate::freshness::{self, Record};
use crate::keys::Credentials;
use crate::model::Timestamp;
use crate::store::{Layout, Store};

/// Where a restorable copy comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The backup in the state directory (a verified copy, or an unlock
    /// session's link to a large store it had not copied yet).
    Backup(PathBuf),
    /// The index as git holds it at a commit.
    Git(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Backup(p) => write!(f, "this machine's backup {}", p.display()),
            Source::Git(c) => write!(f, "git commit {}", c.get(..12).unwrap_or(c)),
        }
    }
}

/// A copy of the newer index, found and checked against the record.
#[derive(Debug)]
pub struct Candidate {
    pub source: Source,
    /// The copy, in a temporary file beside `graph.db`.
    file: tempfile::NamedTempFile,
    pub recorded: Record,
}

impl Candidate {
    /// The copy's file (a temporary file beside `graph.db`, removed with
    /// the candidate).
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Copies the store's index aside (into the state directory, never
/// deleted) before a repair changes it; returns where. The write-ahead log
/// is folded in first; with `sole`, another process reading the store
/// (whose log could not be folded) is an error, as a file about to be
/// replaced requires.
pub fn set_aside(root: &Path, sole: bool) -> Result<PathBuf> {
    let db = Layout::new(root).db();
    {
        let conn = rusqlite::Connection::open(&db)?;
        crate::store::forbid_code(&conn)?;
        let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        if sole && busy != 0 {
            return Err(Error::integrity(
                "graph.db",
                "another process has the store open: close other graphex sessions (console, MCP) and restore again",
            ));
        }
    }
    let state = freshness::state_dir()
        .ok_or_else(|| Error::MissingSecret("no state directory to set the current graph aside in".into()))?;
    let aside = freshness::aside_path(&state, root, Timestamp::now().0);
    std::fs::copy(&db, &aside).map_err(|e| Error::io(&aside, e))?;
    Ok(aside)
}

/// The statement id (hex) of the index in `path`, read without keys.
fn statement_of(path: &Path) -> Option<String> {
    let conn = rusqlite::Connection::open(path).ok()?;
    crate::store::forbid_code(&conn).ok()?;
    let bytes: Vec<u8> = conn
        .query_row("SELECT statement FROM seal WHERE id = 1", [], |r| r.get(0))
        .optional()
        .ok()??;
    Some(hex(&crate::store::statement_id(&bytes)))
}

/// Finds a copy of the store this machine last saw (the record `recorded`),
/// looking in the backup, then in git at the recorded commit. The error
/// names every place looked at.
pub fn find(root: &Path, recorded: &Record) -> Result<Candidate> {
    let layout = Layout::new(root);
    let mut looked = Vec::new();
    let temp = || {
        tempfile::Builder::new()
            .prefix(".restore-")
            .tempfile_in(layout.graphex())
            .map_err(|e| Error::io(layout.graphex(), e))
    };
    // A copy becomes the candidate when its seal is the recorded one.
    let candidate = |bytes: Vec<u8>, source: Source| -> Result<Option<Candidate>> {
        let file = temp()?;
        std::fs::write(file.path(), bytes).map_err(|e| Error::io(file.path(), e))?;
        Ok(
            (statement_of(file.path()).as_deref() == Some(&recorded.statement)).then(|| Candidate {
                source,
                file,
                recorded: recorded.clone(),
            }),
        )
    };
    if let Some(state) = freshness::state_dir() {
        // The verified copy, then an unlock session's link to a large store
        // it had not copied yet (its graph is checked when it is opened).
        let link = freshness::link_path(&state, root);
        let places = std::iter::once(freshness::backup_path(&state, root)).chain(link.exists().then_some(link));
        for backup in places {
            match std::fs::read(&backup) {
                Ok(bytes) => match candidate(bytes, Source::Backup(backup.clone()))? {
                    Some(c) => return Ok(c),
                    None => looked.push(format!("the backup {} holds another graph", backup.display())),
                },
                Err(_) => looked.push(format!("no backup at {}", backup.display())),
            }
        }
    }
    match &recorded.commit {
        Some(commit) => {
            let short = commit.get(..12).unwrap_or(commit);
            let bytes =
                freshness::git::index_path_in_repo(root).and_then(|path| freshness::git::show(root, commit, &path));
            match bytes {
                Some(bytes) => match candidate(bytes, Source::Git(commit.clone()))? {
                    Some(c) => return Ok(c),
                    None => looked.push(format!(
                        "git commit {short} holds another graph (the newer one was not committed there)"
                    )),
                },
                None => looked.push(format!("git has no graph.db at commit {short}")),
            }
        }
        None => looked.push("the record names no git commit".into()),
    }
    Err(Error::integrity(
        "the newer graph",
        format!(
            "no copy of graph commit {} (seal {}) was found: {}. Put the newer graph.db back by hand, or accept \
             the store as it is with `graphex freshness accept`",
            recorded.seq,
            crate::store::short_statement(&recorded.statement),
            looked.join("; ")
        ),
    ))
}

/// What a restore did.
#[derive(Debug)]
pub struct Restored {
    pub source: Source,
    /// Where the store as it was went.
    pub aside: PathBuf,
    /// The commit number of the restored graph.
    pub seq: u64,
    /// Files git brought back beside the index (blobs, keys), to commit.
    pub staged: bool,
}

/// Puts `candidate` in place of the store's index: the current one is
/// checkpointed (so no write-ahead log is left to apply to the new file)
/// and copied aside, then the copy renamed over it; from git, the blobs
/// and key files of that commit come back too. Then the store is opened
/// with `creds` and must be fresh, or the old index goes back.
pub fn restore(root: &Path, creds: &Credentials, candidate: Candidate) -> Result<Restored> {
    let db = Layout::new(root).db();
    let aside = set_aside(root, true)?;
    let (file, source, recorded) = (candidate.file, candidate.source, candidate.recorded);
    file.as_file().sync_all().map_err(|e| Error::io(file.path(), e))?;
    file.persist(&db).map_err(|e| Error::io(&db, e.error))?;
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(PathBuf::from(format!("{}{suffix}", db.display())));
    }
    let mut staged = false;
    if let Source::Git(commit) = &source
        && let Some(index) = freshness::git::index_path_in_repo(root)
    {
        // The blobs and key files as git held them with that index.
        let dir = index.trim_end_matches("graph.db").trim_end_matches('/').to_owned();
        let objects = dir.trim_end_matches("graphex").trim_end_matches('/').to_owned() + "/objects";
        staged = freshness::git::checkout_paths(root, commit, &[&format!("{dir}/keys"), &objects]);
    }
    let check = Store::open(root, creds).and_then(|s| match s.rolled_back() {
        None => Ok(s),
        Some(_) => Err(Error::integrity(
            "the restored graph",
            "it still does not descend from the record",
        )),
    });
    match check {
        Ok(_) => Ok(Restored {
            source,
            aside,
            seq: recorded.seq,
            staged,
        }),
        Err(e) => {
            // The old index back: nothing is lost by a failed restore.
            let _ = std::fs::copy(&aside, &db);
            Err(e)
        }
    }
}
