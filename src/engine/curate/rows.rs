//! The rows of a curator list: links, orphans, staleness, scope, near
//! duplicates; and their order.

use std::cmp::Ordering;

use super::{CuratorRow, Flags, ListSpec, SortBy};
use crate::lookup::NearNames;
use crate::model::NodeSummary;
use crate::store::Catalog;

/// One row per listed slot, in slot order, mentions not yet counted.
pub(super) fn build(c: &Catalog, listed: &[u32], spec: &ListSpec) -> Vec<CuratorRow> {
    let entries: Vec<(u32, &NodeSummary)> = listed.iter().filter_map(|&s| Some((s, c.node_at(s)?))).collect();
    let near = NearNames::new(entries.iter().map(|(_, n)| n.name.as_str()));
    let stale_after = spec
        .stale_after
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    entries
        .iter()
        .enumerate()
        .map(|(place, &(slot, n))| {
            let live = |e: &&u32| c.edge_at(**e).is_some();
            let out: Vec<u32> = c.out_slots(slot).iter().filter(live).copied().collect();
            let inc: Vec<u32> = c.in_slots(slot).iter().filter(live).copied().collect();
            let self_links = inc.iter().filter(|&&e| c.ends_at(e).0 == slot).count();
            let arriving = inc.iter().any(|&e| c.ends_at(e).0 != slot)
                || out
                    .iter()
                    .any(|&e| c.ends_at(e).1 != slot && c.edge_at(e).is_some_and(|x| x.bidirectional));
            CuratorRow {
                name: n.name.clone(),
                node_type: n.node_type.clone(),
                status: n.status,
                tier: n.tier,
                last_change: n.updated,
                scope: n.properties.get("scope").cloned(),
                links: out.len() + inc.len() - self_links,
                flags: Flags {
                    near_duplicate_of: near
                        .duplicate_besides(n.name.as_str(), place)
                        .map(|(other, _)| entries[other].1.name.clone()),
                    orphan: !arriving,
                    stale: stale_after.is_some_and(|limit| spec.now.0.saturating_sub(n.updated.0) > limit),
                    unlinked_mentions: 0,
                },
            }
        })
        .collect()
}

/// Sorts `rows` by `by` (ties by name, ascending), so the console can
/// re-sort a list without computing it again.
pub fn sort_rows(rows: &mut [CuratorRow], by: SortBy, descending: bool) {
    let key = |a: &CuratorRow, b: &CuratorRow| -> Ordering {
        match by {
            SortBy::Name => Ordering::Equal,
            SortBy::LastChange => a.last_change.cmp(&b.last_change),
            SortBy::Scope => (a.scope.is_none(), &a.scope).cmp(&(b.scope.is_none(), &b.scope)),
            SortBy::Links => a.links.cmp(&b.links),
        }
    };
    rows.sort_by(|a, b| {
        let primary = match by {
            SortBy::Name => a.name.cmp(&b.name),
            _ => key(a, b),
        };
        let primary = if descending { primary.reverse() } else { primary };
        primary.then_with(|| a.name.cmp(&b.name))
    });
}
