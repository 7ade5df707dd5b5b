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
use super::output::emit;
use super::session::Context;
use crate::shared::git_revision::{self, Snapshot};

/// One side of the comparison, and what holds it on disk.
struct State {
    label: String,
    root: PathBuf,
    /// A revision's copy (removed when dropped); none for a store on disk.
    snapshot: Option<Snapshot>,
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
    let creds = ctx.read_credentials()?;
    if a.console {
        let (rev, label) = console_range(&root, &a.states)?;
        return super::console(ctx, Some((rev, label)));
    }
    if !a.as_of.is_empty() {
        return as_of(ctx, a, &root, &creds);
    }
    let (before, after) = states(&root, &a.states)?;
    let open = |s: &State| -> Result<Store> {
        let store = if s.own {
            Store::open(&s.root, &creds)
        } else {
            Store::open_snapshot(&s.root, &creds, s.snapshot.as_ref().map(|x| x.blobs.as_path()))
        };
        store.map_err(|e| anyhow::anyhow!("{}: {e}", s.label))
    };
    let (x, y) = (open(&before)?, open(&after)?);
    // `--check` follows the work tree's approved settings: those of the
    // side that is the work tree, when one is (no second open).
    let config = match (before.own, after.own) {
        (_, true) => y.config(),
        (true, _) => x.config(),
        _ => Store::open(&root, &creds).and_then(|s| s.config()),
    }
    .map(|c| c.config)
    .unwrap_or_default();
    let settings = y.config()?.config.projection_settings()?;
    let c = compare(&x, &y, &settings)?;
    print(
        ctx,
        a,
        &config,
        &c,
        (&before.label, &after.label),
        &y.level().to_string(),
    )
}

/// `--as-of`: two points of the store's own timeline (the second one now
/// when only one is given).
fn as_of(ctx: &Context, a: &DiffArgs, root: &Path, creds: &graphex_engine::Credentials) -> Result<()> {
    use graphex_engine::as_of::AsOf;
    use graphex_engine::compare::{Past, Side, compare_sides};
    let store = Store::open(root, creds)?;
    let point = |text: &str| -> Result<AsOf> {
        AsOf::parse(text)
            .map_err(anyhow::Error::msg)?
            .ok_or_else(|| anyhow::anyhow!("--as-of needs a point: a date, an instant or a timeline entry (#42)"))
    };
    let past = |text: &str| -> Result<Past<'_>> {
        Ok(Past {
            store: &store,
            past: store.catalog_as_of(point(text)?)?,
        })
    };
    let (x, y): (Past<'_>, Option<Past<'_>>) = match a.as_of.as_slice() {
        [one] => (past(one)?, None),
        [one, two] => (past(one)?, Some(past(two)?)),
        _ => bail!("--as-of compares two points: give it once or twice"),
    };
    let label = |p: &Past<'_>, text: &str| format!("as of {text} (entry #{})", p.past.commit);
    let before = label(&x, &a.as_of[0]);
    let after = y.as_ref().map_or_else(|| "now".to_owned(), |p| label(p, &a.as_of[1]));
    let second: &dyn Side = match &y {
        Some(p) => p,
        None => &store,
    };
    let config = store.config()?.config;
    let settings = config.projection_settings()?;
    let mentions = graphex_engine::proposal::Mentions::new(&store);
    let c = compare_sides(&x, second, &mentions, &settings)?;
    print(ctx, a, &config, &c, (&before, &after), &store.level().to_string())
}

/// Prints `c` as asked; with `--check`, fails on the findings `config`
/// fails on.
fn print(
    ctx: &Context,
    a: &DiffArgs,
    config: &graphex_engine::config::Config,
    c: &Comparison,
    (before, after): (&str, &str),
    level: &str,
) -> Result<()> {
    let failing = c.findings.iter().filter(|f| config.diff.fails_on(f.code)).count();
    let report = Report {
        before,
        after,
        level: level.to_owned(),
        comparison: c,
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

/// `--console`: the base revision the Projection pane compares the work
/// tree's store with, and the range's name.
fn console_range(root: &Path, args: &[String]) -> Result<(String, String)> {
    let (base, label) = match args {
        [] => ("HEAD".to_owned(), "HEAD".to_owned()),
        [one] => match (one.split_once("..."), one.split_once("..")) {
            (Some((x, y)), _) => (git_revision::merge_base(root, x, y)?, one.clone()),
            (None, Some((x, _))) => (x.to_owned(), one.clone()),
            (None, None) => (one.clone(), one.clone()),
        },
        _ => bail!("--console compares one revision (or a range's base) with the work tree: give one"),
    };
    Ok((git_revision::commit(root, &base)?, label))
}

/// The two states the arguments name.
fn states(root: &Path, args: &[String]) -> Result<(State, State)> {
    let work = || State {
        label: "the work tree".to_owned(),
        root: root.to_owned(),
        snapshot: None,
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
            snapshot: None,
            own: false,
        });
    }
    let snap = git_revision::at(root, name)?;
    Ok(State {
        label: format!("{name} ({})", &snap.commit[..12.min(snap.commit.len())]),
        root: snap.root(),
        snapshot: Some(snap),
        own: false,
    })
}
