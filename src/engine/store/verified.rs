//! The rows a session verified at open (or wrote since), kept so that each
//! node row read later is checked against them, and the catalog built from
//! snapshots is checked against the index.

use super::id_table::IdTable;
use super::manifest::{Group, RowKey, Tagger, stored_digest};
use super::seal::SealTagger;
use super::tracked::{HalfTag, half};
pub(super) use super::tracked::{RowKind, Tags, Totals, Tracked};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{EdgeId, NodeId, Tier};

/// A verified node row as a session keeps it: its tier, its version and
/// the first half of its tag (see `tracked::HalfTag`), 41 bytes with its id
/// where a tuple of them took 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NodeMark {
    tier: Tier,
    version: [u8; 8],
    tag: HalfTag,
}

impl NodeMark {
    pub(super) fn new(tier: Tier, version: u64, tag: &[u8; 32]) -> Self {
        Self {
            tier,
            version: version.to_le_bytes(),
            tag: half(tag),
        }
    }

    pub(super) fn tier(&self) -> Tier {
        self.tier
    }

    pub(super) fn version(&self) -> u64 {
        u64::from_le_bytes(self.version)
    }

    pub(super) fn tag(&self) -> &HalfTag {
        &self.tag
    }
}

/// The rows as verified: each node row's tag, for the check on read, and
/// the number of edge rows per tier, for the check of the catalog. Only
/// rows of groups this session holds the key of are kept.
#[derive(Default)]
pub(super) struct VerifiedNodes {
    pub(super) nodes: IdTable<NodeId, NodeMark>,
    pub(super) edges: [usize; 4],
    /// Whether every row of every tier was tallied (by the master's seal),
    /// so the counts above are the index's.
    pub(super) every_row: bool,
    /// What a long-lived session keeps to apply another process's commits
    /// row by row (see `delta`); `None` in a one-command process.
    pub(super) tracked: Option<Box<Tracked>>,
}

impl VerifiedNodes {
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// An empty set that also keeps what `delta` needs.
    pub(super) fn tracking() -> Self {
        Self {
            tracked: Some(Box::default()),
            ..Self::default()
        }
    }

    /// The index's node and edge rows per tier code, when every row was
    /// tallied: what `status` would otherwise count with two scans.
    pub(super) fn rows_per_tier(&self) -> Option<Vec<(u64, u64)>> {
        if !self.every_row {
            return None;
        }
        let mut per_tier: Vec<(u64, u64)> = self.edges.iter().map(|&e| (0, e as u64)).collect();
        for m in self.nodes.values() {
            per_tier[m.tier().code() as usize].0 += 1;
        }
        Some(per_tier)
    }

    /// Notes a node row's tag, read at open.
    pub(super) fn load_node(&mut self, id: NodeId, tier: Tier, version: u64, tag: [u8; 32]) {
        self.nodes.load(id, NodeMark::new(tier, version, &tag));
    }

    /// Notes an edge row's tag, read at open (when tracking).
    pub(super) fn load_edge(&mut self, id: EdgeId, tier: Tier, tag: [u8; 32], edges: u32) {
        self.edges[tier.code() as usize] += edges as usize;
        if let Some(t) = self.tracked.as_mut() {
            t.edges.load(id, (tier, half(&tag), edges));
        }
    }

    /// Notes a readable row's set-hash element, read at open (when
    /// tracking).
    pub(super) fn load_element(&mut self, kind: RowKind, id: [u8; 16], element: [u8; 32]) {
        if let Some(t) = self.tracked.as_mut() {
            t.elements.load((kind, id), element);
        }
    }

    /// Adds what another tally (the edge half, on its own thread) noted.
    pub(super) fn absorb(&mut self, other: VerifiedNodes) {
        for (a, b) in self.edges.iter_mut().zip(other.edges) {
            *a += b;
        }
        self.nodes.absorb(other.nodes);
        if let (Some(mine), Some(theirs)) = (self.tracked.as_mut(), other.tracked) {
            mine.edges.absorb(theirs.edges);
            mine.elements.absorb(theirs.elements);
        }
    }

    /// Sorts what the open loaded, before anything is looked up.
    pub(super) fn settle(&mut self) {
        self.nodes.settle();
        if let Some(t) = self.tracked.as_mut() {
            t.edges.settle();
            t.elements.settle();
        }
    }

    /// Drops rows a commit of this session replaced or removed.
    pub(super) fn forget(&mut self, rows: &[RowKey]) {
        for r in rows {
            let node = match r {
                RowKey::Node { id, .. } => self.nodes.remove(id),
                RowKey::Edge { tier, edges, .. } => {
                    let n = &mut self.edges[tier.code() as usize];
                    *n = n.saturating_sub(*edges as usize);
                    None
                }
            };
            if let Some(t) = self.tracked.as_mut() {
                if let Some(m) = node {
                    t.totals.count_half(m.tier(), m.tag(), -1);
                }
                if let RowKey::Edge { id, .. } = r
                    && let Some((tier, tag, _)) = t.edges.remove(id)
                {
                    t.totals.count_half(tier, &tag, -1);
                }
                t.drop_element(RowKind::of(r), r.id_bytes());
            }
        }
    }

    /// Refuses node rows a commit is about to replace when they are not
    /// the rows this session verified (changed in the index since, outside
    /// Graphex): the commit would otherwise fold them into the seal.
    pub(super) fn check_before(&self, keys: &Keyring, rows: &[RowKey]) -> Result<()> {
        let Some(seal) = keys.seal() else {
            return Ok(());
        };
        let t = SealTagger::new(seal.mac_key());
        let changed = |what: String| {
            Err(Error::integrity(
                what,
                "its index row changed outside Graphex since this session verified it; nothing was written \
                 (see `graphex doctor`)",
            ))
        };
        for r in rows {
            match r {
                RowKey::Node { id, tier, version, .. } => {
                    if self.nodes.get(id) != Some(&NodeMark::new(*tier, *version, &t.row(r))) {
                        return changed(format!("node {id}"));
                    }
                }
                // A session that keeps edge rows' tags checks those too (a
                // one-command process verified them at its open).
                RowKey::Edge { id, tier, .. } => {
                    if let Some(tracked) = self.tracked.as_ref()
                        && tracked.edges.get(id).map(|(t, h, _)| (*t, *h)) != Some((*tier, half(&t.row(r))))
                    {
                        return changed(format!("edge {id}"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds rows a commit of this session (or, through `delta`, of
    /// another process) wrote, as `tags` tags them.
    pub(super) fn record(&mut self, tags: &Tags, rows: &[RowKey]) {
        let mut nodes = Vec::new();
        for r in rows {
            let Some(tag) = tags.tag(r) else {
                continue;
            };
            match r {
                RowKey::Node { id, tier, version, .. } => {
                    nodes.push((*id, NodeMark::new(*tier, *version, &tag)));
                }
                RowKey::Edge { id, tier, edges, .. } => {
                    self.edges[tier.code() as usize] += *edges as usize;
                    if let Some(t) = self.tracked.as_mut() {
                        t.edges.insert(*id, (*tier, half(&tag), *edges));
                    }
                }
            }
            if let Some(t) = self.tracked.as_mut() {
                t.totals.count(r.tier(), &tag, 1);
                if let Some(e) = tags.element(r) {
                    t.put_element(RowKind::of(r), r.id_bytes(), e);
                }
            }
        }
        self.nodes.extend(nodes);
    }

    /// Notes the edge rows a commit of this session counted as it
    /// inserted them (see `edge_fold`), as [`VerifiedNodes::record`] notes
    /// rows.
    pub(super) fn record_edges(&mut self, fold: super::edge_fold::EdgeFold) {
        for (n, added) in self.edges.iter_mut().zip(fold.per_tier) {
            *n += added as usize;
        }
        let (Some(t), Some(rows)) = (self.tracked.as_mut(), fold.rows) else {
            return;
        };
        let mut tags = Vec::with_capacity(rows.len());
        for row in rows {
            tags.push((row.id, (row.tier, half(&row.tag), row.edges)));
            t.totals.count(row.tier, &row.tag, 1);
            if let Some(e) = row.element {
                t.put_element(RowKind::Edge, *row.id.as_bytes(), e);
            }
        }
        t.edges.extend(tags);
    }
}

/// Checks a row about to be read against the verified rows: a row changed
/// in the index since it was verified, without a commit, is refused.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_read(
    verified: &VerifiedNodes,
    keys: &Keyring,
    id: &NodeId,
    tier: Tier,
    version: u64,
    blob: &str,
    digest: rusqlite::types::ValueRef<'_>,
    token: &[u8],
    sealed: bool,
) -> Result<()> {
    // A store opened to be sealed was verified by its manifest's tags.
    let tag = if sealed && let Some(seal) = keys.seal() {
        SealTagger::new(seal.mac_key()).node(id, tier, version, blob, &stored_digest(digest), token)
    } else if let Ok(ciphers) = keys.tier(Group::of(tier).key_tier()) {
        Tagger::new(&ciphers.manifest).node(id, tier, version, blob, &stored_digest(digest))
    } else {
        // A group this session cannot key (public rows when locked, say).
        return Ok(());
    };
    match verified.nodes.get(id) {
        Some(v) if *v == NodeMark::new(tier, version, &tag) => Ok(()),
        _ => Err(Error::integrity(
            format!("node {id}"),
            "its index row is not the one the manifest verified: rolled back, altered or restored outside \
             Graphex; nothing is served (see `graphex doctor`)",
        )),
    }
}

/// Checks the catalog built from snapshots and later rows against the
/// verified rows: an older snapshot put back would bring back removed nodes
/// and edges, or old versions. Nodes and edges are checked on two threads
/// (the open waits for this check and nothing else). Without `edges`, the
/// catalog holds none (see `Store::open_node_names`) and only its nodes are
/// checked.
pub(super) fn check_catalog(
    catalog: &super::Catalog,
    verified: &VerifiedNodes,
    keys: &Keyring,
    edges: bool,
) -> Result<()> {
    let covered = |tier: Tier| keys.reads(tier) && keys.reads(Group::of(tier).key_tier());
    if !edges {
        return check_nodes(catalog, verified, &covered);
    }
    let spread = catalog.edge_count() >= super::catalog::THREADED_EDGES;
    let count_edges = || {
        // One pass over the edges (hundreds of thousands), counted per tier.
        let mut per_tier = [0usize; 4];
        for e in catalog.edges() {
            per_tier[e.tier.code() as usize] += 1;
        }
        Ok(per_tier)
    };
    let (per_tier, ()) =
        crate::parallel::beside(spread, |_| count_edges(), || check_nodes(catalog, verified, &covered))?;
    for tier in Tier::ALL.into_iter().filter(|t| covered(*t)) {
        let loaded = per_tier[tier.code() as usize];
        let rows = verified.edges[tier.code() as usize];
        if loaded != rows {
            return Err(stale(format!(
                "{loaded} {tier} edges loaded where the index holds {rows}"
            )));
        }
    }
    Ok(())
}

fn stale(what: String) -> Error {
    Error::integrity("a tier snapshot", format!("{what}: an older snapshot was put back"))
}

/// The node half of [`check_catalog`].
fn check_nodes(
    catalog: &super::Catalog,
    verified: &VerifiedNodes,
    covered: &(impl Fn(Tier) -> bool + Sync),
) -> Result<()> {
    let mut seen = 0usize;
    for n in catalog.nodes().filter(|n| covered(n.tier)) {
        seen += 1;
        match verified.nodes.get(&n.id) {
            Some(m) if m.tier() == n.tier && m.version() == n.version => {}
            _ => {
                return Err(stale(format!(
                    "node {} is not in the index as the snapshot has it",
                    n.id
                )));
            }
        }
    }
    let expected = verified.nodes.values().filter(|m| covered(m.tier())).count();
    if seen != expected {
        return Err(stale(format!("{seen} nodes loaded where the index holds {expected}")));
    }
    Ok(())
}
