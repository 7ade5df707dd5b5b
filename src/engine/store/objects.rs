//! The object store: content-addressed blob files under `.gpp/objects/`.
//! A blob is written to a temporary file, synced, then renamed into place, so
//! a crash leaves either no file or a whole one; orphans are harmless. A
//! deferred write (bulk loads) goes straight to its name instead: nothing
//! names it before the caller has synced it, so a crash can leave only a
//! torn orphan, never a torn blob that the index names.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result};

/// The blob directory.
#[derive(Clone, Debug)]
pub struct Objects {
    dir: PathBuf,
    /// Where a blob this directory lacks is read from instead (a past
    /// state's blobs are mostly the store's own): reads only, and every
    /// read checks the content against its name.
    fallback: Option<PathBuf>,
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
        Self { dir, fallback: None }
    }

    /// Blobs in `dir`, and those it lacks read from `fallback`.
    pub fn with_fallback(dir: PathBuf, fallback: PathBuf) -> Self {
        Self {
            dir,
            fallback: Some(fallback),
        }
    }

    /// Where blob `hash` is read from: this directory, else the fallback's
    /// copy when it has one.
    fn read_path(&self, hash: &str) -> Result<PathBuf> {
        let own = self.path(hash)?;
        match &self.fallback {
            Some(other) if !own.is_file() && other.join(hash).is_file() => Ok(other.join(hash)),
            _ => Ok(own),
        }
    }

    /// The hex SHA-256 of `bytes`: a blob's name.
    pub fn hash(bytes: &[u8]) -> String {
        crate::crypto::sha256_hex(bytes)
    }

    fn path(&self, hash: &str) -> Result<PathBuf> {
        if !is_blob_name(hash) {
            return Err(Error::integrity("object name", format!("{hash:?} is not a blob hash")));
        }
        Ok(self.dir.join(hash))
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
        fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        if durability == Durability::Sync {
            self.sync_dir()?;
        }
        Ok(hash)
    }

    /// Writes `bytes` in place to `path` when no file has that name (which
    /// is then nobody's blob yet): a temporary name and a rename would cost
    /// two more updates of a large directory per blob. False when a file is
    /// there already (an orphan a crash may have torn: it is replaced whole,
    /// by rename, never written into). A failed write leaves no file.
    fn write_new(&self, path: &std::path::Path, bytes: &[u8]) -> Result<bool> {
        let mut f = match fs::OpenOptions::new().write(true).create_new(true).open(path) {
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
    pub fn read(&self, hash: &str) -> Result<Vec<u8>> {
        let path = self.read_path(hash)?;
        let bytes = fs::read(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::integrity(format!("blob {hash}"), "missing from .gpp/objects"),
            _ => Error::io(&path, e),
        })?;
        if Self::hash(&bytes) != hash {
            return Err(Error::integrity(
                format!("blob {hash}"),
                "content does not match its name (altered or corrupt)",
            ));
        }
        Ok(bytes)
    }

    /// Reads the blob `hash` into `buf` (emptied first) without re-hashing
    /// it: only for objects whose content is authenticated by AEAD anyway
    /// (large snapshots). One buffer serves several reads: memory a process
    /// touches for the first time costs a page fault per page. `buf` should
    /// hold nothing secret when it may grow (its old allocation is freed as
    /// it is).
    pub fn read_authenticated_later_into(&self, hash: &str, buf: &mut Vec<u8>) -> Result<()> {
        let path = self.read_path(hash)?;
        buf.clear();
        let read = fs::File::open(&path).and_then(|mut f| {
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
        let path = self.read_path(hash)?;
        fs::metadata(&path).map(|m| m.len()).map_err(|e| Error::io(&path, e))
    }

    /// Whether the blob `hash` is present.
    pub fn exists(&self, hash: &str) -> bool {
        self.read_path(hash).is_ok_and(|p| p.is_file())
    }

    /// Removes a blob; a missing one is fine.
    pub fn remove(&self, hash: &str) -> Result<()> {
        let path = self.path(hash)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Syncs every named file and the directory (after deferred writes).
    pub fn sync_files<'a>(&self, hashes: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let paths = hashes.into_iter().map(|h| self.path(h)).collect::<Result<Vec<_>>>()?;
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

/// Whether `name` has a blob's name's one form: a SHA-256 in hex.
pub(crate) fn is_blob_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_lowercase_hex_sha256() {
        assert_eq!(
            Objects::hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn writes_are_whole_and_reads_check_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let objects = Objects::new(dir.path().to_path_buf());
        let hash = objects.write(b"content", Durability::Sync).unwrap();
        assert_eq!(objects.read(&hash).unwrap(), b"content");
        std::fs::write(dir.path().join(&hash), b"altered").unwrap();
        assert!(matches!(objects.read(&hash), Err(Error::Integrity { .. })));
        assert!(objects.read("../../etc/passwd").is_err(), "only hashes name objects");
        objects.remove(&hash).unwrap();
        objects.remove(&hash).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no temp files left");
    }

    #[test]
    fn a_deferred_write_replaces_a_torn_orphan_whole() {
        let dir = tempfile::tempdir().unwrap();
        let objects = Objects::new(dir.path().to_path_buf());
        let hash = Objects::hash(b"whole content");
        // What a crash in the middle of an in-place write leaves.
        std::fs::write(dir.path().join(&hash), b"whole").unwrap();
        assert_eq!(objects.write(b"whole content", Durability::Deferred).unwrap(), hash);
        assert_eq!(objects.read(&hash).unwrap(), b"whole content");
        let fresh = objects.write(b"new content", Durability::Deferred).unwrap();
        assert_eq!(objects.read(&fresh).unwrap(), b"new content");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temp files left");
    }

    /// A past state's blobs: its own, else the store's; reads only, each
    /// checked against its name; a removal never reaches the fallback.
    #[test]
    fn a_fallback_is_read_checked_and_never_written() {
        let (own, store) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let theirs = Objects::new(store.path().to_owned());
        let hash = theirs.write(b"kept by the store", Durability::Sync).unwrap();
        let snap = Objects::with_fallback(own.path().to_owned(), store.path().to_owned());
        assert!(snap.exists(&hash));
        assert_eq!(snap.read(&hash).unwrap(), b"kept by the store");
        snap.remove(&hash).unwrap();
        assert!(theirs.exists(&hash), "the store's copy stays");
        std::fs::write(store.path().join(&hash), b"altered").unwrap();
        let e = snap.read(&hash).unwrap_err().to_string();
        assert!(e.contains("does not match its name"), "{e}");
        assert!(!Objects::new(own.path().to_owned()).exists(&hash));
    }
}
