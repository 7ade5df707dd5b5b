//! `graphex federation publish|pull|key`: share subgraphs between projects
//! as signed bundles (see `graphex_engine::federation`). Both sides use the
//! settings the master approved, never the file as it is now.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use graphex_engine::Store;
use graphex_engine::federation::{self, FederationConfig, Location, PullReport, SourceConfig};
use graphex_engine::model::Tier;
use serde::Serialize;

use super::io_args::FederationCommand;
use super::output::{emit, note};
use super::session::{Context, Need};

pub fn federation(ctx: &Context, cmd: &FederationCommand) -> Result<()> {
    match cmd {
        FederationCommand::Key => key(ctx),
        FederationCommand::Publish {
            subgraph,
            dry_run,
            output,
            push,
        } => publish(ctx, subgraph.as_deref(), *dry_run, output.as_deref(), push.as_deref()),
        FederationCommand::Pull { source, dry_run } => pull(ctx, source.as_deref(), *dry_run),
    }
}

/// The approved federation settings, with a warning when the file differs.
fn settings(store: &Store) -> Result<FederationConfig> {
    let c = store.config()?;
    if let Some(w) = c.warning() {
        note(&format!("warning: {w}"));
    }
    Ok(c.config.federation)
}

#[derive(Serialize)]
struct KeyView {
    hex: String,
    base64: String,
    /// This project's age recipient: what publishers list in `to` so
    /// their bundles are sealed to this project.
    recipient: String,
}

fn key(ctx: &Context) -> Result<()> {
    let store = ctx.open(Need::Write)?;
    let k = federation::publisher_key(&store)?;
    let recipient = graphex_engine::proposal::master_recipient(&store.layout().keys())?;
    let view = KeyView {
        hex: k.to_hex(),
        base64: federation::config::base64_of(&k.to_bytes()),
        recipient: recipient.to_string(),
    };
    emit(ctx.json, &view, |v| {
        format!(
            "{}\n(base64: {})\nconsumers pin it in their [graphex.federation] sources: key = \"{}\"\n\
             this project's recipient, for publishers to seal bundles to it: to = [\"{}\"]\n",
            v.hex, v.base64, v.hex, v.recipient
        )
    })
}

#[derive(Serialize)]
struct NodeOut {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    tier: Tier,
}

#[derive(Serialize)]
struct EdgeOut {
    from: String,
    relation: String,
    to: String,
    tier: Tier,
}

#[derive(Serialize)]
struct PublishView {
    project: String,
    subgraph: String,
    sequence: u64,
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    nodes: Vec<NodeOut>,
    edges: Vec<EdgeOut>,
    tombstones: Vec<String>,
    /// Matching nodes left out: pulled from another project.
    skipped_federated: Vec<String>,
    /// Matching nodes above public left out of a plain-text bundle.
    kept_home: Vec<String>,
    /// Whether the bundle is sealed to its consumers (`to`).
    sealed: bool,
    /// The commit pushed to a git remote (`--push`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pushed: Option<super::federation_git::Pushed>,
}

fn publish_text(v: &PublishView) -> String {
    let mut s = format!(
        "{} {}/{} bundle #{}: {} node(s), {} edge(s), {} tombstone(s)\n",
        if v.dry_run { "would publish" } else { "published" },
        v.project,
        v.subgraph,
        v.sequence,
        v.nodes.len(),
        v.edges.len(),
        v.tombstones.len()
    );
    for n in &v.nodes {
        s.push_str(&format!("  node {} ({}, {})\n", n.name, n.node_type, n.tier));
    }
    for e in &v.edges {
        s.push_str(&format!(
            "  edge {} -> {} -> {} ({})\n",
            e.from, e.relation, e.to, e.tier
        ));
    }
    for t in &v.tombstones {
        s.push_str(&format!("  tombstone {t} (consumers archive it)\n"));
    }
    for n in &v.skipped_federated {
        s.push_str(&format!("  not published: {n} (pulled from another project)\n"));
    }
    for n in &v.kept_home {
        s.push_str(&format!(
            "  not published: {n} (not public: only a bundle sealed to its consumers carries it; list their \
             recipients in `to`)\n"
        ));
    }
    let form = if v.sealed {
        "sealed to its consumers"
    } else {
        "plain text: public only"
    };
    match &v.file {
        Some(f) => s.push_str(&format!("written to {f} ({form}, mode 0600)\n")),
        None => s.push_str(&format!("dry run: nothing written (the bundle would be {form})\n")),
    }
    if let Some(p) = &v.pushed {
        s.push_str(&format!(
            "pushed to {} {} as commit {}{}\n",
            p.remote,
            p.reference,
            &p.commit[..12.min(p.commit.len())],
            p.parent
                .as_deref()
                .map(|c| format!(" (after {})", &c[..12.min(c.len())]))
                .unwrap_or_else(|| " (the ref's first commit)".into())
        ));
    }
    s
}

fn view_of(p: federation::Publication, dry_run: bool, file: Option<String>) -> PublishView {
    let b = &p.bundle;
    PublishView {
        project: b.project.clone(),
        subgraph: b.subgraph.clone(),
        sequence: b.sequence,
        dry_run,
        file,
        nodes: b
            .nodes
            .iter()
            .map(|n| NodeOut {
                name: n.name.to_string(),
                node_type: n.node_type.to_string(),
                tier: n.tier,
            })
            .collect(),
        edges: b
            .edges
            .iter()
            .map(|e| EdgeOut {
                from: e.from.to_string(),
                relation: e.relation.to_string(),
                to: e.to.to_string(),
                tier: e.tier,
            })
            .collect(),
        tombstones: b.tombstones.iter().map(ToString::to_string).collect(),
        skipped_federated: p.skipped_federated,
        kept_home: p.kept_home,
        sealed: p.sealed,
        pushed: None,
    }
}

fn publish(
    ctx: &Context,
    subgraph: Option<&str>,
    dry_run: bool,
    output: Option<&Path>,
    push: Option<&str>,
) -> Result<()> {
    let store = ctx.open(Need::Write)?;
    let fed = settings(&store)?;
    let name = match (subgraph, fed.publish.as_slice()) {
        (Some(s), _) => s.to_owned(),
        (None, [one]) => one.subgraph.clone(),
        (None, []) => bail!(
            "nothing to publish: the approved [graphex.federation] settings have no `publish` entry \
             (add one to .gpp/config.toml, then `graphex config approve`)"
        ),
        (None, _) => bail!(
            "several subgraphs are published ({}); name one",
            fed.publish
                .iter()
                .map(|p| p.subgraph.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let p = federation::plan_publish(&store, &fed, &name)?;
    if dry_run {
        let v = view_of(p, true, None);
        return emit(ctx.json, &v, publish_text);
    }
    let path = output.map_or_else(|| federation::default_output(store.layout(), &name), Path::to_owned);
    if output.is_none() {
        // Before the bundle is there: a store made before federation
        // does not keep its output out of git yet.
        match graphex_engine::store::update_gitignore(store.layout()) {
            Ok(added) if added.is_empty() => {}
            Ok(added) => note(&format!(
                "added to .gpp/.gitignore (a store made before these lines): {}",
                added.join(", ")
            )),
            Err(e) => note(&format!(
                "warning: could not update .gpp/.gitignore ({e}): add graphex/federation/out/ to it, bundles are \
                 never committed"
            )),
        }
    }
    write_replacing(&path, &p.text)?;
    federation::record_publish(&store, &p)?;
    let pushed = match push {
        Some(remote) => {
            let b = &p.bundle;
            let message = format!(
                "graphex federation: {}/{} bundle #{}",
                b.project, b.subgraph, b.sequence
            );
            let reference = federation::federation_ref(&name);
            let root = store.layout().root().to_owned();
            Some(super::federation_git::publish(
                &root, remote, &reference, &name, &message, &p.text,
            )?)
        }
        None => None,
    };
    let mut v = view_of(p, false, Some(path.display().to_string()));
    v.pushed = pushed;
    emit(ctx.json, &v, publish_text)
}

/// Writes `text` to `path` (0600), replacing it whole: a reader sees the
/// old bundle or the new one, never a part.
fn write_replacing(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    graphex_engine::keys::files::write_private(&tmp, text.as_bytes())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

fn names(label: &str, list: &[String]) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("  {label}: {}\n", list.join(", "))
    }
}

fn pull_text(r: &PullReport) -> String {
    let i = &r.import;
    let mut s = format!(
        "{} {} bundle #{}{}: {} added, {} changed, {} unchanged, {} archived; edges: {} added, {} removed\n",
        if r.dry_run { "would pull" } else { "pulled" },
        r.source,
        r.sequence,
        r.previous.map(|p| format!(" (after #{p})")).unwrap_or_default(),
        i.added.len(),
        i.changed.len(),
        i.unchanged.len(),
        r.archived.len(),
        i.edges_added.len(),
        r.edges_removed.len()
    );
    s.push_str(&names("added", &i.added));
    s.push_str(&names("changed (new versions)", &i.changed));
    s.push_str(&names("kept at their higher tier", &i.tier_kept));
    s.push_str(&names("archived", &r.archived));
    s.push_str(&names("edges added", &i.edges_added));
    s.push_str(&names("edges removed", &r.edges_removed));
    for c in &r.conflicts {
        s.push_str(&format!("  not pulled: {c}\n"));
    }
    if r.dry_run {
        s.push_str("dry run: nothing written\n");
    }
    s
}

/// The bundle of `src`: its file, or the newest on its git remote's ref
/// (then also the ref to record it under and its commit, once pulled).
fn read(root: &Path, src: &SourceConfig, store: &Store) -> Result<(federation::Bundle, Option<(String, String)>)> {
    let identity = store.keys().master().ok();
    match src.location() {
        Location::Path(_) => Ok((federation::read_bundle(root, src, identity)?, None)),
        Location::Git { remote, reference } => {
            let tracking = super::federation_git::tracking_ref(&src.project, &src.subgraph);
            let got = super::federation_git::fetch(root, &remote, &reference, &tracking, &src.subgraph)?;
            let bundle = federation::open_bundle(&got.origin, &got.bytes, src, identity)?;
            Ok((bundle, Some((tracking, got.commit))))
        }
    }
}

/// What the error of a failing source says: which source, and which ones
/// before it were pulled (each its own commit, kept).
fn failed_after(label: &str, done: &[PullReport], dry_run: bool) -> String {
    if done.is_empty() {
        return format!("pulling {label}");
    }
    let before = done.iter().map(|r| r.source.as_str()).collect::<Vec<_>>().join(", ");
    if dry_run {
        format!("pulling {label} (dry run; the sources before it were checked: {before})")
    } else {
        format!(
            "pulling {label} (the sources before it were pulled and committed, reported above: {before}; \
             nothing of {label} was written)"
        )
    }
}

fn pull(ctx: &Context, source: Option<&str>, dry_run: bool) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let fed = settings(&store)?;
    let sources = match source {
        Some(label) => vec![fed.source(label)?.clone()],
        None if fed.sources.is_empty() => bail!(
            "nothing to pull: the approved [graphex.federation] settings have no `sources` \
             (add one to .gpp/config.toml, then `graphex config approve`)"
        ),
        None => fed.sources.clone(),
    };
    let root = store.layout().root().to_owned();
    // Each source is its own commit: its report is printed as it completes
    // (text), so a later failure never hides what was already written.
    let mut reports: Vec<PullReport> = Vec::new();
    for src in &sources {
        let pulled = read(&root, src, &store).and_then(|(bundle, fetched)| {
            let report = store.retrying(|s| federation::pull(s, src, &bundle, dry_run))?;
            // What this repository records as pulled last, once it is.
            if let Some((tracking, commit)) = fetched.filter(|_| !dry_run)
                && let Err(e) = super::federation_git::record(&root, &tracking, &commit)
            {
                note(&format!("warning: the pull is committed, but {e:#}"));
            }
            Ok(report)
        });
        match pulled {
            Ok(report) => {
                if !ctx.json {
                    emit(false, &report, pull_text)?;
                }
                reports.push(report);
            }
            Err(e) => {
                if ctx.json && !reports.is_empty() {
                    // The completed sources' reports, then the error.
                    emit(true, &reports, |_| String::new())?;
                }
                return Err(e.context(failed_after(&src.label(), &reports, dry_run)));
            }
        }
    }
    if ctx.json {
        emit(true, &reports, |_| String::new())?;
    }
    let conflicts: usize = reports.iter().map(|r| r.conflicts.len()).sum();
    if conflicts > 0 {
        bail!(
            "{conflicts} node(s) not pulled: a local node has the name (kept as it is; each is named above). \
             Rename or archive the local node, then pull again"
        );
    }
    Ok(())
}
