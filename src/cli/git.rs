//! `graphex git install|refresh` and `graphex merge-driver`: the store in a
//! git repository. Git merges `graph.db` through our driver (a three-way
//! merge of the two branches' indexes, see the engine's `store::merge`);
//! blob files are content-addressed, so both branches' files coexist.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use anyhow::{Context as _, Result, bail};
use graphex_engine::Store;
use graphex_engine::keys::Credentials;
use graphex_engine::merge::{MergeInput, merge_indexes};
use graphex_engine::store::Layout;

use super::Context;
use super::git_args::{GitCommand, MergeDriverArgs};
use super::output::{note, say};

/// The driver's name in git's config and `.gitattributes`.
const DRIVER: &str = "graphex";
/// The lines `.gitattributes` holds: the index merged by the driver and
/// shown in words by `git diff` (the textconv); key files never merged
/// line by line (a rotation on one branch is taken whole; rotations on
/// both are a conflict the driver explains).
const ATTRIBUTES: [&str; 2] = [
    ".gpp/graphex/graph.db merge=graphex diff=graphex",
    ".gpp/graphex/keys/** -merge -diff",
];
/// The index's line as installs before the textconv wrote it: replaced.
const OLD_DB_ATTRIBUTE: &str = ".gpp/graphex/graph.db merge=graphex -diff";
/// The index's path inside a repository.
const DB_PATH: [&str; 3] = [".gpp", "graphex", "graph.db"];

pub fn git(ctx: &Context, cmd: &GitCommand) -> Result<()> {
    match cmd {
        GitCommand::Install { program } => install(&ctx.root()?, program.as_deref()),
        GitCommand::Refresh => refresh(ctx),
        GitCommand::Check { hook } => super::git_hooks::check(ctx, hook.as_deref()),
        GitCommand::Textconv { file } => super::git_textconv::textconv(file),
    }
}

/// The top of the git work tree holding `dir`, if any.
fn work_tree(dir: &Path) -> Option<PathBuf> {
    git_output(dir, &["rev-parse", "--show-toplevel"]).map(PathBuf::from)
}

/// Whether `root` is the top of a git work tree.
pub fn is_top_of_work_tree(root: &Path) -> bool {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
    work_tree(root).is_some_and(|top| canon(&top) == canon(root))
}

/// `graphex git install [--program PATH]`: what a repository needs for the
/// store. The hooks and the driver run `program` (default `graphex` from
/// `PATH`), never this binary's own path.
pub fn install(root: &Path, program: Option<&Path>) -> Result<()> {
    let Some(top) = work_tree(root) else {
        bail!(
            "{} is not inside a git repository (run `git init` first, then `graphex git install`)",
            root.display()
        );
    };
    let top = top.canonicalize().unwrap_or(top);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    if top != root {
        bail!(
            "the store's repository root {} is not the git work tree's top {}: keep .gpp/ at the top of the repository",
            root.display(),
            top.display()
        );
    }
    let mut done = String::new();
    let mut added = false;
    let attributes = top.join(".gitattributes");
    added |= replace_line(&attributes, OLD_DB_ATTRIBUTE, ATTRIBUTES[0])?;
    for line in ATTRIBUTES {
        added |= add_line(&attributes, line)?;
    }
    if added {
        let _ = writeln!(
            done,
            "added the merge driver and the textconv to .gitattributes (commit it)"
        );
    }
    let word = super::git_program::word(program);
    // Git runs the driver through `sh`: a missing program is a conflict that says why.
    let driver = format!(
        "{}exec \"$graphex\" merge-driver %O %A %B %P",
        super::git_program::find(&word, "graph.db was not merged (a conflict)", 1).replace('\n', "; ")
    );
    // Git appends the file to show; a missing program is an error that says why.
    let textconv = format!(
        "{}exec \"$graphex\" git textconv",
        super::git_program::find(&word, "graph.db is not shown in words", 1).replace('\n', "; ")
    );
    for (key, value) in [
        (
            format!("merge.{DRIVER}.name"),
            "Graphex three-way merge of the graph index".to_owned(),
        ),
        (format!("merge.{DRIVER}.driver"), driver),
        (format!("diff.{DRIVER}.textconv"), textconv),
    ] {
        let current = git_output(&top, &["config", "--local", "--get", &key]);
        if current.as_deref() != Some(value.as_str()) {
            let ok = Process::new("git")
                .arg("-C")
                .arg(&top)
                .args(["config", "--local", &key, &value])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                bail!("git config {key} failed");
            }
            let _ = writeln!(done, "set {key} in the repository's git config");
        }
    }
    let added = graphex_engine::store::update_gitignore(&Layout::new(&top))?;
    if !added.is_empty() {
        let _ = writeln!(done, "added to .gpp/.gitignore: {}", added.join(", "));
    }
    let hooks = git_output(&top, &["rev-parse", "--git-path", "hooks"])
        .map(|p| top.join(p))
        .context("cannot find the repository's hooks directory")?;
    super::git_hooks::install(&hooks, &word, &mut done)?;
    if done.is_empty() {
        done.push_str("already set up: nothing to change\n");
    }
    say(&done)?;
    match program {
        Some(p) if !p.is_file() => note(&format!(
            "note: {} does not exist yet: the hooks and the merge driver say so and do nothing until it does",
            p.display()
        )),
        None if !super::git_program::on_path("graphex") => note(&format!(
            "note: graphex is not on PATH here: the hooks and the merge driver say so and do nothing until it is \
             (or run `graphex git install --program {}`)",
            std::env::current_exe().map_or_else(|_| "PATH".to_owned(), |p| shell_word(&p))
        )),
        _ => {}
    }
    Ok(())
}

/// Replaces the line equal to `old` with `new`; true when it did.
fn replace_line(path: &Path, old: &str, new: &str) -> Result<bool> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(false);
    };
    if !text.lines().any(|l| l.trim() == old) {
        return Ok(false);
    }
    let out: String = text
        .lines()
        .map(|l| if l.trim() == old { new } else { l })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

/// Appends `line` to the file unless a line equals it; true when it did.
fn add_line(path: &Path, line: &str) -> Result<bool> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if text.lines().any(|l| l.trim() == line) {
        return Ok(false);
    }
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

pub(super) fn git_output(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Process::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A path as one POSIX shell word (git runs the driver through `sh`).
pub(super) fn shell_word(path: &Path) -> String {
    let s = path.to_string_lossy();
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b)) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `graphex git refresh`: snapshots rebuilt when the master key is at hand.
fn refresh(ctx: &Context) -> Result<()> {
    let creds = Credentials::from_env();
    if !creds.has_master() {
        return Ok(());
    }
    let mut store = Store::open(&ctx.root()?, &creds)?;
    // After a checkout of a branch never seen here, the hook says what it trusts.
    super::session::note_first_sight(&store);
    store.refresh_snapshots(false)?;
    Ok(())
}

/// `graphex merge-driver %O %A %B %P`: git's call when both branches
/// changed the index. Exit 0 with the merge in OURS. On an error OURS is
/// left as this branch had it and git reports a conflict; after a merge
/// across a key rotation, OURS holds the merge but the exit is non-zero so
/// that git stops and the rewrapped blob files go into the merge commit.
pub fn merge_driver(args: &MergeDriverArgs) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let path = cwd.join(&args.path);
    let mut root = path.as_path();
    for part in DB_PATH.iter().rev() {
        if root.file_name().and_then(|n| n.to_str()) != Some(*part) {
            bail!(
                "the merge driver handles .gpp/graphex/graph.db only, not {} (check .gitattributes)",
                args.path.display()
            );
        }
        root = root.parent().unwrap_or(root);
    }
    let branch = other_branch();
    let creds = super::session::master_credentials("merging the graph of two branches")?;
    let other =
        super::git_branch::GitBranch::from_env(root).context("cannot make a private directory in .gpp/graphex")?;
    let input = MergeInput {
        base: args.base.clone(),
        ours: args.ours.clone(),
        theirs: args.theirs.clone(),
        branch: branch.clone(),
    };
    let report = merge_indexes(root, &creds, &input, &other).with_context(|| {
        format!(
            "graphex could not merge {} from {branch}; this branch's graph is kept and git reports a conflict \
             (merge again once the cause is fixed: `git merge --abort`, then `git merge`)",
            args.path.display()
        )
    })?;
    let mut text = format!(
        "graphex: merged the graph from {branch}: {} nodes added, {} changed, {} removed; {} edges added, {} removed",
        report.nodes_added, report.nodes_changed, report.nodes_removed, report.edges_added, report.edges_removed
    );
    if report.conflicts > 0 {
        let _ = write!(
            text,
            "; {} nodes changed on both branches wait in the queue as merge proposals (`graphex pending`)",
            report.conflicts
        );
    }
    note(&text);
    for n in &report.notes {
        note(&format!("graphex: {n}"));
    }
    if !report.new_files.is_empty() {
        // New files git does not know of: it must stop so they go into the
        // merge commit.
        bail!(
            "the graph is merged across a key rotation: {} blob files were sealed again under the new key and are \
             new files git has not staged; git stops here so they go into the merge commit: run \
             `git add .gpp && git commit`",
            report.new_files.len()
        );
    }
    Ok(())
}

/// What git calls the branch being merged in (`git merge` sets
/// `GITHEAD_<commit>` to it), or a plain description.
fn other_branch() -> String {
    std::env::vars()
        .filter(|(k, _)| k.starts_with("GITHEAD_"))
        .map(|(_, v)| v)
        .next()
        .unwrap_or_else(|| "the other branch".to_owned())
}
