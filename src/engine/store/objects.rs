//! The object store: content-addressed blob files under `.gpp/objects/`,
//! fanned out as git keeps its loose objects: blob `abcdef…` is
//! `objects/ab/cdef…`, so no directory holds more than a few thousand
//! entries at a million blobs. A store made before the fan-out keeps its
//! blobs flat (`objects/abcdef…`) until [`Objects::fan_out`] moves them (any
//! write, or `graphex migrate`); every read finds either form.
//! A blob is written to a temporary file, synced, then renamed into place, so
//! a crash leaves either no file or a whole one; orphans are harmless. A
//! deferred write (bulk loads) goes straight to its name instead: nothing
//! names it before the caller has synced it, so a crash can leave only a
//! torn orphan, never a torn blob that the index names.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};

/// The blob directory.
#[derive(Clone, Debug)]
pub struct Objects {
    dir: PathBuf,
    /// Where a blob this directory lacks is read from instead (a past
    /// state's blobs are mostly the store's own): reads only, and every
    /// read checks the content against its name.
    fallback: Option<PathBuf>,
    /// The fan-out directories this session made or checked (a bulk load
    /// does not ask the filesystem again for each of its blobs).
    checked: Arc<[AtomicBool; 256]>,
}

/// Whether a write waits for the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// fsync the file and the directory before returning.
    Sync,
    /// Leave syncing to a later [`Objects::sync_dir`] (bulk loads).
    Deferred,
}

impl Durability {
    /// For a commit writing `nodes` blobs: each synced alone for a few,
    /// one directory sync at the end for many (an import, a pull).
    pub fn for_nodes(nodes: usize) -> Self {
        if nodes > 64 {
            Durability::Deferred
        } else {
            Durability::Sync
        }
    }
}

impl Objects {
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            fallback: None,
            checked: Arc::new(std::array::from_fn(|_| AtomicBool::new(false))),
        }
    }

    /// Blobs in `dir`, and those it lacks read from `fallback`.
    pub fn with_fallback(dir: PathBuf, fallback: PathBuf) -> Self {
        Self {
            fallback: Some(fallback),
            ..Self::new(dir)
        }
    }

    /// Runs `op` on where blob `hash` may be, in order: its fanned-out path,
    /// its flat path (a store not migrated yet), the fanned path again (a
    /// migration in another process may have moved it in between), then the
    /// fallback's two. The first answer other than "not found" is kept;
    /// when every place lacks it, the fanned path's "not found".
    fn locate<T>(&self, hash: &str, op: impl Fn(&Path) -> std::io::Result<T>) -> Result<(std::io::Result<T>, PathBuf)> {
        let own = self.path(hash)?;
        for place in self.places(hash)? {
            match op(&place) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                answer => return Ok((answer, place)),
            }
        }
        Ok((op(&own), own))
    }

    /// Where blob `hash` may be, in the order [`Objects::locate`] tries.
    fn places(&self, hash: &str) -> Result<Vec<PathBuf>> {
        let own = self.path(hash)?;
        let mut places = vec![own.clone(), self.dir.join(hash), own];
        if let Some(other) = &self.fallback {
            places.extend([fanned_path(other, hash), other.join(hash)]);
        }
        Ok(places)
    }

    /// The hex SHA-256 of `bytes`: a blob's name.
    pub fn hash(bytes: &[u8]) -> String {
        crate::crypto::sha256_hex(bytes)
    }

    /// Where blob `hash` is written: `objects/ab/cdef…`.
    fn path(&self, hash: &str) -> Result<PathBuf> {
        if !is_blob_name(hash) {
            return Err(Error::integrity("object name", format!("{hash:?} is not a blob hash")));
        }
        Ok(fanned_path(&self.dir, hash))
    }

    /// Stores `bytes` and returns their hash.
    pub fn write(&self, bytes: &[u8], durability: Durability) -> Result<String> {
        let hash = Self::hash(bytes);
        let path = self.path(&hash)?;
        if durability == Durability::Deferred && self.write_new(&path, bytes)? {
            return Ok(hash);
        }
        let tmp = self.dir.join(format!(".tmp-{hash}-{}", std::process::id()));
        let mut f = fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        f.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
        if durability == Durability::Sync {
            f.sync_all().map_err(|e| Error::io(&tmp, e))?;
        }
        drop(f);
        let (sub, mut made) = self.subdir_made(&path)?;
        // Made again (removed meanwhile): its entry is synced too.
        let renamed = self
            .in_subdir(&path, || fs::rename(&tmp, &path))
            .and_then(|(r, remade)| {
                made |= remade;
                r.map_err(|e| Error::io(&path, e))
            });
        if renamed.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        renamed?;
        if durability == Durability::Sync {
            sync_dir(&sub)?;
            // The directory's own entry, when this write made it.
            if made {
                self.sync_dir()?;
            }
        }
        Ok(hash)
    }

    /// The fan-out directory `path` goes in, made if missing (git keeps no
    /// empty directory, so a clone lacks those no blob is in yet).
    /// One that is there must be a directory of its own: a link (or a
    /// file) planted under that name would take blobs out of `.gpp/objects`
    /// (and out of what git commits), so it is refused.
    fn subdir(&self, path: &Path) -> Result<PathBuf> {
        self.subdir_made(path).map(|(sub, _)| sub)
    }

    /// [`Objects::subdir`], and whether this call made it.
    fn subdir_made(&self, path: &Path) -> Result<(PathBuf, bool)> {
        let sub = path.parent().unwrap_or(&self.dir).to_owned();
        let slot = sub
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| u8::from_str_radix(n, 16).ok())
            .map(|i| &self.checked[usize::from(i)]);
        if slot.is_some_and(|s| s.load(Ordering::Acquire)) {
            return Ok((sub, false));
        }
        let made = self.make_subdir(&sub)?;
        if let Some(s) = slot {
            s.store(true, Ordering::Release);
        }
        Ok((sub, made))
    }

    /// Runs `op` on `path`, in its fan-out directory; when that directory is
    /// gone (a directory this session made may be: a git checkout removes
    /// one it emptied), makes it again and runs `op` once more. Also says
    /// whether it made the directory.
    fn in_subdir<T>(&self, path: &Path, op: impl Fn() -> std::io::Result<T>) -> Result<(std::io::Result<T>, bool)> {
        match op() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let remade = self.make_subdir(path.parent().unwrap_or(&self.dir))?;
                Ok((op(), remade))
            }
            other => Ok((other, false)),
        }
    }

    /// Makes `sub`, or checks the one there is a directory of its own;
    /// true when it made it.
    fn make_subdir(&self, sub: &Path) -> Result<bool> {
        match fs::create_dir(sub) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if fs::symlink_metadata(sub).is_ok_and(|m| m.file_type().is_dir()) {
                    Ok(false)
                } else {
                    Err(not_a_directory(sub))
                }
            }
            Err(e) => Err(Error::io(sub, e)),
        }
    }

    /// Writes `bytes` in place to `path` when no file has that name (which
    /// is then nobody's blob yet): a temporary name and a rename would cost
    /// two more updates of a large directory per blob. False when a file is
    /// there already (an orphan a crash may have torn: it is replaced whole,
    /// by rename, never written into). A failed write leaves no file.
    fn write_new(&self, path: &std::path::Path, bytes: &[u8]) -> Result<bool> {
        self.subdir(path)?;
        let create = || fs::OpenOptions::new().write(true).create_new(true).open(path);
        let (opened, _) = self.in_subdir(path, create)?;
        let mut f = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(Error::io(path, e)),
        };
        if let Err(e) = f.write_all(bytes) {
            drop(f);
            let _ = fs::remove_file(path);
            return Err(Error::io(path, e));
        }
        Ok(true)
    }

    /// Reads the blob `hash` and checks its content matches the name.
    /// A copy that does not match (a file planted in the fan-out beside a
    /// whole flat copy) is passed over for the next place.
    pub fn read(&self, hash: &str) -> Result<Vec<u8>> {
        let mut altered = false;
        for place in self.places(hash)? {
            match fs::read(&place) {
                Ok(bytes) if Self::hash(&bytes) == hash => return Ok(bytes),
                Ok(_) => altered = true,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&place, e)),
            }
        }
        Err(if altered {
            Error::integrity(
                format!("blob {hash}"),
                "content does not match its name (altered or corrupt)",
            )
        } else {
            Error::integrity(format!("blob {hash}"), "missing from .gpp/objects")
        })
    }

    /// Whether the file at `path` holds blob `hash`.
    fn holds(path: &Path, hash: &str) -> bool {
        fs::read(path).is_ok_and(|bytes| Self::hash(&bytes) == hash)
    }

    /// Reads the blob `hash` into `buf` (emptied first) without re-hashing
    /// it: only for objects whose content is authenticated by AEAD anyway
    /// (large snapshots). One buffer serves several reads: memory a process
    /// touches for the first time costs a page fault per page. `buf` should
    /// hold nothing secret when it may grow (its old allocation is freed as
    /// it is).
    pub fn read_authenticated_later_into(&self, hash: &str, buf: &mut Vec<u8>) -> Result<()> {
        buf.clear();
        let (opened, path) = self.locate(hash, |p| fs::File::open(p))?;
        let read = opened.and_then(|mut f| {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            buf.reserve(usize::try_from(len).unwrap_or(0));
            std::io::Read::read_to_end(&mut f, buf)
        });
        read.map(|_| ()).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::integrity(format!("object {hash}"), "missing from .gpp/objects"),
            _ => Error::io(&path, e),
        })
    }

    /// The size of the blob `hash`, in bytes.
    pub fn size(&self, hash: &str) -> Result<u64> {
        let (meta, path) = self.locate(hash, |p| fs::metadata(p))?;
        meta.map(|m| m.len()).map_err(|e| Error::io(&path, e))
    }

    /// Whether the blob `hash` is present.
    pub fn exists(&self, hash: &str) -> bool {
        self.locate(hash, |p| fs::metadata(p))
            .is_ok_and(|(meta, _)| meta.is_ok_and(|m| m.is_file()))
    }

    /// Removes a blob, in either form (never the fallback's); a missing one
    /// is fine.
    pub fn remove(&self, hash: &str) -> Result<()> {
        for path in [self.path(hash)?, self.dir.join(hash)] {
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        Ok(())
    }

    /// Moves every flat blob (a store made before the fan-out) to its
    /// fanned-out place, and returns how many moved. Each move is one
    /// rename, so a crash leaves every blob whole in one place or the
    /// other, and readers find either. A flat copy of a blob already fanned
    /// out is removed. Once moved, it costs one listing of `objects/` (its
    /// 256 directories), so every commit runs it: flat blobs a git merge of
    /// an older branch brings in move at the next write of any session.
    pub fn fan_out(&self) -> Result<usize> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(Error::io(&self.dir, e)),
        };
        let mut subdirs = std::collections::BTreeSet::new();
        let mut moved = 0;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.dir, e))?;
            let name = entry.file_name();
            let Some(hash) = name.to_str().filter(|n| is_blob_name(n)) else {
                continue;
            };
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let (from, to) = (entry.path(), self.path(hash)?);
            let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
            if to.is_file() {
                if Self::holds(&to, hash) {
                    // A copy of what is in place; gone already if another
                    // process moved or dropped it.
                    match fs::remove_file(&from) {
                        Err(e) if !gone(&e) => return Err(Error::io(&from, e)),
                        _ => continue,
                    }
                }
                // What is in place is not the blob (planted, torn): the flat
                // copy replaces it when it is whole, else both stay.
                if !Self::holds(&from, hash) {
                    continue;
                }
            }
            subdirs.insert(self.subdir(&to)?);
            let (renamed, _) = self.in_subdir(&to, || fs::rename(&from, &to))?;
            match renamed {
                Ok(()) => moved += 1,
                // Moved by another process meanwhile.
                Err(e) if gone(&e) => {}
                Err(e) => return Err(Error::io(&to, e)),
            }
        }
        for sub in &subdirs {
            sync_dir(sub)?;
        }
        if moved > 0 {
            self.sync_dir()?;
        }
        Ok(moved)
    }

    /// Every blob name present (either form), with its path; files that
    /// are not blobs (temporaries, strays) are `Err(path)`.
    pub fn list(&self) -> Result<Vec<Listed>> {
        let mut out = Vec::new();
        let read = |dir: &Path| -> Result<Vec<fs::DirEntry>> {
            match fs::read_dir(dir) {
                Ok(entries) => entries.map(|e| e.map_err(|e| Error::io(dir, e))).collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
                Err(e) => Err(Error::io(dir, e)),
            }
        };
        for entry in read(&self.dir)? {
            let (path, name) = (entry.path(), entry.file_name().to_string_lossy().into_owned());
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && name.len() == 2 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
                for inner in read(&path)? {
                    let rest = inner.file_name().to_string_lossy().into_owned();
                    let hash = format!("{name}{rest}");
                    let is_file = inner.file_type().is_ok_and(|t| t.is_file());
                    out.push(if is_file && is_blob_name(&hash) {
                        Ok((hash, inner.path()))
                    } else {
                        Err(inner.path())
                    });
                }
            } else if entry.file_type().is_ok_and(|t| t.is_file()) && is_blob_name(&name) {
                out.push(Ok((name, path)));
            } else {
                out.push(Err(path));
            }
        }
        Ok(out)
    }

    /// Syncs every named file and the directory (after deferred writes).
    pub fn sync_files<'a>(&self, hashes: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let paths = hashes.into_iter().map(|h| self.path(h)).collect::<Result<Vec<_>>>()?;
        let subdirs: std::collections::BTreeSet<&Path> = paths.iter().filter_map(|p| p.parent()).collect();
        let sync = |path: &PathBuf| {
            fs::File::open(path)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(path, e))
        };
        // Concurrent fsyncs share journal commits on most filesystems: a
        // commit of several blobs costs about one sync, not one per file.
        if paths.len() > 1 {
            std::thread::scope(|scope| {
                let handles: Vec<_> = paths
                    .chunks(paths.len().div_ceil(8))
                    .map(|chunk| scope.spawn(move || chunk.iter().try_for_each(sync)))
                    .collect();
                handles.into_iter().try_for_each(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::integrity("fsync", "a sync thread failed")))
                })
            })?;
        } else {
            paths.iter().try_for_each(sync)?;
        }
        subdirs.into_iter().try_for_each(sync_dir)?;
        self.sync_dir()
    }

    /// Syncs the whole filesystem holding the objects (one call after many
    /// deferred writes, instead of one fsync per file).
    pub fn sync_filesystem(&self) -> Result<()> {
        let dir = fs::File::open(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        rustix::fs::syncfs(&dir).map_err(|e| Error::io(&self.dir, e.into()))
    }

    /// Syncs the directory entry list, so renames survive a crash.
    pub fn sync_dir(&self) -> Result<()> {
        sync_dir(&self.dir)
    }
}

pub use crate::durable::sync_dir;

/// One entry of [`Objects::list`]: a blob (its name and file), or a file
/// that is not one.
pub type Listed = std::result::Result<(String, PathBuf), PathBuf>;

/// What a listing of the objects directory holds, by layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Blob files, in either form (a blob in both counts twice).
    pub blobs: usize,
    /// Those kept flat (`objects/abcdef…`).
    pub flat: usize,
    /// The flat ones with no fanned-out copy: what a fan-out moves.
    pub to_move: usize,
    /// Fan-out names that are not a directory of their own (planted).
    pub planted: Vec<PathBuf>,
}

impl Census {
    /// The census of `listed`, a listing of the objects directory `dir`.
    pub fn of(dir: &Path, listed: &[Listed]) -> Self {
        let mut c = Census::default();
        // The fanned-out copies the listing holds (no stat a flat blob).
        let fanned: std::collections::HashSet<&str> = listed
            .iter()
            .filter_map(|e| e.as_ref().ok())
            .filter(|(_, path)| path.parent() != Some(dir))
            .map(|(hash, _)| hash.as_str())
            .collect();
        for entry in listed {
            match entry {
                Ok((hash, path)) => {
                    c.blobs += 1;
                    if path.parent() == Some(dir) {
                        c.flat += 1;
                        c.to_move += usize::from(!fanned.contains(hash.as_str()));
                    }
                }
                // A fan-out name in `dir` itself (a stray file inside a
                // fan-out directory is only a stray).
                Err(path) if path.parent() == Some(dir) && is_planted_subdir(path) => c.planted.push(path.clone()),
                Err(_) => {}
            }
        }
        c
    }
}

/// Where blob `hash` is in a committed tree, relative to `.gpp/objects`:
/// fanned out (`ab/cdef…`), then flat as an older version committed it.
/// None for a name that is not a blob's.
pub fn tree_paths(hash: &str) -> Option<[String; 2]> {
    is_blob_name(hash).then(|| [format!("{}/{}", &hash[..2], &hash[2..]), hash.to_owned()])
}

/// The blob a path in a committed tree's objects directory holds (the
/// reverse of [`tree_paths`]: lowercase hex only); none for any other
/// name (`..`, a path of its own, whatever git's plumbing can commit).
pub fn blob_in_tree(path: &str) -> Option<String> {
    let hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    match path.split_once('/') {
        Some((sub, rest)) if sub.len() == 2 && rest.len() == 62 && hex(sub) && hex(rest) => {
            Some(format!("{sub}{rest}"))
        }
        None if path.len() == 64 && hex(path) => Some(path.to_owned()),
        _ => None,
    }
}

/// The error for a fan-out name that is not a directory of its own.
fn not_a_directory(sub: &Path) -> Error {
    Error::integrity(
        sub.display().to_string(),
        "not a directory of its own (a link or a file planted there): blobs written through it would leave \
         .gpp/objects; remove it (see `graphex doctor`)",
    )
}

/// Whether `entry` of the objects directory is a fan-out name (two hex
/// digits) that is not a directory of its own: a finding for `doctor`.
fn is_planted_subdir(entry: &Path) -> bool {
    let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    name.len() == 2
        && name.bytes().all(|b| b.is_ascii_hexdigit())
        && !fs::symlink_metadata(entry).is_ok_and(|m| m.file_type().is_dir())
}

/// Blob `hash`'s fanned-out path under `dir`: `dir/ab/cdef…` (a name too
/// short to split stays whole; `Objects` checks names before).
pub(crate) fn fanned_path(dir: &Path, hash: &str) -> PathBuf {
    match (hash.get(..2), hash.get(2..)) {
        (Some(sub), Some(rest)) if !rest.is_empty() => dir.join(sub).join(rest),
        _ => dir.join(hash),
    }
}

/// Whether `name` has a blob's name's one form: a SHA-256 in hex.
pub(crate) fn is_blob_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
#[path = "objects_tests.rs"]
mod tests;
