//! Pulling: a source's bundle, verified against its pinned key, applied to
//! the graph one way (see the module docs of `federation`).

use std::collections::{BTreeMap, HashSet};
use std::io::Read as _;
use std::path::Path;

use serde::Serialize;

use super::apply::PullWrites;
use super::bundle::Bundle;
use super::config::{Location, SourceConfig};
use super::{FEDERATED_FROM, origin, state};
use crate::error::{Error, Result};
use crate::interchange::{ImportEdge, ImportNode, MAX_INPUT_BYTES, Mapped};
use crate::interchange::{ImportOptions, ImportReport};
use crate::model::{Name, Provenance, Status};
use crate::store::Store;

/// What a pull did (or, with `dry_run`, would do).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PullReport {
    /// `project/subgraph`.
    pub source: String,
    pub sequence: u64,
    /// The sequence pulled before, if any.
    pub previous: Option<u64>,
    #[serde(flatten)]
    pub import: ImportReport,
    /// Federated nodes archived: tombstoned, or no longer in the bundle.
    pub archived: Vec<String>,
    /// Federated edges the source no longer publishes.
    pub edges_removed: Vec<String>,
    /// Bundle nodes not pulled because a local node has the name (kept as
    /// it is): `name: why`.
    pub conflicts: Vec<String>,
    pub dry_run: bool,
}

/// Reads the bundle of a `path` source (relative to `root`) and checks it
/// against the pinned key; a sealed one is opened with `identity` (this
/// project's master identity). Nothing is written. A `git` source's bundle
/// is fetched by the caller (which runs git) and opened with [`open_bundle`].
pub fn read_bundle(root: &Path, src: &SourceConfig, identity: Option<&age::x25519::Identity>) -> Result<Bundle> {
    let configured = match src.location() {
        Location::Path(p) => p,
        Location::Git { remote, .. } => {
            return Err(Error::invalid(
                "federation source",
                src.label(),
                format!("its bundle is on the git remote {remote:?}: fetch it with `graphex federation pull`"),
            ));
        }
    };
    let path = if Path::new(&configured).is_absolute() {
        Path::new(&configured).to_owned()
    } else {
        root.join(&configured)
    };
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&path, e))?;
    open_bundle(&path.display().to_string(), &bytes, src, identity)
}

/// Checks `bytes` (a bundle read from `origin`, as messages name it)
/// against `src`'s pinned key and opens it; nothing is written.
pub fn open_bundle(
    origin: &str,
    bytes: &[u8],
    src: &SourceConfig,
    identity: Option<&age::x25519::Identity>,
) -> Result<Bundle> {
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Error::invalid(
            "federation bundle",
            origin,
            format!("larger than {MAX_INPUT_BYTES} bytes"),
        ));
    }
    Bundle::open(origin, bytes, &src.pinned_key()?, identity)
}

/// Applies `bundle` from the source `src` (master level), in one commit,
/// and records its sequence. Refused, with nothing written: a bundle for
/// another source, older than the one pulled last, or with items the store
/// refuses. A local node with a bundle node's name is reported in
/// `conflicts` and kept; the rest is pulled.
pub fn pull(store: &mut Store, src: &SourceConfig, bundle: &Bundle, dry_run: bool) -> Result<PullReport> {
    let label = src.label();
    if bundle.project != src.project || bundle.subgraph != src.subgraph {
        return Err(Error::integrity(
            format!("the bundle of {label}"),
            format!(
                "it publishes {}, not {label}: the source's path points at another subgraph; nothing written",
                crate::hygiene::visible_text(&bundle.label())
            ),
        ));
    }
    // The rows the mark depends on are checked first: the timeline under
    // the master's seal (deleted pull rows are caught).
    store.check_timeline_sealed()?;
    // The sealed state, the timeline for what it may have lost (an older
    // copy of the state put back by hand), and this machine's freshness
    // record, which no one with only the repository can change.
    let previous = state::load(store)?
        .pulled
        .get(&label)
        .map(|p| p.sequence)
        .max(store.pulled_on_timeline(&label)?)
        .max(store.federation_high_water(&label));
    if let Some(last) = previous
        && bundle.sequence < last
    {
        return Err(Error::integrity(
            format!("the bundle of {label}"),
            format!(
                "it is #{}, older than #{last} already pulled (a stale or replayed bundle); nothing written",
                bundle.sequence
            ),
        ));
    }
    let actor = format!("federation pull {label} #{}", bundle.sequence);
    let provenance = Provenance::Federated {
        project: src.project.clone(),
        subgraph: src.subgraph.clone(),
    };
    let mut report = PullReport {
        source: label.clone(),
        sequence: bundle.sequence,
        previous,
        dry_run,
        ..PullReport::default()
    };
    let catalog = store.catalog();
    let mut mapped = Mapped {
        lossless: true,
        ..Mapped::default()
    };
    let mut pulled: HashSet<&str> = HashSet::new();
    for (i, n) in bundle.nodes.iter().enumerate() {
        let name = n.name.as_str();
        let why = match catalog.by_name(name) {
            Some(local) => match origin(local) {
                Some(o) if o == label => None,
                Some(o) => Some(format!("{name}: already federated from {o}; kept")),
                None => Some(format!("{name}: a local node has this name; kept, not overwritten")),
            },
            None if store.name_is_hidden(name) => Some(format!(
                "{name}: a local node you cannot read at this unlock level has this name; kept"
            )),
            None => None,
        };
        if let Some(why) = why {
            report.conflicts.push(why);
            continue;
        }
        pulled.insert(name);
        let mut properties = n.properties.clone();
        properties.insert(FEDERATED_FROM.to_owned(), label.clone());
        mapped.nodes.push(ImportNode {
            item: format!("node {i} ({name})"),
            name: n.name.clone(),
            node_type: n.node_type.clone(),
            description: n.description.clone(),
            body: n.body.clone(),
            properties,
            tier: Some(n.tier),
            status: Some(n.status),
            status_reason: n.status_reason.clone(),
            confidence: Some(n.confidence),
            provenance: Some(provenance.clone()),
            created: Some(n.created),
            updated: Some(n.updated),
        });
    }
    let mut published_edges = HashSet::new();
    for (i, e) in bundle.edges.iter().enumerate() {
        published_edges.insert((e.from.as_str(), e.relation.as_str(), e.to.as_str()));
        if !pulled.contains(e.from.as_str()) || !pulled.contains(e.to.as_str()) {
            continue;
        }
        mapped.edges.push(ImportEdge {
            item: format!("edge {i}"),
            from: e.from.clone(),
            relation: e.relation.clone(),
            to: e.to.clone(),
            tier: Some(e.declared_tier),
            confidence: Some(e.confidence),
            weight: Some(e.weight),
            bidirectional: e.bidirectional,
            provenance: Some(provenance.clone()),
            created: Some(e.created),
        });
    }
    let tombstoned: HashSet<&Name> = bundle.tombstones.iter().collect();
    let in_bundle: HashSet<&str> = bundle.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut writes = PullWrites::default();
    let mut ours: BTreeMap<crate::model::NodeId, &str> = BTreeMap::new();
    for n in catalog.nodes() {
        if origin(n) != Some(label.as_str()) {
            continue;
        }
        ours.insert(n.id, n.name.as_str());
        if in_bundle.contains(n.name.as_str()) || n.status == Status::Archived {
            continue;
        }
        let reason = if tombstoned.contains(&n.name) {
            format!("withdrawn by {label} (bundle #{})", bundle.sequence)
        } else {
            format!("no longer published by {label} (bundle #{})", bundle.sequence)
        };
        report.archived.push(n.name.to_string());
        writes.archive.push((n.name.to_string(), reason));
    }
    for e in catalog.edges() {
        let (Some(from), Some(to)) = (ours.get(&e.from), ours.get(&e.to)) else {
            continue;
        };
        if !published_edges.contains(&(*from, e.relation.as_str(), *to)) {
            report.edges_removed.push(format!("{from} -> {} -> {to}", e.relation));
            writes.unlink.push(e.clone());
        }
    }
    let opts = ImportOptions {
        tier: None,
        file: match src.location() {
            Location::Path(p) => p,
            Location::Git { remote, reference } => format!("{remote} {reference}"),
        },
        actor: actor.clone(),
        provenance,
    };
    let plan = store.plan_pull_import(&mapped, &opts)?;
    report.import = plan.report.clone();
    if plan.refused() {
        let first = plan.report.refused.first().map(ToString::to_string).unwrap_or_default();
        return Err(Error::Document {
            path: label,
            reason: format!(
                "{} item(s) of the bundle refused, nothing written; first: {first}",
                plan.report.refused_count
            ),
        });
    }
    if dry_run {
        return Ok(report);
    }
    report.import = store.apply_pull(plan, &writes, &actor)?;
    let mut st = state::load(store)?;
    st.pulled.entry(label.clone()).or_default().sequence = bundle.sequence;
    state::save(store, &st)?;
    store.note_federation(&label, bundle.sequence)?;
    Ok(report)
}
