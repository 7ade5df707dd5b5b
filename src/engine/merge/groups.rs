//! Merging the edge groups of a store at schema v11 (see
//! `store::edge_groups`): a group only the other branch changed is taken as
//! it wrote it (held back edge by edge where it links to a node kept apart
//! as a merge proposal); a group both branches changed is merged edge by
//! edge against the base, each edge taken from the branch that changed it,
//! ours kept (and noted) where both did.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use rusqlite::{Connection, params};

use super::MergeReport;
use super::rekey::Rekey;
use super::rows::{EDGE_COLUMNS, EdgeSides, ids_to_merge, short};
use crate::codec::Interner;
use crate::error::Result;
use crate::keys::{Keyring, Level};
use crate::model::{Edge, EdgeId, NodeId, Tier};
use crate::store::kit::edge_groups::{self, GroupRow, SealedGroup};

/// A group as one side holds it: its source and its edges by id.
type Opened = (NodeId, BTreeMap<EdgeId, Edge>);

fn open(tx: &Connection, schema: &str, id: &EdgeId, keys: &Keyring) -> Result<Option<Opened>> {
    let Some(row) = edge_groups::read_in(tx, schema, id)? else {
        return Ok(None);
    };
    let (source, edges) = row.open(keys, &mut Interner::default())?;
    Ok(Some((source, edges.into_iter().map(|e| (e.id, e)).collect())))
}

fn touches(e: &Edge, unlanded: &HashSet<Vec<u8>>) -> bool {
    unlanded.contains(e.from.as_bytes().as_slice()) || unlanded.contains(e.to.as_bytes().as_slice())
}

/// Merges the `edges` rows of a store of edge groups. `keys` opens ours and
/// the base and seals what is merged; `opener` opens theirs. Groups the
/// other branch changed are merged per source node, across its tiers, so an
/// edge one branch moved to another tier (a tier raise) is one edge.
pub(super) fn edges(
    tx: &Connection,
    seq: i64,
    rekey: Option<&Rekey<'_>>,
    (keys, opener): (&Keyring, &Keyring),
    unlanded: &HashSet<Vec<u8>>,
    report: &mut MergeReport,
) -> Result<()> {
    let mut sources: BTreeSet<NodeId> = BTreeSet::new();
    for id in ids_to_merge(tx, "edges", EDGE_COLUMNS, rekey)? {
        let EdgeSides {
            o,
            a,
            b,
            rk,
            a_changed,
            b_changed,
        } = EdgeSides::read(tx, &id, rekey)?;
        let tier = [&b, &a, &o]
            .into_iter()
            .find_map(|r| r.as_ref().and_then(|r| Tier::from_code(r.0)))
            .unwrap_or(Tier::HumanOnly);
        match (a_changed, b_changed, rk) {
            (false, false, _) if a != b && b.is_some() => copy(tx, rk, &id, seq)?,
            (false, false, _) | (true, false, None) => {}
            (true, true, _) if a == b => {}
            // Across a key rotation, a group is taken whole from the branch
            // that changed it (ours when both did, noted).
            (false, true, Some(_)) => {
                copy(tx, rk, &id, seq)?;
                report.edges_changed += 1;
            }
            (true, false, Some(rk)) => {
                if rk.stale_is_ours && a.is_some() {
                    rk.edge(tx, "main", &id, seq)?;
                }
            }
            (true, true, Some(rk)) => {
                if rk.stale_is_ours && a.is_some() {
                    rk.edge(tx, "main", &id, seq)?;
                }
                report.notes.push(format!(
                    "edge group {}: changed on both branches across a key rotation; this branch's is kept",
                    short(&id)
                ));
            }
            (a_changed, true, None) if !keys.reads(tier) => {
                if a_changed {
                    return Err(keys.needs(
                        Level::Human,
                        "merging edges both branches changed in a tier only the human reads (set \
                         GRAPHEX_HUMAN_PASSPHRASE)",
                    ));
                }
                // Sealed whole: taken as it is (the merge then asks for the
                // human level, as for any change to a tier it cannot read).
                if b.is_some() {
                    copy(tx, None, &id, seq)?;
                } else {
                    tx.execute("DELETE FROM main.edges WHERE id = ?1", [&id])?;
                }
                report.edges_changed += 1;
            }
            (_, true, None) => {
                let group = crate::store::row_edge_id(&id)?;
                let source = [("b", opener), ("main", keys), ("o", keys)]
                    .into_iter()
                    .find_map(|(side, k)| open(tx, side, &group, k).transpose())
                    .transpose()?
                    .map(|(source, _)| source);
                sources.extend(source);
            }
        }
    }
    // A rotated tier's groups were taken whole above: the base's are
    // under the old key, and they stay as they are here.
    let rotated = rekey.map(|rk| rk.tier);
    for source in sources {
        merge_source(tx, &source, (keys, opener), rotated, unlanded, seq, report)?;
    }
    tx.execute(
        "INSERT OR IGNORE INTO main.unlinked (edge_id, tier, sealed) \
         SELECT edge_id, tier, sealed FROM b.unlinked WHERE edge_id NOT IN (SELECT edge_id FROM o.unlinked)",
        [],
    )?;
    if let Some(rk) = rekey {
        rk.unlinked(tx)?;
    }
    Ok(())
}

/// Theirs' row taken as it is (sealed again when ours rotated its tier).
fn copy(tx: &Connection, rk: Option<&Rekey<'_>>, id: &[u8], seq: i64) -> Result<()> {
    match rk.filter(|rk| !rk.stale_is_ours) {
        Some(rk) => rk.edge(tx, "b", id, seq),
        None => {
            tx.execute(
                "INSERT OR REPLACE INTO main.edges (id, tier, token, sealed, seq, digest) \
                 SELECT id, tier, token, sealed, ?2, digest FROM b.edges WHERE id = ?1",
                params![id, seq],
            )?;
            Ok(())
        }
    }
}

/// Merges the edges leaving `source`, across the tiers this session reads,
/// edge by edge: each as the branch that changed it since the base left it
/// (ours where both did, noted), without theirs' edges to nodes kept apart
/// or that would repeat an edge of ours; then seals each of its groups that
/// changed. Its groups in a tier this session cannot read, or in the tier
/// a key rotation `rotated`, stay as they are, their tokens still counted.
fn merge_source(
    tx: &Connection,
    source: &NodeId,
    (keys, opener): (&Keyring, &Keyring),
    rotated: Option<Tier>,
    unlanded: &HashSet<Vec<u8>>,
    seq: i64,
    report: &mut MergeReport,
) -> Result<()> {
    type Sides = (Option<Edge>, Option<Edge>, Option<Edge>);
    let mut by_id: BTreeMap<EdgeId, Sides> = BTreeMap::new();
    // Ours' edges by tier, as they are (in order of their ids).
    let mut ours_groups: BTreeMap<Tier, Vec<Edge>> = BTreeMap::new();
    let mut fixed: Vec<[u8; edge_groups::TOKEN]> = Vec::new();
    let merged_tiers = || Tier::ALL.into_iter().filter(|t| keys.reads(*t) && rotated != Some(*t));
    for tier in Tier::ALL {
        let id = edge_groups::group_id(keys, source, tier)?;
        if !merged_tiers().any(|t| t == tier) {
            fixed.extend(edge_groups::read(tx, &id)?.iter().flat_map(GroupRow::tokens));
            continue;
        }
        for (side, k) in [("o", keys), ("main", keys), ("b", opener)] {
            let Some((from, edges)) = open(tx, side, &id, k)? else {
                continue;
            };
            if from != *source {
                return Err(crate::error::Error::integrity(
                    format!("edge group {}", short(id.as_bytes())),
                    "it holds another node's edges",
                ));
            }
            if side == "main" {
                ours_groups.insert(tier, edges.values().cloned().collect());
            }
            for (eid, e) in edges {
                let slot = by_id.entry(eid).or_default();
                match side {
                    "o" => slot.0 = Some(e),
                    "main" => slot.1 = Some(e),
                    _ => slot.2 = Some(e),
                }
            }
        }
    }
    let mut merged: Vec<Edge> = Vec::new();
    let mut taken: Vec<EdgeId> = Vec::new();
    for (e, (oe, ae, be)) in &by_id {
        let pick = if ae == be || be == oe {
            ae
        } else if ae == oe {
            match be {
                Some(edge) if touches(edge, unlanded) => {
                    report.notes.push(format!(
                        "edge {e}: the other branch linked it to a node kept apart as a merge proposal (both \
                         branches added that name); link it again if you accept that proposal"
                    ));
                    ae
                }
                _ => {
                    match (oe, be) {
                        (None, Some(_)) => report.edges_added += 1,
                        (Some(_), None) => report.edges_removed += 1,
                        _ => report.edges_changed += 1,
                    }
                    if be.is_some() {
                        taken.push(*e);
                    }
                    be
                }
            }
        } else {
            report
                .notes
                .push(format!("edge {e}: changed on both branches; this branch's is kept"));
            ae
        };
        merged.extend(pick.clone());
    }
    // An edge theirs made that repeats one of ours or one in a tier this
    // session cannot read (the same ends and relation, under two ids): one
    // is enough, ours.
    let held_apart: HashSet<[u8; edge_groups::TOKEN]> = fixed.iter().copied().collect();
    let fixed_has = |e: &Edge| edge_groups::short_token(keys, e).is_ok_and(|t| held_apart.contains(&t));
    let mut seen: HashSet<[u8; edge_groups::TOKEN]> = fixed.into_iter().collect();
    let mut kept: Vec<Edge> = Vec::with_capacity(merged.len());
    // Ours first: theirs' repeat is the one dropped.
    merged.sort_by_key(|e| taken.contains(&e.id));
    for e in merged {
        if seen.insert(edge_groups::short_token(keys, &e)?) {
            kept.push(e);
        } else if taken.contains(&e.id) {
            report.edges_added = report.edges_added.saturating_sub(1);
            report.notes.push(format!(
                "edge {}: the other branch made an edge this branch has under another id; this branch's is kept",
                e.id
            ));
        } else if !fixed_has(&e) {
            return Err(crate::error::Error::integrity(
                format!("the edges of node {source}"),
                "this branch holds one edge twice",
            ));
        } else {
            return Err(keys.needs(
                Level::Human,
                "merging an edge that repeats one in a tier only the human reads (set GRAPHEX_HUMAN_PASSPHRASE)",
            ));
        }
    }
    for tier in merged_tiers() {
        let mut group: Vec<&Edge> = kept.iter().filter(|e| e.tier == tier).collect();
        group.sort_by_key(|e| e.id);
        // Ours as it is: the same edges, each the same version.
        let unchanged = match ours_groups.get(&tier) {
            Some(ours) => ours.iter().eq(group.iter().copied()),
            None => group.is_empty(),
        };
        if unchanged {
            continue;
        }
        let id = edge_groups::group_id(keys, source, tier)?;
        let sealed = SealedGroup::seal(keys, &id, tier, source, &group)?
            .map_err(|_| crate::error::Error::integrity(format!("the edges of node {source}"), "one edge twice"))?;
        sealed.put(tx, "main", &id, tier, seq)?;
    }
    Ok(())
}
