//! The copy of the newest store this machine saw at the master level, kept
//! so that a store put back (by git, or by an edit of graph.db in place:
//! `sqlite3`, `cp` over the file) can be restored even when git never held
//! the newer one.
//!
//! It is a real copy: made with SQLite's online backup (so it holds what
//! the write-ahead log holds too) into a 0600 file in the private state
//! directory, checked against the seal the process itself committed, and
//! only then renamed over the last one. A copy made at once after a commit,
//! while graph.db and its write-ahead log are still the files the commit
//! left (same inode, size and change time: a change time no process can
//! set back), is checked by its seal id; a deferred copy, or one whose
//! files changed, is checked whole, as a merge checks a branch (every
//! row's master tag, the audit head, the timeline). A file beside it names
//! the seal it holds, so an open of an unchanged store copies nothing, and
//! nothing written to graph.db reaches it. A copy that fails the check (the
//! file was edited in place between the commit and the copy) is thrown
//! away: the last verified copy stays, and the caller is told why.
//!
//! A copy costs about a second per 600 MB. It is made after each master
//! commit and at an open that finds the store fresh (once per seal). Only
//! an unlock session, whose commits must stay fast, links a graph.db larger
//! than [`COPY_WITHIN`] at once, under a name of its own beside the copy (a
//! link keeps the newer file when git replaces it, but not when it is
//! edited in place), and copies it when idle ([`copy_owed`]); the verified
//! copy is never replaced by the link.

use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::record::{private_dir, scoped_key, work_tree_key, write_private};

fn dir(state: &Path) -> PathBuf {
    state.join("freshness")
}

/// The backup of the work tree at `root`, for the line of history checked
/// out (each branch keeps its own newest graph).
pub fn backup_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db", scoped_key(root)))
}

/// The link an unlock session keeps to a large graph.db until it copies it.
pub fn link_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db.link", scoped_key(root)))
}

/// The file naming the seal the backup holds.
fn holds_path(state: &Path, root: &Path) -> PathBuf {
    dir(state).join(format!("{}-graph.db.seal", scoped_key(root)))
}

/// Where a store set aside by a restore goes: never deleted.
pub fn aside_path(state: &Path, root: &Path, at: i64) -> PathBuf {
    dir(state).join(format!("{}-aside-{at}.db", work_tree_key(root)))
}

/// The largest graph.db copied at every commit (larger ones are linked,
/// then copied by an idle unlock session).
pub const COPY_WITHIN: u64 = 64 << 20;

/// Whether the backup holds the seal `statement` (hex) already.
pub fn backup_holds(state: &Path, root: &Path, statement: &str) -> bool {
    backup_path(state, root).is_file()
        && std::fs::read_to_string(holds_path(state, root)).is_ok_and(|s| s.trim() == statement)
}

/// Whether the backup of a store whose seal is `statement` is still owed a
/// copy (it is none, or a link).
pub fn copy_owed(state: &Path, root: &Path, statement: &str) -> bool {
    !backup_holds(state, root, statement)
}

/// What keeping a backup did.
#[derive(Debug, PartialEq, Eq)]
pub enum Kept {
    /// The backup holds the store as committed: a verified copy.
    Copy,
    /// A link to graph.db until a copy is made (an unlock session's large
    /// store); the last verified copy is still there.
    Link,
    /// The copy failed its check: graph.db changed after the commit. The
    /// last verified copy stays; why.
    Refused(String),
    /// No backup could be written (no state directory, a full disk).
    Nothing,
    /// A deferred copy stopped part way because a client was waiting: the
    /// link stays beside the last verified copy, and the copy is still
    /// owed.
    Interrupted,
}

impl Kept {
    /// Whether a backup of the store as committed is kept.
    pub fn holds(&self) -> bool {
        matches!(self, Kept::Copy | Kept::Link | Kept::Interrupted)
    }
}

/// What graph.db and its write-ahead log were when a commit ended: a copy
/// made while they still are holds that commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp([Option<FileStamp>; 2]);

/// One file's identity, size and change time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    dev: u64,
    ino: u64,
    size: u64,
    ctime: (i64, i64),
}

impl Stamp {
    /// The files of the index at `db` as they are now.
    pub fn of(db: &Path) -> Stamp {
        let mut wal = db.as_os_str().to_owned();
        wal.push("-wal");
        let one = |p: &Path| {
            std::fs::metadata(p).ok().map(|m| FileStamp {
                dev: m.dev(),
                ino: m.ino(),
                size: m.size(),
                ctime: (m.ctime(), m.ctime_nsec()),
            })
        };
        Stamp([one(db), one(Path::new(&wal))])
    }
}

/// How a copy is checked: `whole` asks for every row (the files changed
/// since the commit), else the seal id alone.
pub type Check<'a> = dyn Fn(&Connection, bool) -> Result<(), Unchecked> + 'a;

/// Why a copy is not taken as the backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unchecked {
    /// It is not what was committed: why.
    Refused(String),
    /// Its check was stopped for a client (see [`Stop`]): done again later.
    Stopped,
}

/// Asked between the steps of a copy: true stops it (a client is waiting
/// on an idle session, which copies again when next idle).
pub type Stop<'a> = dyn Fn() -> bool + 'a;

/// When and how a backup is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Right after a commit (or an open), a copy whatever the size.
    Copy,
    /// Right after an unlock session's commit: a copy of a small store, a
    /// link to a large one.
    CopyOrLink,
    /// Later (an idle unlock session): a copy, checked whole.
    Deferred,
}

/// Keeps a backup of the store open on `conn` at `db` (whose seal is
/// `statement`, hex; its files were `stamp` when it was committed), unless
/// the backup holds that seal already. A copy replaces the last one only
/// once `check` passes on it.
pub fn keep_backup(
    state: &Path,
    root: &Path,
    (conn, db, stamp): (&Connection, &Path, &Stamp),
    statement: &str,
    how: How,
    (check, stop): (&Check<'_>, &Stop<'_>),
) -> Kept {
    keep_within(
        state,
        root,
        (conn, db, stamp),
        statement,
        how,
        (check, stop),
        copy_within(),
    )
}

#[cfg(test)]
thread_local! {
    /// A test's limit in place of [`COPY_WITHIN`] (a small store made large).
    pub(crate) static TEST_COPY_WITHIN: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

fn copy_within() -> u64 {
    #[cfg(test)]
    if let Some(limit) = TEST_COPY_WITHIN.with(std::cell::Cell::get) {
        return limit;
    }
    COPY_WITHIN
}

fn keep_within(
    state: &Path,
    root: &Path,
    (conn, db, stamp): (&Connection, &Path, &Stamp),
    statement: &str,
    how: How,
    (check, stop): (&Check<'_>, &Stop<'_>),
    within: u64,
) -> Kept {
    if backup_holds(state, root, statement) {
        return Kept::Copy;
    }
    if private_dir(&dir(state)).is_err() {
        return Kept::Nothing;
    }
    let small = std::fs::metadata(db).is_ok_and(|m| m.len() <= within);
    if how == How::CopyOrLink && !small {
        return if link(state, root, db) {
            Kept::Link
        } else {
            Kept::Nothing
        };
    }
    let path = backup_path(state, root);
    let tmp = path.with_extension(format!("copy{}", std::process::id()));
    let checked = match copy(conn, &tmp, stop) {
        // A deferred copy (an idle session's) is always checked whole: the
        // files had seconds to change, and a change time is only as fine as
        // the kernel's clock tick.
        Ok(true) => verify(&tmp, check, how == How::Deferred || Stamp::of(db) != *stamp),
        // Stopped before the copy was whole: as a check stopped, below.
        Ok(false) => Err(Unchecked::Stopped),
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            return Kept::Nothing;
        }
    };
    match checked {
        Ok(()) => {}
        Err(Unchecked::Stopped) => {
            discard(tmp);
            return Kept::Interrupted;
        }
        Err(Unchecked::Refused(why)) => {
            let _ = std::fs::remove_file(&tmp);
            return Kept::Refused(why);
        }
    }
    if std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return Kept::Nothing;
    }
    let _ = std::fs::remove_file(link_path(state, root));
    if write_private(&holds_path(state, root), statement.as_bytes()).is_ok() {
        Kept::Copy
    } else {
        Kept::Nothing
    }
}

/// Removes a copy stopped part way, beside the client it was stopped for:
/// freeing gigabytes of a large store's copy takes the file system a second
/// or more. (A copy holds what graph.db holds, sealed; the next copy of
/// this process removes its name first in any case.)
fn discard(tmp: PathBuf) {
    if cfg!(test) {
        let _ = std::fs::remove_file(&tmp);
    } else {
        std::thread::spawn(move || {
            let _ = std::fs::remove_file(&tmp);
        });
    }
}

/// Runs `check` on the copy at `path`, opened on its own (no code of the
/// file's runs).
fn verify(path: &Path, check: &Check<'_>, whole: bool) -> Result<(), Unchecked> {
    let refused = |e: crate::error::Error| Unchecked::Refused(e.to_string());
    let conn = Connection::open(path).map_err(|e| refused(e.into()))?;
    crate::store::forbid_code(&conn).map_err(refused)?;
    check(&conn, whole)
}

/// Links graph.db under the link's name (the verified copy stays; its seal
/// file too, so a copy is still owed).
fn link(state: &Path, root: &Path, db: &Path) -> bool {
    let path = link_path(state, root);
    let tmp = path.with_extension(format!("link{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if std::fs::hard_link(db, &tmp).is_err() {
        return false;
    }
    // Renaming one link of a file over another link of it does nothing:
    // the temporary name goes in any case.
    let linked = std::fs::rename(&tmp, &path).is_ok();
    let _ = std::fs::remove_file(&tmp);
    linked
}

/// Pages a copy takes between two questions to its `stop` (16 MiB at
/// 16 KiB pages: a few tens of milliseconds).
const COPY_STEP: i32 = 1024;

/// SQLite's online backup of `conn` into a new 0600 file at `to`, in steps;
/// false when `stop` stopped it (the file is then the caller's to remove).
fn copy(conn: &Connection, to: &Path, stop: &Stop<'_>) -> rusqlite::Result<bool> {
    let _ = std::fs::remove_file(to);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let mut dst = Connection::open(to)?;
    {
        let backup = rusqlite::backup::Backup::new(conn, &mut dst)?;
        loop {
            match backup.step(COPY_STEP)? {
                rusqlite::backup::StepResult::Done => break,
                _ if stop() => return Ok(false),
                _ => {}
            }
        }
    }
    // One file, no log beside it.
    dst.pragma_update(None, "journal_mode", "DELETE")?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(conn: &Connection) -> String {
        conn.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap()
    }

    /// A state directory and a repository whose graph.db `setup` made.
    fn repo(setup: &str) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let (state, root) = (dir.path().join("state"), dir.path().join("repo"));
        std::fs::create_dir_all(&root).unwrap();
        let db = root.join("graph.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(setup).unwrap();
        (dir, state, root, db, conn)
    }

    /// [`keep_within`], never stopped.
    fn keep_unstopped(
        (state, root): (&Path, &Path),
        files: (&Connection, &Path, &Stamp),
        statement: &str,
        how: How,
        check: &Check<'_>,
        within: u64,
    ) -> Kept {
        keep_within(state, root, files, statement, how, (check, &|| false), within)
    }

    #[test]
    fn an_idle_copy_stopped_for_a_client_leaves_the_link_and_is_made_later() {
        // Several steps' worth of pages, so the copy asks between them.
        let (_dir, state, root, db, conn) =
            repo("PRAGMA page_size = 1024; CREATE TABLE t (x); INSERT INTO t VALUES ('first');");
        conn.execute(
            "CREATE TABLE pad AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) \
             SELECT i, randomblob(1000) AS b FROM n",
            [],
        )
        .unwrap();
        let stamp = Stamp::of(&db);
        let asked = std::cell::Cell::new(0);
        let keep = |how: How, stop: &Stop<'_>| {
            let check = |_: &Connection, _: bool| -> Result<(), Unchecked> { Ok(()) };
            keep_within(&state, &root, (&conn, &db, &stamp), "s1", how, (&check, stop), 1)
        };
        assert_eq!(keep(How::CopyOrLink, &|| false), Kept::Link);
        let knock = || {
            asked.set(asked.get() + 1);
            true
        };
        let kept = keep(How::Deferred, &knock);
        assert_eq!(kept, Kept::Interrupted);
        assert!(kept.holds(), "the link still holds the commit");
        assert_eq!(asked.get(), 1, "stopped at the first question");
        assert!(copy_owed(&state, &root, "s1"));
        assert!(link_path(&state, &root).exists() && !backup_path(&state, &root).exists());
        let left = std::fs::read_dir(state.join("freshness")).unwrap().count();
        assert_eq!(left, 1, "the link alone, no partial copy");
        assert_eq!(keep(How::Deferred, &|| false), Kept::Copy);
        assert!(!copy_owed(&state, &root, "s1"));
        // A check stopped part way is the same: the link stays, no copy.
        conn.execute("UPDATE t SET x = 'second'", []).unwrap();
        let stamp = Stamp::of(&db);
        let keep = |statement: &str, how: How, check: &Check<'_>| {
            keep_unstopped((&state, &root), (&conn, &db, &stamp), statement, how, check, 1)
        };
        let fine = |_: &Connection, _: bool| -> Result<(), Unchecked> { Ok(()) };
        let stopped = |_: &Connection, _: bool| -> Result<(), Unchecked> { Err(Unchecked::Stopped) };
        assert_eq!(keep("s2", How::CopyOrLink, &fine), Kept::Link);
        assert_eq!(keep("s2", How::Deferred, &stopped), Kept::Interrupted);
        assert!(copy_owed(&state, &root, "s2") && backup_holds(&state, &root, "s1"));
        assert_eq!(
            std::fs::read_dir(state.join("freshness")).unwrap().count(),
            3,
            "copy, seal, link"
        );
        assert_eq!(keep("s2", How::Deferred, &fine), Kept::Copy);
    }

    #[test]
    fn a_large_store_is_linked_beside_the_verified_copy_and_a_copy_failing_its_check_never_replaces_it() {
        let (_dir, state, root, db, conn) = repo("CREATE TABLE t (x); INSERT INTO t VALUES ('first');");
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let (backup, linked) = (backup_path(&state, &root), link_path(&state, &root));
        // The check stands for the seal: the copy must hold what was committed.
        // Every check in this test looks at the row (a whole check).
        let holding = |want: &'static str| {
            move |c: &Connection, _whole: bool| -> Result<(), Unchecked> {
                if x(c) == want {
                    Ok(())
                } else {
                    Err(Unchecked::Refused(format!("holds {}", x(c))))
                }
            }
        };
        let keep = |statement: &str, how: How, want: &'static str, within: u64| {
            let stamp = Stamp::of(&db);
            keep_unstopped(
                (&state, &root),
                (&conn, &db, &stamp),
                statement,
                how,
                &holding(want),
                within,
            )
        };
        // Large (over the limit): a link at once under its own name, a copy
        // still owed.
        assert_eq!(keep("s1", How::CopyOrLink, "first", 1), Kept::Link);
        assert_eq!(keep("s1", How::CopyOrLink, "first", 1), Kept::Link);
        assert_eq!(ino(&linked), ino(&db));
        assert!(!backup.exists());
        assert!(copy_owed(&state, &root, "s1"));
        // Copied when asked (an idle session): checked, then the link goes.
        assert_eq!(keep("s1", How::Deferred, "first", 1), Kept::Copy);
        assert_ne!(ino(&backup), ino(&db));
        assert!(!linked.exists());
        assert!(!copy_owed(&state, &root, "s1"));
        assert_eq!(std::fs::metadata(&backup).unwrap().mode() & 0o777, 0o600);
        // The next commit is linked; the verified copy of the first stays.
        conn.execute("UPDATE t SET x = 'second'", []).unwrap();
        assert_eq!(keep("s2", How::CopyOrLink, "second", 1), Kept::Link);
        assert!(copy_owed(&state, &root, "s2"));
        assert!(backup_holds(&state, &root, "s1"));
        // graph.db edited in place before the copy: the link follows it, the
        // copy fails its check and is thrown away, the verified copy stays.
        conn.execute("UPDATE t SET x = 'tampered'", []).unwrap();
        assert_eq!(x(&Connection::open(&linked).unwrap()), "tampered");
        assert_eq!(
            keep("s2", How::Deferred, "second", 1),
            Kept::Refused("holds tampered".into())
        );
        assert_eq!(x(&Connection::open(&backup).unwrap()), "first");
        assert!(backup_holds(&state, &root, "s1"));
        let left: Vec<_> = std::fs::read_dir(state.join("freshness"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            left.len(),
            3,
            "the copy, its seal and the link, no temporary file: {left:?}"
        );
        // Right after a commit: the seal alone while the files are as the
        // commit left them, the whole copy once they changed.
        let wholes = std::cell::RefCell::new(Vec::new());
        let noting = |c: &Connection, whole: bool| -> Result<(), Unchecked> {
            wholes.borrow_mut().push((x(c), whole));
            Ok(())
        };
        let stamp = Stamp::of(&db);
        let at_once = |statement: &str, stamp: &Stamp| {
            keep_unstopped((&state, &root), (&conn, &db, stamp), statement, How::Copy, &noting, 1)
        };
        assert_eq!(at_once("s2b", &stamp), Kept::Copy);
        conn.execute("UPDATE t SET x = 'touched'", []).unwrap();
        assert_ne!(Stamp::of(&db), stamp, "a write changes the stamp");
        assert_eq!(at_once("s2c", &stamp), Kept::Copy);
        assert_eq!(
            *wholes.borrow(),
            [("tampered".to_owned(), false), ("touched".to_owned(), true)]
        );
        // Small: copied (and checked) at once.
        conn.execute("UPDATE t SET x = 'third'", []).unwrap();
        assert_eq!(keep("s3", How::CopyOrLink, "third", u64::MAX), Kept::Copy);
        assert!(!copy_owed(&state, &root, "s3"));
        assert_ne!(ino(&backup), ino(&db));
        // An edit in place of graph.db does not reach the copy.
        conn.execute("UPDATE t SET x = 'older'", []).unwrap();
        assert_eq!(x(&Connection::open(&backup).unwrap()), "third");
    }
}
