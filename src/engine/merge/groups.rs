//! Merging the edge groups of a store at schema v11 (see
//! `store::edge_groups`): a group only the other branch changed is taken as
//! it wrote it (held back edge by edge where it links to a node kept apart
//! as a merge proposal); a group both branches changed is merged edge by
//! edge against the base, each edge taken from the branch that changed it,
//! ours kept (and noted) where both did.

use std::collections::{BTreeMap, HashSet};

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

fn open(tx: &Connection, schema: &str, id: &[u8], keys: &Keyring) -> Result<Option<Opened>> {
    let row = tx
        .prepare_cached(&format!(
            "SELECT {} FROM {schema}.edges WHERE id = ?1",
            edge_groups::COLUMNS
        ))?
        .query_row([id], |r| Ok(GroupRow::read(r)))
        .ok();
    let Some(row) = row.transpose()? else { return Ok(None) };
    let (source, edges) = row.open(keys, &mut Interner::default())?;
    Ok(Some((source, edges.into_iter().map(|e| (e.id, e)).collect())))
}

fn touches(e: &Edge, unlanded: &HashSet<Vec<u8>>) -> bool {
    unlanded.contains(e.from.as_bytes().as_slice()) || unlanded.contains(e.to.as_bytes().as_slice())
}

/// Merges the `edges` rows of a store of edge groups. `keys` opens ours and
/// the base and seals what is merged; `opener` opens theirs.
pub(super) fn edges(
    tx: &Connection,
    seq: i64,
    rekey: Option<&Rekey<'_>>,
    (keys, opener): (&Keyring, &Keyring),
    unlanded: &HashSet<Vec<u8>>,
    report: &mut MergeReport,
) -> Result<()> {
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
            (false, false, _) => {}
            (false, true, _) if b.is_none() => {
                tx.execute("DELETE FROM main.edges WHERE id = ?1", [&id])?;
                report.edges_removed += 1;
            }
            (false, true, Some(_)) => {
                copy(tx, rk, &id, seq)?;
                report.edges_changed += 1;
            }
            (false, true, None) => {
                if !keys.reads(tier) {
                    // Sealed whole: taken as it is (the merge asks for the
                    // human level when a tier it cannot read changed).
                    copy(tx, None, &id, seq)?;
                    report.edges_changed += 1;
                    continue;
                }
                three_way(tx, &id, tier, (keys, opener), unlanded, seq, report)?;
            }
            (true, false, Some(rk)) if rk.stale_is_ours && a.is_some() => rk.edge(tx, "main", &id, seq)?,
            (true, false, _) => {}
            (true, true, _) if a == b => {}
            (true, true, Some(rk)) => {
                if rk.stale_is_ours && a.is_some() {
                    rk.edge(tx, "main", &id, seq)?;
                }
                report.notes.push(format!(
                    "edge group {}: changed on both branches across a key rotation; this branch's is kept",
                    short(&id)
                ));
            }
            (true, true, None) => {
                if !keys.reads(tier) {
                    return Err(keys.needs(
                        Level::Human,
                        "merging edges both branches changed in a tier only the human reads (set \
                         GRAPHEX_HUMAN_PASSPHRASE)",
                    ));
                }
                three_way(tx, &id, tier, (keys, opener), unlanded, seq, report)?;
            }
        }
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

/// Merges group `id` edge by edge: each edge as the branch that changed it
/// since the base left it (ours where both did), without theirs' edges to
/// nodes kept apart or that would repeat an edge of ours.
fn three_way(
    tx: &Connection,
    id: &[u8],
    tier: Tier,
    (keys, opener): (&Keyring, &Keyring),
    unlanded: &HashSet<Vec<u8>>,
    seq: i64,
    report: &mut MergeReport,
) -> Result<()> {
    let base = open(tx, "o", id, keys)?;
    let ours = open(tx, "main", id, keys)?;
    let theirs = open(tx, "b", id, opener)?;
    let Some(source) = [&theirs, &ours, &base]
        .into_iter()
        .find_map(|g| g.as_ref().map(|g| g.0))
    else {
        return Ok(());
    };
    let empty = BTreeMap::new();
    let (o, a, b) = (
        base.as_ref().map_or(&empty, |g| &g.1),
        ours.as_ref().map_or(&empty, |g| &g.1),
        theirs.as_ref().map_or(&empty, |g| &g.1),
    );
    let ids: std::collections::BTreeSet<&EdgeId> = o.keys().chain(a.keys()).chain(b.keys()).collect();
    let mut merged: Vec<Edge> = Vec::new();
    let mut taken: Vec<EdgeId> = Vec::new();
    for e in ids {
        let (oe, ae, be) = (o.get(e), a.get(e), b.get(e));
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
        merged.extend(pick.cloned());
    }
    // An edge theirs added that repeats one of ours (the same ends and
    // relation, made on both branches under two ids): one is enough.
    loop {
        let refs: Vec<&Edge> = merged.iter().collect();
        let group_id = EdgeId(uuid::Uuid::from_slice(id).map_err(|_| {
            crate::error::Error::integrity(format!("edge group {}", short(id)), "its id is not 16 bytes")
        })?);
        match SealedGroup::seal(keys, &group_id, tier, &source, &refs)? {
            Ok(sealed) => return sealed.put(tx, "main", &group_id, tier, seq),
            Err(token) => {
                let repeat = merged
                    .iter()
                    .position(|e| taken.contains(&e.id) && edge_groups::short_token(keys, e).is_ok_and(|t| t == token));
                let Some(i) = repeat else {
                    return Err(crate::error::Error::integrity(
                        format!("edge group {}", short(id)),
                        "this branch holds one edge twice",
                    ));
                };
                let dropped = merged.remove(i);
                report.edges_added = report.edges_added.saturating_sub(1);
                report.notes.push(format!(
                    "edge {}: the other branch made an edge this branch has under another id; this branch's is kept",
                    dropped.id
                ));
            }
        }
    }
}
