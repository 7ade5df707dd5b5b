//! A commit's edge rows counted into the manifest, the master's seal and
//! the session's totals as they are sealed, instead of kept as row keys to
//! be counted after: a bulk commit of five million edges held 96 bytes a
//! row for that alone. Each row is counted exactly once: a commit's edges
//! have distinct ids (see [`distinct_last`]), so none replaces another of
//! the same commit; the rows they replace are counted out as before.

use std::sync::Mutex;

use rustc_hash::FxHashSet;

use super::manifest::{Group, RowKey, Sum, Tagger};
use super::seal::{SealTagger, element};
use crate::crypto::LtHash;
use crate::error::Result;
use crate::keys::Keyring;
use crate::model::{Edge, EdgeId, Tier};

/// What a commit's edge rows add: per manifest group, to the master's
/// seal, to the readable set hash, per tier; and each row's tag when the
/// session keeps them.
#[derive(Default)]
pub(crate) struct EdgeFold {
    /// Per group: the count and XOR of the rows' tags under its key.
    pub(crate) manifest: [Sum; 3],
    /// The groups a row fell in (their manifest entries are rewritten).
    pub(crate) groups: [bool; 3],
    /// The master's tags.
    pub(crate) sealed: Sum,
    /// The readable rows' set-hash elements.
    pub(crate) readable: LtHash,
    /// Edges per tier code.
    pub(crate) per_tier: [u64; 4],
    /// Each row's id, tier, master tag and (readable rows, when asked)
    /// set-hash element, for a session that keeps them (see `tracked`).
    pub(crate) rows: Option<Vec<FoldedRow>>,
    /// Whether `rows` keeps the elements.
    elements: bool,
}

/// A row as a session's maps keep it.
pub(crate) struct FoldedRow {
    pub(crate) id: EdgeId,
    pub(crate) tier: Tier,
    /// The master's tag.
    pub(crate) tag: [u8; 32],
    /// The set-hash element of a readable row, when kept.
    pub(crate) element: Option<[u8; 32]>,
    /// The edges the row holds.
    pub(crate) edges: u32,
}

/// The keys a fold tags with.
pub(crate) struct EdgeTaggers<'k> {
    keys: &'k Keyring,
    groups: [Option<Tagger>; 3],
    seal: SealTagger,
}

impl<'k> EdgeTaggers<'k> {
    /// The master's tagger and every group's this keyring holds (a row of
    /// a group it does not hold is refused as the manifest refuses it).
    pub(crate) fn new(keys: &'k Keyring) -> Result<Self> {
        let seal = super::seal::sealer(keys)?;
        Ok(Self {
            keys,
            groups: Group::ALL.map(|g| keys.tier(g.key_tier()).ok().map(|c| Tagger::new(&c.manifest))),
            seal: SealTagger::new(seal.mac_key()),
        })
    }
}

impl EdgeFold {
    /// An empty fold; with `rows`, keeping each row's tag (and with
    /// `elements`, each readable row's element) for the session's maps.
    pub(crate) fn new(rows: bool, elements: bool) -> Self {
        Self {
            rows: rows.then(Vec::new),
            elements,
            ..Self::default()
        }
    }

    /// Counts one row in (`row` is an edge row as it was inserted).
    pub(crate) fn add(&mut self, taggers: &EdgeTaggers<'_>, row: &RowKey) -> Result<()> {
        let RowKey::Edge { id, tier, edges, .. } = row else {
            return Ok(());
        };
        let g = Group::of(*tier);
        let Some(group) = &taggers.groups[g.index()] else {
            return Err(taggers
                .keys
                .tier(g.key_tier())
                .err()
                .unwrap_or_else(|| taggers.keys.needs(crate::keys::Level::Master, "sealing a commit")));
        };
        self.manifest[g.index()].add(&group.tag(row), 1);
        self.groups[g.index()] = true;
        let tag = taggers.seal.row(row);
        self.sealed.add(&tag, 1);
        let readable = g == Group::Readable;
        let element = readable.then(|| element(row));
        if let Some(e) = &element {
            self.readable.add(e, 1);
        }
        self.per_tier[tier.code() as usize] += u64::from(*edges);
        if let Some(rows) = self.rows.as_mut() {
            rows.push(FoldedRow {
                id: *id,
                tier: *tier,
                tag,
                element: element.filter(|_| self.elements),
                edges: *edges,
            });
        }
        Ok(())
    }
}

/// Counts rows into a fold shared with the thread that inserts them.
pub(crate) fn add_shared(fold: &Mutex<EdgeFold>, taggers: &EdgeTaggers<'_>, row: &RowKey) -> Result<()> {
    fold.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .add(taggers, row)
}

/// Keeps the last of the edges with the same id, in order: the index then
/// holds the one row the last write made, and each row is counted once.
pub(crate) fn distinct_last(edges: &mut Vec<Edge>) {
    let mut seen: FxHashSet<EdgeId> = FxHashSet::default();
    let repeated = if edges.len() < 4096 {
        !edges.iter().all(|e| seen.insert(e.id))
    } else {
        // Five million ids sorted (made in time order, they mostly are)
        // cost a fifth of a set of them.
        let mut ids: Vec<EdgeId> = edges.iter().map(|e| e.id).collect();
        ids.sort_unstable();
        ids.windows(2).any(|w| w[0] == w[1])
    };
    if !repeated {
        return;
    }
    seen.clear();
    let mut keep: Vec<bool> = edges.iter().rev().map(|e| seen.insert(e.id)).collect();
    keep.reverse();
    let mut keep = keep.into_iter();
    edges.retain(|_| keep.next().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn the_last_write_of_an_id_is_the_one_kept() {
        let sample = testkit::sample();
        let first: Vec<Edge> = sample.edges().take(3).cloned().collect();
        assert_eq!(first.len(), 3, "the sample has edges");
        // Few edges (a set finds the repeat) and many (a sort does).
        for n in [0usize, 5000] {
            let mut edges = first.clone();
            edges.extend((0..n).map(|_| Edge {
                id: EdgeId::generate(),
                ..first[1].clone()
            }));
            let mut again = first[0].clone();
            again.weight += 1.0;
            edges.push(again.clone());
            distinct_last(&mut edges);
            assert_eq!(edges.len(), n + 3, "one of the two writes of {} is left", first[0].id);
            assert_eq!((edges[0].id, edges[1].id), (first[1].id, first[2].id), "in order");
            let last = edges.last().expect("edges");
            assert_eq!((last.id, last.weight), (again.id, again.weight), "the later write");
            let before: Vec<EdgeId> = edges.iter().map(|e| e.id).collect();
            distinct_last(&mut edges);
            let after: Vec<EdgeId> = edges.iter().map(|e| e.id).collect();
            assert_eq!(after, before, "distinct edges are left as they are");
        }
    }
}
