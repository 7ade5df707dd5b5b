//! `graphex diff`: two states of the graph compared at the caller's level
//! (the engine's `compare`), each state the work tree's store, a store
//! directory, or the store at a git revision read into a private
//! temporary directory.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use graphex_engine::Store;
use graphex_engine::compare::{Comparison, compare};
use graphex_engine::store::Layout;

use super::args::DiffArgs;
use super::diff_args::DiffFormat;
use super::git_revision::{self, Snapshot};
use super::output::emit;
use super::session::Context;

/// One side of the comparison, and what holds it on disk.
struct State {
    label: String,
    root: PathBuf,
    /// A revision's copy (removed when dropped); none for a store on disk.
    _snapshot: Option<Snapshot>,
    /// The work tree's own store: opened as any command opens it.
    own: bool,
}

/// The comparison as printed with `--json`.
#[derive(serde::Serialize)]
struct Report<'a> {
    before: &'a str,
    after: &'a str,
    level: String,
    #[serde(flatten)]
    comparison: &'a Comparison,
    /// The findings `--check` fails on (by the approved settings).
    failing: usize,
}

pub fn diff(ctx: &Context, a: &DiffArgs) -> Result<()> {
    let root = ctx.root()?;
    let (before, after) = states(&root, &a.states)?;
    let creds = ctx.read_credentials()?;
    let open = |s: &State| -> Result<Store> {
        let store = if s.own {
            Store::open(&s.root, &creds)
        } else {
            Store::open_snapshot(&s.root, &creds)
        };
        store.map_err(|e| anyhow::anyhow!("{}: {e}", s.label))
    };
    let (x, y) = (open(&before)?, open(&after)?);
    let config = Store::open(&root, &creds)
        .and_then(|s| s.config())
        .map(|c| c.config)
        .unwrap_or_default();
    let settings = y.config()?.config.projection_settings()?;
    let c = compare(&x, &y, &settings)?;
    let failing = c.findings.iter().filter(|f| config.diff.fails_on(f.code)).count();
    let report = Report {
        before: &before.label,
        after: &after.label,
        level: y.level().to_string(),
        comparison: &c,
        failing,
    };
    let format = if ctx.json { DiffFormat::Json } else { a.format };
    match format {
        DiffFormat::Json => emit(true, &report, |_| String::new())?,
        DiffFormat::Text => emit(false, &report, |r| {
            super::diff_text::text(r.comparison, r.before, r.after, &r.level)
        })?,
        DiffFormat::Markdown => emit(false, &report, |r| {
            super::diff_text::markdown(r.comparison, r.before, r.after, &r.level)
        })?,
    }
    if a.check && failing > 0 {
        bail!("diff --check: {failing} finding(s) this repository's settings fail on (see above)");
    }
    Ok(())
}

/// The two states the arguments name.
fn states(root: &Path, args: &[String]) -> Result<(State, State)> {
    let work = || State {
        label: "the work tree".to_owned(),
        root: root.to_owned(),
        _snapshot: None,
        own: true,
    };
    Ok(match args {
        [] => (state(root, "HEAD")?, work()),
        [one] => {
            if let Some((x, y)) = one.split_once("...") {
                let base = git_revision::merge_base(root, x, y)?;
                let mut b = state(root, &base)?;
                b.label = format!("{x}...{y} (merge base {})", &base[..base.len().min(12)]);
                (b, state(root, y)?)
            } else if let Some((x, y)) = one.split_once("..") {
                (state(root, x)?, state(root, y)?)
            } else {
                (state(root, one)?, work())
            }
        }
        [x, y] => (state(root, x)?, state(root, y)?),
        _ => bail!("diff compares two states: give at most two"),
    })
}

/// A store directory (one holding `.gpp/graphex/graph.db`), or a revision.
fn state(root: &Path, name: &str) -> Result<State> {
    let dir = Path::new(name);
    if Layout::new(dir).db().is_file() {
        return Ok(State {
            label: name.to_owned(),
            root: dir.to_owned(),
            _snapshot: None,
            own: false,
        });
    }
    let snap = git_revision::at(root, name)?;
    Ok(State {
        label: format!("{name} ({})", &snap.commit[..12.min(snap.commit.len())]),
        root: snap.root(),
        _snapshot: Some(snap),
        own: false,
    })
}
