//! What the freshness check asks of git: the commit checked out, and
//! whether one commit descends from another. `HEAD` is read from the
//! repository's files (no process: it runs at every open); ancestry asks
//! `git` itself, only when a store did not move forward.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The git directory of the work tree holding `root`, and the common
/// directory its refs live in (they differ in a linked work tree).
fn git_dirs(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = Some(root);
    while let Some(d) = dir {
        let dot = d.join(".git");
        if dot.is_dir() {
            return Some((dot.clone(), dot));
        }
        if dot.is_file() {
            let text = std::fs::read_to_string(&dot).ok()?;
            let gitdir = d.join(text.strip_prefix("gitdir:")?.trim());
            let common = match std::fs::read_to_string(gitdir.join("commondir")) {
                Ok(c) => gitdir.join(c.trim()),
                Err(_) => gitdir.clone(),
            };
            return Some((gitdir, common));
        }
        dir = d.parent();
    }
    None
}

fn is_object_name(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The commit `HEAD` names in the work tree holding `root`: `None`
/// outside git, or on a branch with no commit yet.
pub fn head(root: &Path) -> Option<String> {
    let (gitdir, common) = git_dirs(root)?;
    let mut name = std::fs::read_to_string(gitdir.join("HEAD")).ok()?.trim().to_owned();
    // A symbolic ref may point at another (a few steps at most).
    for _ in 0..5 {
        if is_object_name(&name) {
            return Some(name.to_ascii_lowercase());
        }
        let target = name.strip_prefix("ref:")?.trim().to_owned();
        if target.contains("..") {
            return None;
        }
        name = [gitdir.join(&target), common.join(&target)]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .map(|t| t.trim().to_owned())
            .or_else(|| packed(&common, &target))?;
    }
    None
}

/// The ref `HEAD` names in the work tree holding `root` (`refs/heads/main`),
/// with or without a commit on it yet; `None` outside git or detached.
pub fn branch(root: &Path) -> Option<String> {
    let (gitdir, _) = git_dirs(root)?;
    let text = std::fs::read_to_string(gitdir.join("HEAD")).ok()?;
    let target = text.trim().strip_prefix("ref:")?.trim();
    (!target.contains("..")).then(|| target.to_owned())
}

/// The commit a revision names (`main`, `HEAD~3`, a hash), as git says.
pub fn resolve(root: &Path, rev: &str) -> Option<String> {
    if rev.starts_with('-') {
        return None;
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ])
        .output()
        .ok()?;
    let name = String::from_utf8(out.stdout).ok()?.trim().to_ascii_lowercase();
    (out.status.success() && is_object_name(&name)).then_some(name)
}

fn packed(common: &Path, target: &str) -> Option<String> {
    std::fs::read_to_string(common.join("packed-refs"))
        .ok()?
        .lines()
        .find_map(|l| match l.split_once(' ') {
            Some((oid, name)) if name == target && is_object_name(oid) => Some(oid.to_owned()),
            _ => None,
        })
}

/// Whether commit `older` is an ancestor of (or is) commit `newer`;
/// `None` when git cannot tell (no git, or a commit it does not have).
pub fn is_ancestor(root: &Path, older: &str, newer: &str) -> Option<bool> {
    if !is_object_name(older) || !is_object_name(newer) {
        return None;
    }
    let status = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["merge-base", "--is-ancestor", older, newer])
        .output()
        .ok()?
        .status;
    match status.code() {
        Some(0) => Some(true),
        Some(1) => Some(false),
        _ => None,
    }
}

/// The bytes of `path` (relative to the work tree's top) at `commit`.
pub fn show(root: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    if !is_object_name(commit) && commit != "HEAD" {
        return None;
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["show", &format!("{commit}:{path}")])
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// Brings `paths` (relative to the work tree's top) back as they were at
/// `commit`, in the work tree and git's index (to be committed); true when
/// any came back. A path the commit does not have is skipped.
pub fn checkout_paths(root: &Path, commit: &str, paths: &[&str]) -> bool {
    if !is_object_name(commit) {
        return false;
    }
    let top = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let Some(top) = top else {
        return false;
    };
    let mut any = false;
    for path in paths {
        any |= Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["checkout", commit, "--", path])
            .output()
            .is_ok_and(|o| o.status.success());
    }
    any
}

/// The store's index path relative to the top of its git work tree.
pub fn index_path_in_repo(root: &Path) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--show-prefix"])
        .output()
        .ok()?;
    let prefix = String::from_utf8(out.stdout).ok()?;
    out.status
        .success()
        .then(|| format!("{}.gpp/graphex/graph.db", prefix.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_follows_symbolic_and_packed_refs_and_linked_work_trees() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        assert_eq!(head(dir.path()), None);
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(head(dir.path()), None, "a branch with no commit yet");
        std::fs::write(git.join("packed-refs"), format!("# pack-refs\n{a} refs/heads/main\n")).unwrap();
        assert_eq!(head(&dir.path().join("sub/dir")), Some(a.clone()));
        std::fs::write(git.join("refs/heads/main"), format!("{b}\n")).unwrap();
        assert_eq!(head(dir.path()), Some(b.clone()), "a loose ref wins over a packed one");
        std::fs::write(git.join("HEAD"), format!("{a}\n")).unwrap();
        assert_eq!(head(dir.path()), Some(a.clone()), "detached");
        // A linked work tree: `.git` is a file naming its own git directory,
        // whose `commondir` holds the refs.
        let linked = dir.path().join("wt");
        let own = git.join("worktrees/wt");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join(".git"), format!("gitdir: {}\n", own.display())).unwrap();
        std::fs::write(own.join("commondir"), "../..\n").unwrap();
        std::fs::write(own.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(head(&linked), Some(b));
        assert_eq!(branch(&linked).as_deref(), Some("refs/heads/main"));
        std::fs::write(own.join("HEAD"), "ref: ../../../etc/passwd\n").unwrap();
        assert_eq!(head(&linked), None);
        assert_eq!(branch(&linked), None);
        std::fs::write(git.join("HEAD"), format!("{a}\n")).unwrap();
        assert_eq!(branch(dir.path()), None, "detached");
    }
}
