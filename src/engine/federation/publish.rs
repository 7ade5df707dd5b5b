//! Publishing: the bundle of one subgraph as the graph is now, and the
//! state that makes the next one's sequence number and tombstones.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use super::bundle::Bundle;
use super::config::FederationConfig;
use super::state;
use crate::crypto::SealVerifier;
use crate::error::{Error, Result};
use crate::interchange::NodeRecord;
use crate::model::{Name, NodeId, Provenance, Tier, Timestamp};
use crate::store::{Layout, Store};

/// A bundle ready to be written, and its signed text.
#[derive(Clone, Debug)]
pub struct Publication {
    pub bundle: Bundle,
    /// The signed file's text.
    pub text: String,
    /// Nodes matching the patterns and left out: pulled from elsewhere
    /// (federation does not re-publish).
    pub skipped_federated: Vec<String>,
    /// Nodes above the bundle's ceiling matching the patterns and left out:
    /// a bundle not sealed to its consumers (`to`) carries public ones only.
    pub kept_home: Vec<String>,
    /// Whether the bundle is sealed to its consumers.
    pub sealed: bool,
}

/// Where a subgraph's bundle is written by default:
/// `.gpp/graphex/federation/out/<subgraph>.bundle`.
pub fn default_output(layout: &Layout, subgraph: &str) -> PathBuf {
    layout
        .graphex()
        .join("federation")
        .join("out")
        .join(format!("{subgraph}.bundle"))
}

/// This project's publisher key (master level): what consumers pin.
pub fn publisher_key(store: &Store) -> Result<SealVerifier> {
    store
        .keys()
        .seal()
        .map(crate::crypto::MasterSeal::publisher)
        .ok_or_else(|| {
            store
                .keys()
                .needs(crate::keys::Level::Master, "using the publisher key")
        })
}

/// The signed bundle of `subgraph` as the graph is now (master level).
/// Writes nothing: see [`record_publish`]. Decrypts every published node.
pub fn plan_publish(store: &Store, fed: &FederationConfig, subgraph: &str) -> Result<Publication> {
    let seal = store
        .keys()
        .seal()
        .ok_or_else(|| store.keys().needs(crate::keys::Level::Master, "publishing"))?;
    let spec = fed.published(subgraph)?;
    let project = fed.project.clone().ok_or_else(|| {
        Error::invalid(
            "federation setting",
            "project",
            "missing: publishing needs this project's name",
        )
    })?;
    let provenance = Provenance::Federated {
        project: project.clone(),
        subgraph: subgraph.to_owned(),
    };
    let catalog = store.catalog();
    let ceiling = spec.ceiling();
    let recipients = spec.recipients()?;
    let mut skipped_federated = Vec::new();
    let mut kept_home = Vec::new();
    let mut ids: Vec<NodeId> = Vec::new();
    for n in catalog.nodes() {
        if !spec.includes(n.name.as_str()) || n.tier >= Tier::HumanOnly {
            continue;
        }
        if n.tier > ceiling {
            kept_home.push(n.name.to_string());
            continue;
        }
        if super::origin(n).is_some() {
            skipped_federated.push(n.name.to_string());
            continue;
        }
        // Marked as staying here (Ash's `portable = false`).
        if n.properties
            .get("portable")
            .is_some_and(|p| p.trim().eq_ignore_ascii_case("false"))
        {
            kept_home.push(n.name.to_string());
            continue;
        }
        ids.push(n.id);
    }
    skipped_federated.sort();
    kept_home.sort();
    let mut nodes = Vec::with_capacity(ids.len());
    for id in &ids {
        let node = store.node_by_id(id)?;
        let mut record = NodeRecord::from(&node);
        // Who wrote it here (an agent's id and session) stays here.
        record.provenance = provenance.clone();
        nodes.push(record);
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let included: HashSet<NodeId> = ids.into_iter().collect();
    let edges = crate::interchange::edges_among(catalog, &included, ceiling, Some(&provenance));
    let previous = state::load(store)?.published.remove(subgraph).unwrap_or_default();
    let now: BTreeSet<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let sealed = !recipients.is_empty();
    // A plain bundle is in the clear: it names no node that only ever left
    // sealed, nor one that is above public now (a consumer still archives
    // every node of the source that vanished from the bundle).
    let in_clear = |n: &str| {
        !previous.sealed_only.contains(n)
            && catalog.by_name(n).is_none_or(|c| c.tier <= Tier::Public)
            && !store.name_is_hidden(n)
    };
    let tombstones = previous
        .names
        .iter()
        .filter(|n| !now.contains(n.as_str()))
        .filter(|n| sealed || in_clear(n))
        .map(|n| Name::new(n))
        .collect::<Result<Vec<_>>>()?;
    let bundle = Bundle {
        project,
        subgraph: subgraph.to_owned(),
        sequence: previous.sequence + 1,
        published_at: Timestamp::now().to_rfc3339(),
        nodes,
        edges,
        tombstones,
    };
    let text = bundle.sign(seal, &recipients)?;
    Ok(Publication {
        bundle,
        text,
        skipped_federated,
        kept_home,
        sealed,
    })
}

/// Records that `p` was published (after its file was written): its
/// sequence number, and its names for the tombstones of later bundles
/// (noting those that only ever left sealed).
pub fn record_publish(store: &Store, p: &Publication) -> Result<()> {
    let bundle = &p.bundle;
    let mut st = state::load(store)?;
    let entry = st.published.entry(bundle.subgraph.clone()).or_default();
    if bundle.sequence <= entry.sequence {
        return Err(Error::Stale);
    }
    entry.sequence = bundle.sequence;
    for n in &bundle.nodes {
        let name = n.name.to_string();
        if !p.sealed {
            entry.sealed_only.remove(&name);
        } else if !entry.names.contains(&name) {
            entry.sealed_only.insert(name.clone());
        }
        entry.names.insert(name);
    }
    state::save(store, &st)
}
