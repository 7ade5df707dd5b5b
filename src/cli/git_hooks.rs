//! The git hooks `graphex git install` writes, and `graphex git check`,
//! which they run: after a checkout, merge or rebase the graph must not
//! have gone back while git went forward, and a commit of a graph that did
//! is refused (see the engine's `freshness`).

use std::fmt::Write as _;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use graphex_engine::freshness::Verdict;
use graphex_engine::store::{check_without_keys, rollback_text};

use super::Context;
use super::git::git_output;
use super::output::note;

/// Marks the hooks Graphex wrote (older versions wrote the first line only).
const HOOK_MARK: &str = "# graphex: rebuild derived files";
const HOOK_MARK_CHECK: &str = "# graphex: check the graph did not go back";

/// The hooks and what each runs.
const HOOKS: [(&str, bool); 6] = [
    ("post-checkout", true),
    // Moves the record to the new commit, so a later checkout of the
    // commit before it is seen as git moving, not a file replaced.
    ("post-commit", false),
    ("post-merge", true),
    ("post-rewrite", false),
    ("pre-commit", false),
    ("pre-merge-commit", false),
];

fn script(name: &str, program: &str, refresh: bool) -> String {
    let mut s = format!("#!/bin/sh\n{HOOK_MARK}\n{HOOK_MARK_CHECK}\n");
    // A program missing never blocks git, and says so.
    s.push_str(&super::git_program::find(
        program,
        &format!("the graph was not checked ({name})"),
        0,
    ));
    if name.starts_with("pre-") {
        // Refuses the commit (non-zero) when the graph went back.
        let _ = writeln!(s, "exec \"$graphex\" git check --hook {name}");
    } else {
        // After the fact: says so loudly; git's own result stands.
        let _ = writeln!(s, "\"$graphex\" git check --hook {name}");
        let _ = writeln!(s, "status=$?");
        if refresh {
            let _ = writeln!(s, "\"$graphex\" git refresh || true");
        }
        let _ = writeln!(s, "exit $status");
    }
    s
}

/// Writes (or brings up to date) the hooks in `dir`, saying what it did
/// in `done`; a hook of someone else's is left, with the line to add.
/// `program` is the program as one shell word (see `git_program`).
pub fn install(dir: &Path, program: &str, done: &mut String) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let word = program;
    for (name, refresh) in HOOKS {
        let path = dir.join(name);
        let want = script(name, word, refresh);
        match std::fs::read_to_string(&path) {
            Ok(text) if text == want => continue,
            Ok(text) if !text.contains(HOOK_MARK) => {
                let _ = writeln!(
                    done,
                    "{} exists and is not ours: add `{word} git check --hook {name}` to it{}",
                    path.display(),
                    if refresh {
                        format!(" (and `{word} git refresh`)")
                    } else {
                        String::new()
                    }
                );
                continue;
            }
            Ok(_) => {
                let _ = writeln!(done, "brought the {name} hook up to date");
            }
            Err(_) => {
                let _ = writeln!(done, "wrote the {name} hook");
            }
        }
        std::fs::write(&path, want).with_context(|| format!("cannot write {}", path.display()))?;
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(())
}

/// The commit that last changed the index in `rev`'s history: the one that
/// brought the older graph.
fn culprit(root: &Path, rev: &str) -> Option<String> {
    let path = graphex_engine::freshness::git::index_path_in_repo(root)?;
    let top = git_output(root, &["rev-parse", "--show-toplevel"]).map(PathBuf::from)?;
    git_output(
        &top,
        &[
            "log",
            "-1",
            "--format=%h %an (%ad): %s",
            "--date=short",
            rev,
            "--",
            &path,
        ],
    )
    .filter(|s| !s.is_empty())
}

/// `graphex git check [--hook NAME]`.
pub fn check(ctx: &Context, hook: Option<&str>) -> Result<()> {
    let root = ctx.root()?;
    let mut rewrites = Vec::new();
    if hook == Some("post-rewrite") {
        for line in std::io::stdin().lock().lines() {
            let line = line.context("cannot read git's list of rewritten commits")?;
            let mut words = line.split_whitespace();
            if let (Some(old), Some(new)) = (words.next(), words.next()) {
                rewrites.push((old.to_owned(), new.to_owned()));
            }
        }
    }
    let found = check_without_keys(&root, &rewrites)?;
    let Some(rb) = found.iter().find_map(|(_, v)| match v {
        Verdict::RolledBack(rb) => Some(rb),
        _ => None,
    }) else {
        return Ok(());
    };
    let merging = git_output(&root, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]).is_some();
    let rev = if merging { "MERGE_HEAD" } else { "HEAD" };
    let brought = culprit(&root, rev).map_or(String::new(), |c| format!(" The older graph came with commit {c}."));
    note(&format!(
        "graphex: WARNING: the graph went back.{brought} {}",
        rollback_text(&root, rb)
    ));
    match hook {
        Some(h) if h.starts_with("pre-") => bail!(
            "graphex: commit refused: it would record the older graph (undo the merge with `git merge --abort`, or \
             resolve as above first)"
        ),
        _ => bail!("graphex: the graph went back (see above)"),
    }
}
