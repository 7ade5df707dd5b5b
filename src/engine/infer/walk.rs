//! Bounded reading: directory walks that skip build output and hidden
//! directories and never follow symlinks, and file reads capped in size and
//! number.

use std::path::{Path, PathBuf};

use super::Findings;
use super::text::rel_string;

/// Largest file read, in bytes.
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Most directory entries one walk looks at, so a huge tree stays fast.
const MAX_ENTRIES: usize = 200_000;

/// Directories never entered: build output, vendored packages, fuzzing.
pub(super) fn ignored_dir(name: &str) -> bool {
    name.starts_with('.') || matches!(name, "target" | "node_modules")
}

/// How many more files a reader may open.
pub(super) struct Budget {
    left: usize,
    max: usize,
    what: &'static str,
}

impl Budget {
    pub(super) fn new(max: usize, what: &'static str) -> Self {
        Self { left: max, max, what }
    }
}

/// Reads `rel` (relative to `root`) as text, recording it as a source. Files
/// over [`MAX_FILE_BYTES`], unreadable ones and reads past the budget are
/// skipped with a note.
pub(super) fn read_text(root: &Path, rel: &Path, budget: &mut Budget, found: &mut Findings) -> Option<String> {
    let shown = rel_string(rel);
    if budget.left == 0 {
        found.note(format!(
            "only the first {} {} were read (the limit); the rest were not",
            budget.max, budget.what
        ));
        return None;
    }
    // Paths may come from manifests: stay inside the tree, and read only
    // regular files (never through a link, never a FIFO or device).
    if !rel.components().all(|c| matches!(c, std::path::Component::Normal(_))) {
        found.note(format!("{shown}: not read (outside the tree)"));
        return None;
    }
    if !resolves_inside(root, rel) {
        found.note(format!("{shown}: not read (a symbolic link leads outside the tree)"));
        return None;
    }
    let path = root.join(rel);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => {
            found.note(format!("{shown}: not read (a symbolic link)"));
            return None;
        }
        Ok(m) if !m.is_file() => {
            found.note(format!("{shown}: not read (not a regular file)"));
            return None;
        }
        Ok(m) if m.len() > MAX_FILE_BYTES => {
            found.note(format!("{shown}: not read (larger than 1 MiB)"));
            return None;
        }
        Ok(_) => {}
        Err(e) => {
            found.note(format!("{shown}: not read ({e})"));
            return None;
        }
    }
    budget.left -= 1;
    match std::fs::read(&path) {
        Ok(bytes) => {
            found.source(shown);
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        Err(e) => {
            found.note(format!("{shown}: not read ({e})"));
            None
        }
    }
}

/// Files under `start` (relative to `root`) whose name `keep` accepts, in
/// sorted order, relative to `root`; directories `skip` rejects (given the
/// directory's relative path and name) are not entered. Stops after `max`
/// files; the flag says whether more were left.
pub(super) fn files(
    root: &Path,
    start: &Path,
    skip: &dyn Fn(&Path, &str) -> bool,
    keep: &dyn Fn(&str) -> bool,
    max: usize,
) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut seen = 0usize;
    // A stack of sorted directory listings, walked depth first in order.
    let mut stack: Vec<std::vec::IntoIter<(PathBuf, bool)>> = vec![listing(root, start, &mut seen).into_iter()];
    while let Some(top) = stack.last_mut() {
        let Some((rel, is_dir)) = top.next() else {
            stack.pop();
            continue;
        };
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_dir {
            if !skip(&rel, &name) && seen < MAX_ENTRIES {
                stack.push(listing(root, &rel, &mut seen).into_iter());
            }
        } else if keep(&name) {
            if out.len() == max {
                return (out, true);
            }
            out.push(rel);
        }
    }
    (out, false)
}

/// Whether `rel` under `root`, with every symlink on the way resolved,
/// is still inside `root`. Checking only the last component is not enough:
/// a workspace member that is a link to `/home/you` would make
/// `member/Cargo.toml` a regular file outside the tree.
pub(super) fn resolves_inside(root: &Path, rel: &Path) -> bool {
    match (std::fs::canonicalize(root), std::fs::canonicalize(root.join(rel))) {
        (Ok(root), Ok(path)) => path.starts_with(root),
        _ => false,
    }
}

/// The entries of one directory, sorted, as (relative path, is a directory);
/// symlinks and unreadable entries are left out, and so is a directory
/// reached through a link out of the tree.
fn listing(root: &Path, rel: &Path, seen: &mut usize) -> Vec<(PathBuf, bool)> {
    if !resolves_inside(root, rel) {
        return Vec::new();
    }
    let Ok(dir) = std::fs::read_dir(root.join(rel)) else {
        return Vec::new();
    };
    let mut entries: Vec<(PathBuf, bool)> = dir
        .filter_map(|e| e.ok())
        .take(MAX_ENTRIES.saturating_sub(*seen))
        .filter_map(|e| {
            let t = e.file_type().ok()?;
            if t.is_symlink() {
                return None;
            }
            Some((rel.join(e.file_name()), t.is_dir()))
        })
        .collect();
    *seen += entries.len();
    entries.sort();
    entries
}
