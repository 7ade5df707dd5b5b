//! The store's side of freshness (see the `freshness` module): at open, the
//! seal's statement is compared with this machine's record; after every
//! commit the record moves forward with it. A store that went back opens
//! read-only: every write is refused until a person restores the newer
//! store or accepts this one (`Store::accept_as_fresh`).

use std::path::Path;

use rusqlite::Connection;

use super::seal_log;
use super::seal_statement::statement_id;
use super::{Store, schema};
use crate::crypto::hex::hex;
use crate::error::{Error, Result};
use crate::freshness::{self, Current, Kind, Record, RecordFile, Rollback, Verdict};
use crate::keys::{Keyring, Level};
use crate::model::Timestamp;

/// What this session found of its store's freshness.
#[derive(Clone, Debug)]
pub struct Freshness {
    /// The record file (`None`: no state directory, no protection).
    pub file: Option<RecordFile>,
    /// What the open found.
    pub verdict: Verdict,
    /// Why the protection is lost or weakened, if it is.
    pub problem: Option<String>,
    /// Whether a backup of the newest store is kept (a copy, or for a large
    /// store a link until an idle unlock session copies it).
    pub backup: bool,
    /// The seal (statement id, hex) this process last committed or found
    /// fresh at open, and its files as they were then: what a copy of
    /// graph.db must hold to become the backup, whatever graph.db holds by
    /// then.
    pub committed: Option<(String, freshness::Stamp)>,
}

impl Freshness {
    /// The rollback this session found, if any.
    pub fn rollback(&self) -> Option<&Rollback> {
        match &self.verdict {
            Verdict::RolledBack(rb) => Some(rb),
            _ => None,
        }
    }
}

fn kind_of(store: &Store) -> Kind {
    if store.keys.level() >= Level::Master {
        Kind::Master
    } else {
        Kind::Agent
    }
}

impl Store {
    /// The store's id (fixed at `init`; empty for a store made before ids).
    pub fn store_id(&self) -> Result<String> {
        Ok(schema::meta(&self.conn, "store_id")?.unwrap_or_default())
    }

    fn current_record(&self) -> Result<Option<(Vec<u8>, Record)>> {
        current_record(&self.conn, self.layout.root(), Some(&self.keys))
    }

    fn descends_from(&self, bytes: &[u8], statement: &str, seq: u64) -> Result<bool> {
        descends_from(&self.conn, bytes, statement, seq)
    }

    /// Compares the store with this machine's record (at open, for a
    /// session that authenticated the seal). Never fails the open: what
    /// cannot be checked is said in `problem`.
    pub(super) fn check_fresh(&mut self) {
        let file = RecordFile::for_store(self.layout.root(), kind_of(self));
        let (verdict, problem) = match &file {
            None => (
                Verdict::First,
                Some("no state directory (set XDG_STATE_HOME or HOME): rollbacks are not detected".to_owned()),
            ),
            Some(file) => self
                .fresh_verdict(file)
                .unwrap_or_else(|e| (Verdict::First, Some(format!("the freshness check failed: {e}")))),
        };
        // Only a store this machine trusts replaces the newest copy: not one
        // that went back, not one an older record merely followed, and not
        // a first sight that came from a failed check.
        let trusted = matches!(
            (&verdict, &problem),
            (Verdict::Fresh { .. }, _) | (Verdict::First, None)
        );
        let committed = trusted
            .then(|| self.current_record().ok().flatten().map(|(_, now)| self.committed(now)))
            .flatten();
        self.fresh = Some(Freshness {
            file,
            verdict,
            problem,
            backup: false,
            committed,
        });
        self.keep_backup(self.backup_now(), &|| false);
    }

    /// After a reload of a session that checked at open: a store that went
    /// back since (rewritten in place) is found as an open would find it,
    /// and is read-only from then on.
    pub(super) fn recheck_fresh(&mut self) {
        let Some(file) = self.fresh.as_ref().and_then(|f| f.file.clone()) else {
            return;
        };
        if let Ok((verdict @ Verdict::RolledBack(_), problem)) = self.fresh_verdict(&file) {
            self.fresh = Some(Freshness {
                file: Some(file),
                verdict,
                problem,
                backup: false,
                committed: None,
            });
        }
    }

    /// Keeps a backup of the store as this process committed it (or found
    /// it fresh) in the state directory, at the master level: what a
    /// restore needs; see `freshness::backup`. A copy becomes the backup
    /// only if it verifies as that commit; one that does not (graph.db was
    /// edited after the commit) is thrown away and said in `problem`.
    fn keep_backup(&mut self, how: freshness::How, stop: &freshness::Stop<'_>) {
        let (Some(state), Kind::Master) = (freshness::state_dir(), kind_of(self)) else {
            return;
        };
        let Some((want, stamp)) = self.fresh.as_ref().and_then(|f| f.committed.clone()) else {
            return;
        };
        if self.record_moved_past(&want) {
            return;
        }
        let keys = &self.keys;
        let check = |c: &Connection, whole: bool| -> std::result::Result<(), freshness::Unchecked> {
            let refused = |e: Error| freshness::Unchecked::Refused(e.to_string());
            let found = seal_log::current_bytes(c)
                .map_err(refused)?
                .map(|b| hex(&statement_id(&b)));
            if found.as_deref() != Some(want.as_str()) {
                return Err(freshness::Unchecked::Refused(format!(
                    "its seal is {}, not the {} this process committed",
                    found.as_deref().map_or("missing", short),
                    short(&want)
                )));
            }
            if whole {
                match super::seal::verify_whole_unless(c, keys, stop) {
                    Ok(()) => {}
                    Err(Error::Stopped) => return Err(freshness::Unchecked::Stopped),
                    Err(e) => return Err(refused(e)),
                }
            }
            Ok(())
        };
        let kept = freshness::keep_backup(
            &state,
            self.layout.root(),
            (&self.conn, &self.layout.db(), &stamp),
            &want,
            how,
            (&check, stop),
        );
        if let Some(f) = &mut self.fresh {
            f.backup = kept.holds();
            if let freshness::Kept::Refused(why) = kept {
                f.problem = Some(format!(
                    "graph.db changed after this process wrote seal {} and before its backup was copied ({why}): \
                     the copy was thrown away and the backup still holds the last verified graph; check the store \
                     with `graphex doctor` and `graphex freshness show`",
                    short(&want)
                ));
            }
        }
    }

    /// Whether the backup of the store as this process committed it is
    /// still owed a copy (a large store's is a link until then): what an
    /// idle unlock session makes with [`Store::copy_backup`].
    pub fn backup_copy_owed(&self) -> bool {
        let Some(f) = &self.fresh else {
            return false;
        };
        let (None, Some((want, _)), Some(state), Kind::Master) =
            (f.rollback(), &f.committed, freshness::state_dir(), kind_of(self))
        else {
            return false;
        };
        freshness::copy_owed(&state, self.layout.root(), want) && !self.record_moved_past(want)
    }

    /// Whether this machine's record names another seal than `want`, the
    /// one this process committed: another process committed since, and
    /// keeps the backup of its own commit.
    fn record_moved_past(&self, want: &str) -> bool {
        let file = self.fresh.as_ref().and_then(|f| f.file.as_ref());
        file.and_then(|f| f.load().ok().flatten())
            .is_some_and(|r| r.statement != want)
    }

    /// The seal `now` records and the index's files as they are.
    fn committed(&self, now: Record) -> (String, freshness::Stamp) {
        (now.statement, freshness::Stamp::of(&self.layout.db()))
    }

    /// Copies the store to its backup now, whatever its size (an idle
    /// unlock session), if the copy verifies as what this process committed.
    /// `stop` is asked between the copy's steps: true stops it (a client is
    /// waiting), and the copy is still owed.
    pub fn copy_backup(&mut self, stop: &freshness::Stop<'_>) {
        self.keep_backup(freshness::How::Deferred, stop);
    }

    fn fresh_verdict(&self, file: &RecordFile) -> Result<(Verdict, Option<String>)> {
        verdict_on(&self.conn, self.layout.root(), file, Some(&self.keys))
    }

    /// Moves the record to the statement just committed (after a commit of
    /// this session). A record another process moved further is left.
    pub(crate) fn note_fresh(&mut self) {
        // Another branch checked out under a long-lived session (git left
        // graph.db as it was): the record of that branch is the one to move.
        if self.scope_changed() {
            self.check_fresh();
            return;
        }
        let Some(f) = &self.fresh else {
            return;
        };
        if f.rollback().is_some() {
            return;
        }
        let Some(file) = f.file.clone() else {
            return;
        };
        let _ = (|| -> Result<()> {
            let Some((bytes, now)) = self.current_record()? else {
                return Ok(());
            };
            let committed = self.committed(now.clone());
            if let Some(f) = &mut self.fresh {
                f.committed = Some(committed);
            }
            let on_disk = file.load().ok().flatten();
            if let Some(r) = &on_disk
                && (r.statement == now.statement || !self.descends_from(&bytes, &r.statement, r.seq)?)
            {
                return Ok(());
            }
            file.save(&Record {
                federation: on_disk.map(|r| r.federation).unwrap_or_default(),
                ..now
            })
        })();
        self.keep_backup(self.backup_now(), &|| false);
    }

    /// How the backup is made right after a commit: a copy whatever the
    /// store's size in every process but an unlock session's, which links
    /// a large store and copies it when idle ([`Store::copy_backup`]).
    fn backup_now(&self) -> freshness::How {
        if self.track {
            freshness::How::CopyOrLink
        } else {
            freshness::How::Copy
        }
    }

    /// Compares the store with this machine's record again (a long-lived
    /// session, after another process moved the record: `freshness
    /// accept` or `trust`, or its own commit).
    pub fn check_freshness_again(&mut self) {
        if self.fresh.is_some() {
            self.check_fresh();
        }
    }

    /// Whether the line of history checked out (the branch, or the commit
    /// of a detached `HEAD`) is no longer the one this session's record was
    /// chosen for: a long-lived session then checks the store again.
    pub fn scope_changed(&self) -> bool {
        self.fresh
            .as_ref()
            .and_then(|f| f.file.as_ref())
            .is_some_and(|file| file.scope().map(str::to_owned) != freshness::scope_of(self.layout.root()))
    }

    /// What the open found of the store's freshness (`None` for a session
    /// that cannot authenticate the seal: no record is kept for it).
    pub fn freshness(&self) -> Option<&Freshness> {
        self.fresh.as_ref()
    }

    /// The rollback found at open, if any: the store is read-only.
    pub fn rolled_back(&self) -> Option<&Rollback> {
        self.fresh.as_ref().and_then(Freshness::rollback)
    }

    /// Refuses a write on a store that went back.
    pub(crate) fn refuse_if_rolled_back(&self, action: &str) -> Result<()> {
        match self.rolled_back() {
            Some(rb) => Err(Error::RolledBack {
                action: action.to_owned(),
                detail: rollback_text(self.layout.root(), rb),
            }),
            None => Ok(()),
        }
    }

    /// Accepts the store as it is as this machine's newest (`graphex
    /// freshness accept`): deliberately, after a rollback was shown. The
    /// store was authenticated at open; the record now names it.
    pub fn accept_as_fresh(&mut self) -> Result<()> {
        let file =
            self.fresh.as_ref().and_then(|f| f.file.clone()).ok_or_else(|| {
                Error::MissingSecret("no freshness record can be kept here (no state directory)".into())
            })?;
        let (_, now) = self.current_record()?.ok_or_else(|| {
            Error::integrity(
                "the master's seal on the index",
                "there is none: seal the store first (`graphex seal`)",
            )
        })?;
        let federation = file.load().ok().flatten().map(|r| r.federation).unwrap_or_default();
        file.save(&Record { federation, ..now })?;
        self.check_fresh();
        Ok(())
    }

    /// The highest bundle sequence this machine saw pulled from `source`.
    pub fn federation_high_water(&self, source: &str) -> Option<u64> {
        let file = self.fresh.as_ref()?.file.as_ref()?;
        file.load().ok().flatten()?.federation.get(source).copied()
    }

    /// Raises the high-water mark of `source` in this machine's record
    /// (after a pull committed).
    pub(crate) fn note_federation(&self, source: &str, seq: u64) -> Result<()> {
        let Some(file) = self.fresh.as_ref().and_then(|f| f.file.as_ref()) else {
            return Ok(());
        };
        let Some(mut record) = file.load()? else {
            return Ok(());
        };
        let mark = record.federation.entry(source.to_owned()).or_default();
        if seq > *mark {
            *mark = seq;
            file.save(&record)?;
        }
        Ok(())
    }
}

/// The current statement's bytes and the record they make (the statement
/// as stored: authenticated by the caller's open, or not at all).
fn current_record(conn: &Connection, root: &Path, keys: Option<&Keyring>) -> Result<Option<(Vec<u8>, Record)>> {
    let Some(bytes) = seal_log::current_bytes(conn)? else {
        return Ok(None);
    };
    let record = Record {
        store_id: schema::meta(conn, "store_id")?.unwrap_or_default(),
        signer: keys.and_then(Keyring::verifier).map(|v| v.to_hex()).unwrap_or_default(),
        statement: hex(&statement_id(&bytes)),
        seq: seal_log::seq_of(&bytes).unwrap_or(0),
        bytes: hex(&bytes),
        mac: seal_log::current_mac(conn)?.map(|m| hex(&m)).unwrap_or_default(),
        commit: freshness::git::head(root),
        at: Timestamp::now().0,
        federation: Default::default(),
        scope: freshness::scope_of(root),
    };
    Ok(Some((bytes, record)))
}

/// Whether the statement `bytes` descends from `statement` (hex).
fn descends_from(conn: &Connection, bytes: &[u8], statement: &str, seq: u64) -> Result<bool> {
    let Some(target) = crate::crypto::hex::unhex(statement).and_then(|v| <[u8; 32]>::try_from(v).ok()) else {
        return Ok(false);
    };
    seal_log::descends(conn, bytes, &target, seq)
}

/// The rule applied to the index behind `conn` and the record `file`; the
/// record moves unless the store went back.
fn verdict_on(
    conn: &Connection,
    root: &Path,
    file: &RecordFile,
    keys: Option<&Keyring>,
) -> Result<(Verdict, Option<String>)> {
    let Some((bytes, now)) = current_record(conn, root, keys)? else {
        return Ok((Verdict::First, Some("the store has no seal".into())));
    };
    let (recorded, problem) = match file.load() {
        Ok(r) => (r, None),
        Err(e) => (None, Some(format!("{e}; a new record was started"))),
    };
    let current = Current {
        store_id: now.store_id.clone(),
        signer: keys.map(|_| now.signer.clone()),
        statement: now.statement.clone(),
        seq: now.seq,
        at: conn
            .query_row(super::schema::LAST_CHANGE, [], |r| r.get(0))
            .unwrap_or(0),
    };
    let verdict = freshness::decide(
        recorded.as_ref(),
        &current,
        now.commit.as_deref(),
        |s, seq| descends_from(conn, &bytes, s, seq),
        |a, b| freshness::git::is_ancestor(root, a, b),
    )?;
    match &verdict {
        Verdict::Fresh { moved: false } | Verdict::RolledBack(_) => {}
        _ => file.save(&Record {
            federation: recorded.as_ref().map(|r| r.federation.clone()).unwrap_or_default(),
            // A hook knows no signer: the one recorded stays.
            signer: if keys.is_some() {
                now.signer.clone()
            } else {
                recorded.map(|r| r.signer).unwrap_or_default()
            },
            ..now
        })?,
    }
    Ok((verdict, problem))
}

/// The freshness check without keys, as git hooks run it: the index's
/// statement is not authenticated, only compared by its hash chain with
/// each record this machine keeps for the work tree (a forged statement
/// passes here and is refused by the next open that holds a key). Commits
/// a rebase rewrote (`rewrites`: old, new) are followed first. Records
/// move as at an open; a rollback leaves them.
pub fn check_without_keys(root: &Path, rewrites: &[(String, String)]) -> Result<Vec<(Kind, Verdict)>> {
    let layout = super::Layout::new(root);
    if !layout.db().is_file() {
        return Ok(Vec::new());
    }
    let conn = Connection::open_with_flags(layout.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    schema::forbid_code(&conn)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let mut out = Vec::new();
    for kind in [Kind::Master, Kind::Agent] {
        let Some(file) = RecordFile::for_store(root, kind) else {
            continue;
        };
        let Some(mut record) = file.load()? else {
            continue;
        };
        if let Some((_, new)) = rewrites.iter().find(|(old, _)| Some(old) == record.commit.as_ref()) {
            record.commit = Some(new.clone());
            file.save(&record)?;
        }
        out.push((kind, verdict_on(&conn, root, &file, None)?.0));
    }
    Ok(out)
}

/// What an open that found no record for the line of history checked out
/// says, once: what it now trusts (`None`: not a first sight in git).
pub fn first_sight_text(f: &Freshness) -> Option<String> {
    if !matches!(f.verdict, Verdict::First) || f.problem.is_some() {
        return None;
    }
    let file = f.file.as_ref()?;
    let scope = file.scope()?;
    let r = file.load().ok().flatten()?;
    let commit = r.commit.as_deref().map_or_else(
        || "no git commit yet".to_owned(),
        |c| format!("git commit {}", c.get(..12).unwrap_or(c)),
    );
    let what = match scope.strip_prefix("refs/heads/") {
        Some(branch) => format!("branch {branch}"),
        None => scope.to_owned(),
    };
    Some(format!(
        "first sight of this store on this machine ({what}): trusting graph commit {} (seal {}) from {commit}; if \
         that is not the graph you expect, `graphex freshness trust REV` trusts the one of a revision \
         you name instead",
        r.seq,
        short(&r.statement)
    ))
}

/// A short hex form of a statement id.
pub fn short(statement: &str) -> &str {
    statement.get(..12).unwrap_or(statement)
}

/// A date for a record's time.
fn date(ms: i64) -> String {
    crate::model::Timestamp(ms).to_string()
}

/// What a rollback is, in words: the store, both commits, both statements,
/// and the commands that resolve it.
pub fn rollback_text(root: &std::path::Path, rb: &Rollback) -> String {
    let r = &rb.recorded;
    let commit = |c: Option<&str>| c.map_or("?", |c| c.get(..12).unwrap_or(c)).to_owned();
    let how = if rb.git_forward {
        format!(
            "git moved forward (from commit {} to {}) but the graph went back",
            commit(r.commit.as_deref()),
            commit(rb.head.as_deref()),
        )
    } else if r.commit.is_some() && rb.head.is_some() && r.commit != rb.head {
        format!(
            "git moved from commit {} to {}, which does not descend from it (a rebase, a reset or a force \
             push), and the graph went back",
            commit(r.commit.as_deref()),
            commit(rb.head.as_deref()),
        )
    } else {
        "the graph's file was replaced by one that does not descend from it".to_owned()
    };
    let branch = match r.scope.as_deref() {
        Some(s) => match s.strip_prefix("refs/heads/") {
            Some(b) => format!(" (branch {b})"),
            None => format!(" ({s})"),
        },
        None => String::new(),
    };
    format!(
        "the graph at {}{branch} is not the newest this machine saw: {how}. This machine last saw graph commit {} \
         (seal {}, seen {}); the store now holds graph commit {} (seal {}, last written {}), which does \
         not descend from it. Writes are refused. Restore the newer graph with `graphex freshness restore`, or accept this one \
         deliberately with `graphex freshness accept`",
        root.display(),
        r.seq,
        short(&r.statement),
        date(r.at),
        rb.seq,
        short(&rb.statement),
        if rb.at > 0 {
            date(rb.at)
        } else {
            "at an unknown time".to_owned()
        },
    )
}
