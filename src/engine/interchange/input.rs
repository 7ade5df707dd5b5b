//! Which files an import reads, and how much of them. A file given by name
//! is read as given; a directory (Ash's collections) gives its `*.jsonl`
//! files, each resolved to its real location, which must lie inside the
//! directory: a symbolic link in it leading elsewhere (to `~/.ssh`, say)
//! would otherwise put what lies there into the graph. The files of one
//! import together hold at most [`MAX_INPUT_BYTES`], checked on their sizes
//! before anything is read and again while reading (a file may grow).

use std::cell::Cell;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::{ImportFormat, Input, MAX_INPUT_BYTES, Mapped, parse_inputs};
use crate::error::{Error, Result};

/// One file an import reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// The path as the user sees it (the directory joined with its name).
    pub shown: String,
    /// Where it really is (every link resolved); this is what is opened.
    pub real: PathBuf,
}

fn refused(path: &Path, reason: impl Into<String>) -> Error {
    Error::Document {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// A file or directory that cannot be read (the I/O error is the reason:
/// the path is said once).
fn unreadable(path: &Path, e: &std::io::Error) -> Error {
    refused(path, format!("cannot read it: {e}"))
}

fn mib(bytes: u64) -> u64 {
    bytes / (1024 * 1024)
}

/// The files an import of `path` reads: `path` itself, or, when it is a
/// directory and `directory` allows one, its `*.jsonl` files in name
/// order. Refuses an entry whose real location is outside the directory
/// (naming it), and files whose sizes together pass [`MAX_INPUT_BYTES`].
pub fn input_files(path: &Path, directory: bool) -> Result<Vec<InputFile>> {
    if !(directory && path.is_dir()) {
        let len = std::fs::metadata(path).map_err(|e| unreadable(path, &e))?.len();
        check_total(path, len, "")?;
        return Ok(vec![InputFile {
            shown: path.display().to_string(),
            real: path.to_path_buf(),
        }]);
    }
    let root = std::fs::canonicalize(path).map_err(|e| unreadable(path, &e))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| unreadable(path, &e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    let mut total = 0u64;
    for shown in names {
        let real = std::fs::canonicalize(&shown).map_err(|e| unreadable(&shown, &e))?;
        if !real.starts_with(&root) {
            return Err(refused(
                &shown,
                format!(
                    "a symbolic link leading to {}, outside the directory imported; only files inside it are read \
                     (copy the file in, or remove the link)",
                    real.display()
                ),
            ));
        }
        let meta = std::fs::metadata(&real).map_err(|e| unreadable(&shown, &e))?;
        if !meta.is_file() {
            continue;
        }
        total = total.saturating_add(meta.len());
        out.push(InputFile {
            shown: shown.display().to_string(),
            real,
        });
    }
    if out.is_empty() {
        return Err(refused(path, "no .jsonl files in this directory"));
    }
    check_total(path, total, "its .jsonl files hold ")?;
    Ok(out)
}

/// Refuses `total` bytes over the cap; `what` says whose they are.
fn check_total(path: &Path, total: u64, what: &str) -> Result<()> {
    if total > MAX_INPUT_BYTES {
        let together = if what.is_empty() { "" } else { " together" };
        return Err(refused(
            path,
            format!(
                "{what}{total} bytes{together}; an import reads at most {MAX_INPUT_BYTES} bytes ({} MiB): split it",
                mib(MAX_INPUT_BYTES)
            ),
        ));
    }
    Ok(())
}

/// Parses `files` (what [`input_files`] gave for `path`) in `format`,
/// reading each as a stream, at most [`MAX_INPUT_BYTES`] together.
pub fn parse_files(format: ImportFormat, path: &Path, files: &[InputFile]) -> Result<Mapped> {
    parse_within(format, path, files, MAX_INPUT_BYTES)
}

/// [`parse_files`] reading at most `max` bytes together.
fn parse_within(format: ImportFormat, path: &Path, files: &[InputFile], max: u64) -> Result<Mapped> {
    let left = Cell::new(max);
    let cap = format!(
        "more than {max} bytes ({} MiB) read from {} (a file grew since it was measured?); an import reads \
         at most that: split it",
        mib(max),
        path.display()
    );
    let mut readers = Vec::with_capacity(files.len());
    for f in files {
        let file = std::fs::File::open(&f.real).map_err(|e| unreadable(&f.real, &e))?;
        readers.push(BufReader::with_capacity(
            READ_BUFFER,
            Capped {
                file,
                left: &left,
                cap: &cap,
            },
        ));
    }
    let mut inputs: Vec<Input<'_>> = files
        .iter()
        .zip(readers.iter_mut())
        .map(|(f, read)| Input { file: &f.shown, read })
        .collect();
    parse_inputs(format, &mut inputs)
}

/// How much of a file is read at a time.
const READ_BUFFER: usize = 256 * 1024;

/// A file read against the budget every file of the import shares.
struct Capped<'a> {
    file: std::fs::File,
    left: &'a Cell<u64>,
    cap: &'a str,
}

impl Read for Capped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        let left = self.left.get();
        if n as u64 > left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                self.cap.to_owned(),
            ));
        }
        self.left.set(left - n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_at_the_cap_shared_by_every_file() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("a.jsonl", "{\"id\":\"1\"}\n"), ("b.jsonl", "{\"id\":\"2\"}\n")] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let files = input_files(dir.path(), true).unwrap();
        assert_eq!(files.len(), 2);
        let total = 2 * 11;
        let both = parse_within(ImportFormat::AshJsonl, dir.path(), &files, total).unwrap();
        assert_eq!(both.nodes.len(), 2, "exactly at the cap: read");
        let Err(Error::Document { path, reason }) = parse_within(ImportFormat::AshJsonl, dir.path(), &files, total - 1)
        else {
            panic!("one byte over the cap together, each file under it, was read");
        };
        assert!(path.ends_with("b.jsonl"), "{path}");
        assert!(reason.contains("more than 21 bytes"), "{reason}");
    }
}
