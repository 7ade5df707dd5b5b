//! What a long-lived session keeps, beyond the verified node rows, to apply
//! another process's commits row by row (see `delta`): each edge row's tag,
//! each readable row's set-hash element, and the totals the manifest and
//! the master's seal are compared with. A one-command process keeps none of
//! it.

use super::id_table::IdTable;
use super::manifest::{Group, RowKey, Sum, Tagger, tagger_of, taggers};
use super::seal::{SealTagger, element};
use crate::crypto::LtHash;
use crate::keys::Keyring;
use crate::model::{EdgeId, Tier};

/// The verified state beyond the node rows' tags: every edge row's tag, the
/// readable rows' set-hash elements, and the totals they add up to, as of
/// the commit the catalog reflects.
#[derive(Default)]
pub(super) struct Tracked {
    /// Each edge row's tag (the master's, or its group's), by id: its
    /// first half (see [`HalfTag`]), and the edges the row holds (one, or
    /// a group's).
    pub(super) edges: IdTable<EdgeId, (Tier, HalfTag, u32)>,
    /// Each readable row's set-hash element (when the session checks the
    /// master's seal through it), by kind and id.
    pub(super) elements: IdTable<(RowKind, [u8; 16]), [u8; 32]>,
    pub(super) totals: Totals,
}

/// The first half of a row tag: what a session keeps of each row's tag
/// (16 bytes rather than 32: 80 MB at five million edges, 16 MB at a
/// million nodes). A node row read later is checked against it; counting
/// one out of the totals leaves their other half unknown, so from then on
/// the totals are compared by their first halves. Either is 128 bits of a
/// tag under a key no writer outside Graphex holds, matched by chance with
/// a probability of 2^-128.
pub(super) type HalfTag = [u8; 16];

/// The first half of `tag`.
pub(super) fn half(tag: &[u8; 32]) -> HalfTag {
    let mut out = [0u8; 16];
    out.copy_from_slice(&tag[..16]);
    out
}

/// What the rows add up to, compared with the manifest and the seal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Totals {
    /// Per group: the count of rows and (below the master) the XOR of tags.
    pub(super) sums: [Sum; 3],
    /// The master's tags of every row (master level).
    pub(super) sealed: Sum,
    /// The readable rows' set hash (sessions that check it).
    pub(super) readable: Option<LtHash>,
    /// The newest timeline row.
    pub(super) timeline: i64,
    /// Whether the tags are the master's (the groups are then only counted).
    pub(super) master: bool,
    /// Whether a half tag was counted out: only the first half of each sum
    /// is then known (see [`HalfTag`]).
    pub(super) halved: bool,
}

/// Which table a row is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum RowKind {
    Node,
    Edge,
}

impl RowKind {
    pub(super) fn of(row: &RowKey) -> Self {
        match row {
            RowKey::Node { .. } => RowKind::Node,
            RowKey::Edge { .. } => RowKind::Edge,
        }
    }
}

/// How this session tags rows: with the master's key, which covers every
/// row, or with the keys of the groups it holds.
pub(super) struct Tags {
    seal: Option<SealTagger>,
    groups: Vec<(Group, Tagger)>,
    /// Whether readable rows' set-hash elements are kept.
    elements: bool,
}

impl Tags {
    pub(super) fn new(keys: &Keyring, tracked: Option<&Tracked>) -> Self {
        Self {
            seal: keys.seal().map(|s| SealTagger::new(s.mac_key())),
            groups: taggers(keys),
            elements: tracked.is_some_and(Tracked::keeps_elements),
        }
    }

    /// The row's tag, when this session can tag its group.
    pub(super) fn tag(&self, row: &RowKey) -> Option<[u8; 32]> {
        match &self.seal {
            Some(s) => Some(s.row(row)),
            None => tagger_of(&self.groups, row.tier()).map(|(_, t)| t.tag(row)),
        }
    }

    /// The row's set-hash element, when those are kept and it is readable.
    pub(super) fn element(&self, row: &RowKey) -> Option<[u8; 32]> {
        if !self.elements || Group::of(row.tier()) != Group::Readable {
            return None;
        }
        Some(element(row))
    }
}

impl Totals {
    /// Counts a row's tag into (`sign` 1) or out of (-1) the totals.
    pub(super) fn count(&mut self, tier: Tier, tag: &[u8; 32], sign: i64) {
        let g = Group::of(tier).index();
        if self.master {
            self.sealed.add(tag, sign);
            self.sums[g].count += sign;
        } else {
            self.sums[g].add(tag, sign);
        }
    }

    /// Counts an edge row's half tag out (`sign` -1) of the totals, or in.
    pub(super) fn count_half(&mut self, tier: Tier, tag: &HalfTag, sign: i64) {
        let mut wide = [0u8; 32];
        wide[..16].copy_from_slice(tag);
        self.count(tier, &wide, sign);
        self.halved = true;
    }

    /// Whether a sum of these totals is `want`: in whole, or by its first
    /// half once halved.
    pub(super) fn same(&self, want: &Sum, have: &Sum) -> bool {
        want.count == have.count && same_acc(&want.acc, &have.acc, self.halved)
    }

    /// Adds a readable row's element to the set hash (or takes it out).
    pub(super) fn element(&mut self, element: &[u8; 32], sign: i64) {
        if let Some(lt) = self.readable.as_mut() {
            lt.add(element, sign);
        }
    }
}

/// Whether two accumulated tags are equal, by their first halves only when
/// `halved`.
pub(super) fn same_acc(a: &[u8; 32], b: &[u8; 32], halved: bool) -> bool {
    if halved { a[..16] == b[..16] } else { a == b }
}

impl Tracked {
    /// Whether readable rows' set-hash elements are kept (a session that
    /// checks the master's seal through them).
    pub(super) fn keeps_elements(&self) -> bool {
        self.totals.readable.is_some()
    }

    /// Takes a row's element out of the set hash, if it was in.
    pub(super) fn drop_element(&mut self, kind: RowKind, id: [u8; 16]) {
        if let Some(e) = self.elements.remove(&(kind, id)) {
            self.totals.element(&e, -1);
        }
    }

    /// Puts a row's element into the set hash (when kept).
    pub(super) fn put_element(&mut self, kind: RowKind, id: [u8; 16], element: [u8; 32]) {
        if self.keeps_elements() {
            self.totals.element(&element, 1);
            self.elements.insert((kind, id), element);
        }
    }
}
