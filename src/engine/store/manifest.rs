//! The authenticated manifest of the index: rollback, deletion and
//! relabelling of rows are caught, not served.
//!
//! AEAD binds a blob to its node id, version and tier, but an *older*
//! consistent pair (an earlier index row with its earlier blob), a deleted
//! row, or a row restored after its deletion all decrypt fine. The manifest
//! binds the whole set of rows instead:
//!
//! - every row has a tag, a keyed hash of what identifies it: a node row's
//!   id, tier, version, blob name (the blob's SHA-256) and a digest of its
//!   sealed summary; an edge row's id, tier, commit and a digest of its
//!   sealed record. The digests are kept in the rows (so the check reads a
//!   covering index, not the records) and checked when a record is decoded,
//!   so a record sealed under the public key, which anyone can do, cannot
//!   replace the one the manifest vouches for;
//! - every snapshot carries the master's signature, checked before it is
//!   used (see `seal`);
//! - rows fall in three groups, each keyed from one tier key: *readable*
//!   (public and agent-readable rows, keyed from agent-readable, so that the
//!   public tier, whose key is in the clear, is covered by a key an outsider
//!   does not hold), *restricted* and *human*;
//! - per group the index keeps the number of rows and the XOR of their tags,
//!   under a MAC with the group's key. Each commit updates them in its own
//!   transaction from the rows it replaces and writes.
//!
//! Opening (and reloading after another process's commit) recomputes the
//! tags of every row in each group the session holds the key of and
//! compares: one rolled-back, deleted, restored, added or relabelled row
//! changes the XOR, and a forged XOR fails the MAC. Tags are never stored,
//! so they cannot be combined from old copies of the index. A session also
//! keeps the verified node rows and checks each row it reads against them.
//!
//! The readable group's key is one every agent identity holds, so its
//! entry protects against outsiders only; against an agent, the master's
//! seal (`seal`) covers every row under a key only the master has.
//!
//! What this cannot catch: a whole group (or the whole store) put back as
//! it was at an earlier commit, consistently, rows and manifest together;
//! a locked session, holding no key, checks nothing.

use rustc_hash::FxHashMap;

use hmac::{Hmac, KeyInit, Mac};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::seal::SealTagger;
use super::{blob, row_edge_id, row_node_id, row_tier, row_version};
use crate::crypto::{LtHash, SymmetricKey};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{EdgeId, NodeId, Tier};

/// Every node row as the manifest sees it; a covering index serves it.
const NODE_ROWS: &str = "SELECT id, tier, version, blob, digest, name_token FROM nodes INDEXED BY nodes_by_tier";
/// Every edge row as the manifest sees it, from the covering index rather
/// than the sealed records.
const EDGE_ROWS: &str = "SELECT id, tier, seq, digest, token FROM edges INDEXED BY edges_by_tier";

/// The three groups of rows, each with its own key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Group {
    Readable = 1,
    Restricted = 2,
    Human = 3,
}

impl Group {
    const ALL: [Group; 3] = [Group::Readable, Group::Restricted, Group::Human];

    fn of(tier: Tier) -> Group {
        match tier {
            Tier::Public | Tier::AgentReadable => Group::Readable,
            Tier::AgentRestricted => Group::Restricted,
            Tier::HumanOnly => Group::Human,
        }
    }

    /// The tier whose key keys the group.
    fn key_tier(self) -> Tier {
        match self {
            Group::Readable => Tier::AgentReadable,
            Group::Restricted => Tier::AgentRestricted,
            Group::Human => Tier::HumanOnly,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Group::Readable => "public and agent-readable",
            Group::Restricted => "agent-restricted",
            Group::Human => "human-only",
        }
    }

    fn index(self) -> usize {
        self as usize - 1
    }
}

/// What identifies a row for the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RowKey {
    Node {
        id: NodeId,
        tier: Tier,
        version: u64,
        blob: String,
        /// [`digest`] of the sealed summary.
        digest: [u8; 16],
        /// The name's blind-index token (covered by the master's seal).
        token: Vec<u8>,
    },
    Edge {
        id: EdgeId,
        tier: Tier,
        seq: u64,
        /// [`digest`] of the sealed record.
        digest: [u8; 16],
        /// The edge's blind-index token (covered by the master's seal).
        token: Vec<u8>,
    },
}

impl RowKey {
    pub(super) fn tier(&self) -> Tier {
        match self {
            RowKey::Node { tier, .. } | RowKey::Edge { tier, .. } => *tier,
        }
    }
}

/// The digest of a sealed record kept in its row: SHA-256, 16 bytes.
pub(super) fn digest(sealed: &[u8]) -> [u8; 16] {
    let full: [u8; 32] = Sha256::digest(sealed).into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// A digest column as stored (a missing or malformed one reads as zeros,
/// which matches no record).
fn stored_digest(v: rusqlite::types::ValueRef<'_>) -> [u8; 16] {
    match v {
        rusqlite::types::ValueRef::Blob(b) if b.len() == 16 => {
            let mut out = [0u8; 16];
            out.copy_from_slice(b);
            out
        }
        _ => [0u8; 16],
    }
}

/// Refuses a sealed record whose digest is not the one in its row.
pub(super) fn check_digest(
    what: impl Fn() -> String,
    sealed: &[u8],
    stored: rusqlite::types::ValueRef<'_>,
) -> Result<()> {
    if digest(sealed) == stored_digest(stored) {
        Ok(())
    } else {
        Err(Error::integrity(
            what(),
            "its sealed record is not the one its row vouches for (replaced outside Graphex)",
        ))
    }
}

impl RowKey {
    fn id_bytes(&self) -> [u8; 16] {
        match self {
            RowKey::Node { id, .. } => *id.as_bytes(),
            RowKey::Edge { id, .. } => *id.as_bytes(),
        }
    }
}

/// The last of the rows written for each id: what the index holds after a
/// commit that wrote one row twice.
pub(super) fn last_per_row(rows: Vec<RowKey>) -> Vec<RowKey> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<RowKey> = rows
        .into_iter()
        .rev()
        .filter(|r| seen.insert((matches!(r, RowKey::Node { .. }), r.id_bytes())))
        .collect();
    out.reverse();
    out
}

/// Row tags under one group key: SHA-256 over the key (one whole block),
/// then the row's fixed-length fields. Every input of a kind has the same
/// length, so the secret-prefix construction is a PRF here; the key block is
/// hashed once and the state cloned per row (one or two compressions).
struct Tagger(Sha256);

impl Tagger {
    fn new(key: &SymmetricKey) -> Self {
        let mut block = zeroize::Zeroizing::new([0u8; 64]);
        block[..32].copy_from_slice(key.expose());
        block[32..].copy_from_slice(b"graphex/manifest/row-tag/v1\0\0\0\0\0");
        let mut h = Sha256::new();
        h.update(&block[..]);
        Tagger(h)
    }

    fn tag(&self, row: &RowKey) -> [u8; 32] {
        match row {
            RowKey::Node {
                id,
                tier,
                version,
                blob,
                digest,
                ..
            } => self.node(id, *tier, *version, blob, digest),
            RowKey::Edge {
                id, tier, seq, digest, ..
            } => {
                let mut h = self.0.clone();
                h.update([b'e', tier.code()]);
                h.update(id.as_bytes());
                h.update(seq.to_le_bytes());
                h.update(digest);
                h.finalize().into()
            }
        }
    }

    fn node(&self, id: &NodeId, tier: Tier, version: u64, blob: &str, digest: &[u8; 16]) -> [u8; 32] {
        let mut h = self.0.clone();
        h.update([b'n', tier.code()]);
        h.update(id.as_bytes());
        h.update(version.to_le_bytes());
        h.update(blob.as_bytes());
        h.update(digest);
        h.finalize().into()
    }
}

/// One group's count and XOR of tags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Sum {
    pub count: i64,
    pub acc: [u8; 32],
}

impl Sum {
    /// Adds another sum of disjoint rows.
    pub(super) fn merge(&mut self, other: &Sum) {
        self.count += other.count;
        for (a, t) in self.acc.iter_mut().zip(&other.acc) {
            *a ^= t;
        }
    }

    pub(super) fn add(&mut self, tag: &[u8; 32], sign: i64) {
        self.count += sign;
        for (a, t) in self.acc.iter_mut().zip(tag) {
            *a ^= t;
        }
    }
}

/// The MAC of a group's sum, ready to finalize or verify.
fn mac(key: &SymmetricKey, group: Group, sum: &Sum) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(b"graphex/manifest/v1");
    m.update(&[group as u8]);
    m.update(&sum.count.to_le_bytes());
    m.update(&sum.acc);
    m
}

/// Writes a MAC'd empty entry for every group (a new store).
pub(super) fn init_empty(conn: &Connection, keys: &Keyring) -> Result<()> {
    let mut put =
        conn.prepare_cached("INSERT OR REPLACE INTO manifest (grp, count, acc, mac) VALUES (?1, 0, ?2, ?3)")?;
    for g in Group::ALL {
        let key = &keys.tier(g.key_tier())?.manifest;
        let sum = Sum::default();
        let tag = mac(key, g, &sum).finalize().into_bytes().to_vec();
        put.execute(params![g as i64, sum.acc.as_slice(), tag])?;
    }
    Ok(())
}

/// The stored sum of `group`, its MAC checked. Every store has an entry for
/// every group from its creation: an absent one was deleted.
fn stored(conn: &Connection, key: &SymmetricKey, group: Group) -> Result<Sum> {
    let row: Option<(i64, Vec<u8>, Vec<u8>)> = conn
        .prepare_cached("SELECT count, acc, mac FROM manifest WHERE grp = ?1")?
        .query_row([group as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((count, acc, tag)) = row else {
        return Err(tampered(
            group,
            "its manifest entry is missing (deleted outside Graphex)",
        ));
    };
    let sum = Sum {
        count,
        acc: acc
            .try_into()
            .map_err(|_| tampered(group, "its manifest entry is malformed"))?,
    };
    mac(key, group, &sum)
        .verify_slice(&tag)
        .map_err(|_| tampered(group, "its manifest entry fails its MAC (altered or forged)"))?;
    Ok(sum)
}

fn tampered(group: Group, reason: &str) -> Error {
    Error::integrity(
        format!("the index's {} rows", group.name()),
        format!("{reason}; nothing is served (see `graphex doctor`)"),
    )
}

/// The rows as verified: each node row's tag, for the check on read, and
/// the number of edge rows per tier, for the check of the catalog. Only
/// rows of groups this session holds the key of are kept.
#[derive(Default)]
pub(super) struct VerifiedNodes {
    nodes: FxHashMap<NodeId, (Tier, u64, [u8; 32])>,
    edges: [usize; 4],
}

/// The tagger of each group this session can key.
fn taggers(keys: &Keyring) -> Vec<(Group, Tagger)> {
    Group::ALL
        .into_iter()
        .filter_map(|g| keys.tier(g.key_tier()).ok().map(|c| (g, Tagger::new(&c.manifest))))
        .collect()
}

fn tagger_of(taggers: &[(Group, Tagger)], tier: Tier) -> Option<(Group, &Tagger)> {
    taggers
        .iter()
        .find(|(g, _)| *g == Group::of(tier))
        .map(|(g, t)| (*g, t))
}

impl VerifiedNodes {
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// Drops rows a commit of this session replaced or removed.
    pub(super) fn forget(&mut self, rows: &[RowKey]) {
        for r in rows {
            match r {
                RowKey::Node { id, .. } => {
                    self.nodes.remove(id);
                }
                RowKey::Edge { tier, .. } => {
                    let n = &mut self.edges[tier.code() as usize];
                    *n = n.saturating_sub(1);
                }
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
        for r in rows {
            if let RowKey::Node { id, tier, version, .. } = r
                && self.nodes.get(id) != Some(&(*tier, *version, t.row(r)))
            {
                return Err(Error::integrity(
                    format!("node {id}"),
                    "its index row changed outside Graphex since this session verified it; nothing was written \
                     (see `graphex doctor`)",
                ));
            }
        }
        Ok(())
    }

    /// Adds rows a commit of this session wrote.
    pub(super) fn record(&mut self, keys: &Keyring, rows: &[RowKey]) {
        if let Some(seal) = keys.seal() {
            let t = SealTagger::new(seal.mac_key());
            for r in rows {
                match r {
                    RowKey::Node { id, tier, version, .. } => {
                        self.nodes.insert(*id, (*tier, *version, t.row(r)));
                    }
                    RowKey::Edge { tier, .. } => self.edges[tier.code() as usize] += 1,
                }
            }
            return;
        }
        let taggers = taggers(keys);
        for r in rows {
            let Some((_, t)) = tagger_of(&taggers, r.tier()) else {
                continue;
            };
            match r {
                RowKey::Node { id, tier, version, .. } => {
                    self.nodes.insert(*id, (*tier, *version, t.tag(r)));
                }
                RowKey::Edge { tier, .. } => self.edges[tier.code() as usize] += 1,
            }
        }
    }
}

/// The count and XOR of tags of every row in `groups`, noting each
/// node row's tag and the edge rows per tier in `verified`; with `seal`,
/// also the master-keyed tags of every row of every tier.
fn tally(
    conn: &Connection,
    groups: &[(Group, Tagger)],
    seal: Option<&SealTagger>,
    mut readable: Option<&mut LtHash>,
    verified: &mut VerifiedNodes,
    part: Part,
) -> Result<([Sum; 3], Sum)> {
    let mut sums = [Sum::default(); 3];
    let mut sealed = Sum::default();
    let edge_rows = match part {
        Part::Nodes => None,
        Part::All | Part::Edges => Some(EDGE_ROWS),
    };
    if let Some(query) = edge_rows {
        let mut stmt = conn.prepare(query)?;
        tally_edges(
            &mut stmt,
            groups,
            seal,
            readable.as_deref_mut(),
            verified,
            &mut sums,
            &mut sealed,
        )?;
    }
    if !matches!(part, Part::Nodes | Part::All) {
        return Ok((sums, sealed));
    }
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM nodes", [], |r| r.get(0))?;
    verified.nodes.reserve(usize::try_from(count).unwrap_or(0));
    let mut nodes = conn.prepare(NODE_ROWS)?;
    let mut rows = nodes.query([])?;
    while let Some(r) = rows.next()? {
        let tier = row_tier(r.get(1)?)?;
        let group = tagger_of(groups, tier);
        if group.is_none() && seal.is_none() {
            continue;
        }
        let id = row_node_id(blob(r, 0)?)?;
        let version = row_version(r.get(2)?)?;
        let name = r
            .get_ref(3)?
            .as_str()
            .map_err(|_| Error::integrity("index row", "a blob name is not text"))?;
        // Tags hash fixed-length fields only: a blob name is a SHA-256. (The
        // seal's tags decode it, and a malformed one matches nothing.)
        if seal.is_none() && (name.len() != 64 || !name.bytes().all(|b| b.is_ascii_hexdigit())) {
            return Err(tampered(Group::of(tier), "a blob name is not a SHA-256"));
        }
        let digest = stored_digest(r.get_ref(4)?);
        if let Some(lt) = readable.as_deref_mut()
            && Group::of(tier) == Group::Readable
        {
            lt.add(&super::seal::node_element(&id, tier, version, name, &digest), 1);
        }
        if let Some(s) = seal {
            // The master's tag covers what the group's would, and more:
            // one tag a row, the groups only counted.
            let tag = s.node(&id, tier, version, name, &digest, token(r, 5)?);
            sealed.add(&tag, 1);
            sums[Group::of(tier).index()].count += 1;
            verified.nodes.insert(id, (tier, version, tag));
        } else if let Some((g, t)) = group {
            let tag = t.node(&id, tier, version, name, &digest);
            sums[g.index()].add(&tag, 1);
            verified.nodes.insert(id, (tier, version, tag));
        }
    }
    Ok((sums, sealed))
}

/// Which rows a tally reads: the two halves run on two threads at open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Nodes,
    Edges,
    All,
}

/// The edge half of [`tally`], adding into `sums` and `sealed`.
fn tally_edges(
    edges: &mut rusqlite::Statement<'_>,
    groups: &[(Group, Tagger)],
    seal: Option<&SealTagger>,
    mut readable: Option<&mut LtHash>,
    verified: &mut VerifiedNodes,
    sums: &mut [Sum; 3],
    sealed: &mut Sum,
) -> Result<()> {
    let mut rows = edges.query([])?;
    while let Some(r) = rows.next()? {
        let tier = row_tier(r.get(1)?)?;
        let group = tagger_of(groups, tier);
        if group.is_none() && seal.is_none() {
            continue;
        }
        let id = row_edge_id(blob(r, 0)?)?;
        let seq = row_version(r.get(2)?)?;
        let digest = stored_digest(r.get_ref(3)?);
        if let Some(lt) = readable.as_deref_mut()
            && Group::of(tier) == Group::Readable
        {
            lt.add(&super::seal::edge_element(&id, tier, seq, &digest), 1);
        }
        if let Some(s) = seal {
            sealed.add(&s.edge(&id, tier, seq, &digest, token(r, 4)?), 1);
            sums[Group::of(tier).index()].count += 1;
            verified.edges[tier.code() as usize] += 1;
        } else if let Some((g, t)) = group {
            let key = RowKey::Edge {
                id,
                tier,
                seq,
                digest,
                token: Vec::new(),
            };
            sums[g.index()].add(&t.tag(&key), 1);
            verified.edges[tier.code() as usize] += 1;
        }
    }
    Ok(())
}

/// A blind-index token column (any blob; a non-blob reads as empty, which
/// no real token is).
fn token<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r [u8]> {
    Ok(r.get_ref(i)?.as_blob().unwrap_or(&[]))
}

/// The master-keyed tags of every row and the set hash of the readable
/// rows, for a seal built from scratch.
pub(super) fn seal_rows(conn: &Connection, seal: &SealTagger) -> Result<(Sum, LtHash)> {
    let mut lt = LtHash::default();
    let (_, sum) = tally(
        conn,
        &[],
        Some(seal),
        Some(&mut lt),
        &mut VerifiedNodes::new(),
        Part::All,
    )?;
    Ok((sum, lt))
}

/// Whether a row belongs to the readable group (public, agent-readable).
pub(super) fn is_readable(row: &RowKey) -> bool {
    Group::of(row.tier()) == Group::Readable
}

/// Recomputes the entry of the group holding `tier` from the rows as they
/// are, under `keys` (a key rotation, inside its transaction, after it
/// re-sealed every row of the tier and after [`verify`] passed under the
/// old key).
pub(super) fn rebuild(conn: &Connection, keys: &Keyring, tier: Tier) -> Result<()> {
    let g = Group::of(tier);
    let key = &keys.tier(g.key_tier())?.manifest;
    let (sums, _) = tally(
        conn,
        &[(g, Tagger::new(key))],
        None,
        None,
        &mut VerifiedNodes::new(),
        Part::All,
    )?;
    let sum = sums[g.index()];
    let tag = mac(key, g, &sum).finalize().into_bytes().to_vec();
    conn.execute(
        "INSERT OR REPLACE INTO manifest (grp, count, acc, mac) VALUES (?1, ?2, ?3, ?4)",
        params![g as i64, sum.count, sum.acc.as_slice(), tag],
    )?;
    Ok(())
}

/// Recomputes every group this session can key and compares it with the
/// manifest, then checks the master's seal (see `seal`). Returns the
/// verified node rows of those groups.
pub(super) fn verify(conn: &Connection, keys: &Keyring) -> Result<VerifiedNodes> {
    verify_with(conn, keys, None::<&fn() -> Result<EdgeReader>>, true)
}

/// A second read-only view of the index, at the commit the first one reads,
/// for the edge half of the check.
pub(super) type EdgeReader = Connection;

/// [`verify`], with the edge rows tallied on a second thread through the
/// connection `edges` opens (it must read the same commit: the caller
/// checks, and a mismatch is [`Error::Stale`]). Without `with_seal`: a store with
/// no seal yet, checked against its manifest alone, to be sealed.
pub(super) fn verify_with(
    conn: &Connection,
    keys: &Keyring,
    edges: Option<&(impl Fn() -> Result<EdgeReader> + Sync)>,
    with_seal: bool,
) -> Result<VerifiedNodes> {
    let groups = taggers(keys);
    let mut verified = VerifiedNodes::new();
    if groups.is_empty() {
        return Ok(verified);
    }
    let seal = keys.seal().filter(|_| with_seal).map(|s| SealTagger::new(s.mac_key()));
    // An agent checks the readable rows against the master's signature
    // through their set hash; a master has its own tags of every row.
    let agent_check =
        with_seal && seal.is_none() && keys.verifier().is_some() && groups.iter().any(|(g, _)| *g == Group::Readable);
    let mut lt = agent_check.then(LtHash::default);
    let seq = super::schema::commit_seq(conn)?;
    let (sums, sealed) = match edges {
        None => tally(conn, &groups, seal.as_ref(), lt.as_mut(), &mut verified, Part::All)?,
        Some(open) => std::thread::scope(|scope| -> Result<_> {
            let (groups, seal_ref) = (&groups, seal.as_ref());
            let half = |part: Part| {
                scope.spawn(move || -> Result<_> {
                    let other = open()?;
                    let tx = other.unchecked_transaction()?;
                    if super::schema::commit_seq(&tx)? != seq {
                        return Err(Error::Stale);
                    }
                    let mut lt = agent_check.then(LtHash::default);
                    let mut counted = VerifiedNodes::new();
                    let (sums, sealed) = tally(&tx, groups, seal_ref, lt.as_mut(), &mut counted, part)?;
                    Ok((sums, sealed, lt, counted.edges))
                })
            };
            // One more thread: the catalog's decoding runs beside this check,
            // so on two cores a third tally thread only competes with it.
            let halves = [half(Part::Edges)];
            let (mut sums, mut sealed) = tally(conn, groups, seal_ref, lt.as_mut(), &mut verified, Part::Nodes)?;
            for h in halves {
                let (e_sums, e_sealed, e_lt, e_counts) = h
                    .join()
                    .map_err(|_| Error::integrity("the index manifest", "its checking thread failed"))??;
                for (a, b) in sums.iter_mut().zip(&e_sums) {
                    a.merge(b);
                }
                sealed.merge(&e_sealed);
                if let (Some(lt), Some(e)) = (lt.as_mut(), &e_lt) {
                    lt.merge(e);
                }
                for (a, b) in verified.edges.iter_mut().zip(e_counts) {
                    *a += b;
                }
            }
            Ok((sums, sealed))
        })?,
    };
    for (g, _) in &groups {
        let key = &keys.tier(g.key_tier())?.manifest;
        let want = stored(conn, key, *g)?;
        let found = sums[g.index()];
        if want.count != found.count {
            return Err(tampered(
                *g,
                &format!(
                    "{} rows where the manifest records {}: rows were deleted, restored or added outside Graphex",
                    found.count, want.count
                ),
            ));
        }
        // A master session compared every row with its own tags instead.
        if seal.is_none() && want.acc != found.acc {
            return Err(tampered(
                *g,
                "a row differs from what the manifest records: rolled back, altered or relabelled outside Graphex",
            ));
        }
    }
    let found = super::seal::Recomputed {
        rows: seal.is_some().then_some(sealed),
        readable: lt.map(|lt| lt.digest()),
    };
    if with_seal {
        super::seal::check(conn, keys, seq, &found)?;
    }
    Ok(verified)
}

/// Updates the manifest inside a commit's transaction: `removed` are the
/// rows as they were before, `added` as they are after.
pub(super) fn apply(conn: &Connection, keys: &Keyring, removed: &[RowKey], added: &[RowKey]) -> Result<()> {
    let mut touched: Vec<(Group, Tagger, Sum)> = Vec::new();
    for (row, sign) in removed.iter().map(|r| (r, -1)).chain(added.iter().map(|r| (r, 1))) {
        let g = Group::of(row.tier());
        let i = match touched.iter().position(|(tg, _, _)| *tg == g) {
            Some(i) => i,
            None => {
                let key = &keys.tier(g.key_tier())?.manifest;
                touched.push((g, Tagger::new(key), stored(conn, key, g)?));
                touched.len() - 1
            }
        };
        let (_, tagger, sum) = &mut touched[i];
        let tag = tagger.tag(row);
        sum.add(&tag, sign);
    }
    let mut put = conn.prepare_cached(
        "INSERT INTO manifest (grp, count, acc, mac) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(grp) DO UPDATE SET count = ?2, acc = ?3, mac = ?4",
    )?;
    for (g, _, sum) in &touched {
        let key = &keys.tier(g.key_tier())?.manifest;
        let tag = mac(key, *g, sum).finalize().into_bytes().to_vec();
        put.execute(params![*g as i64, sum.count, sum.acc.as_slice(), tag])?;
    }
    Ok(())
}

/// The node row `id` as the index holds it now.
pub(super) fn node_row(conn: &Connection, id: &NodeId) -> Result<Option<RowKey>> {
    let mut stmt = conn.prepare_cached("SELECT tier, version, blob, digest, name_token FROM nodes WHERE id = ?1")?;
    let mut rows = stmt.query([id.as_bytes().as_slice()])?;
    let Some(r) = rows.next()? else { return Ok(None) };
    Ok(Some(RowKey::Node {
        id: *id,
        tier: row_tier(r.get(0)?)?,
        version: row_version(r.get(1)?)?,
        blob: r.get(2)?,
        digest: stored_digest(r.get_ref(3)?),
        token: token(r, 4)?.to_vec(),
    }))
}

/// The edge row `id` as the index holds it now.
pub(super) fn edge_row(conn: &Connection, id: &EdgeId) -> Result<Option<RowKey>> {
    let mut stmt = conn.prepare_cached("SELECT tier, seq, digest, token FROM edges WHERE id = ?1")?;
    let mut rows = stmt.query([id.as_bytes().as_slice()])?;
    let Some(r) = rows.next()? else { return Ok(None) };
    Ok(Some(RowKey::Edge {
        id: *id,
        tier: row_tier(r.get(0)?)?,
        seq: row_version(r.get(1)?)?,
        digest: stored_digest(r.get_ref(2)?),
        token: token(r, 3)?.to_vec(),
    }))
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
) -> Result<()> {
    let tag = if let Some(seal) = keys.seal() {
        SealTagger::new(seal.mac_key()).node(id, tier, version, blob, &stored_digest(digest), token)
    } else if let Ok(ciphers) = keys.tier(Group::of(tier).key_tier()) {
        Tagger::new(&ciphers.manifest).node(id, tier, version, blob, &stored_digest(digest))
    } else {
        // A group this session cannot key (public rows when locked, say).
        return Ok(());
    };
    match verified.nodes.get(id) {
        Some(v) if *v == (tier, version, tag) => Ok(()),
        _ => Err(Error::integrity(
            format!("node {id}"),
            "its index row is not the one the manifest verified: rolled back, altered or restored outside \
             Graphex; nothing is served (see `graphex doctor`)",
        )),
    }
}

/// Checks the catalog built from snapshots and later rows against the
/// verified rows: an older snapshot put back would bring back removed nodes
/// and edges, or old versions.
pub(super) fn check_catalog(catalog: &super::Catalog, verified: &VerifiedNodes, keys: &Keyring) -> Result<()> {
    let covered = |tier: Tier| keys.reads(tier) && keys.reads(Group::of(tier).key_tier());
    let stale = |what: String| Error::integrity("a tier snapshot", format!("{what}: an older snapshot was put back"));
    let mut seen = 0usize;
    for n in catalog.nodes().filter(|n| covered(n.tier)) {
        seen += 1;
        match verified.nodes.get(&n.id) {
            Some((t, v, _)) if *t == n.tier && *v == n.version => {}
            _ => {
                return Err(stale(format!(
                    "node {} is not in the index as the snapshot has it",
                    n.id
                )));
            }
        }
    }
    let expected = verified.nodes.values().filter(|(t, _, _)| covered(*t)).count();
    if seen != expected {
        return Err(stale(format!("{seen} nodes loaded where the index holds {expected}")));
    }
    for tier in Tier::ALL.into_iter().filter(|t| covered(*t)) {
        let loaded = catalog.edges().filter(|e| e.tier == tier).count();
        let rows = verified.edges[tier.code() as usize];
        if loaded != rows {
            return Err(stale(format!(
                "{loaded} {tier} edges loaded where the index holds {rows}"
            )));
        }
    }
    Ok(())
}

/// What the master signs for a snapshot: its tier, commit and content.
fn snapshot_statement(tier: Tier, seq: u64, bytes: &[u8]) -> Vec<u8> {
    let mut m = b"graphex/snapshot/v2\0".to_vec();
    m.push(tier.code());
    m.extend_from_slice(&seq.to_le_bytes());
    m.extend_from_slice(&Sha256::digest(bytes));
    m
}

/// A snapshot's signature by the master (the only writer of snapshots).
/// Every tier's snapshot is signed: the public one is sealed under a key
/// anyone has, the agent-readable one under a key every agent has.
pub(super) fn snapshot_mac(keys: &Keyring, tier: Tier, seq: u64, bytes: &[u8]) -> Option<Vec<u8>> {
    keys.seal()
        .map(|s| s.sign(&snapshot_statement(tier, seq, bytes)).to_vec())
}

/// Refuses a snapshot whose signature does not verify, when this session
/// holds the key to check it (master or agent; a locked session checks
/// nothing).
pub(super) fn check_snapshot(keys: &Keyring, tier: Tier, seq: u64, bytes: &[u8], mac: Option<&[u8]>) -> Result<()> {
    let Some(verifier) = keys.verifier() else {
        return Ok(());
    };
    if mac.is_some_and(|m| verifier.verifies(&snapshot_statement(tier, seq, bytes), m)) {
        Ok(())
    } else {
        Err(Error::integrity(
            format!("the {tier} snapshot"),
            "the master's signature on it does not verify: it was replaced or forged outside Graphex; nothing is served",
        ))
    }
}

/// A row's tag under its group's key, as the session holding `keys`
/// computes it (tests of what an agent holding that key can forge).
#[cfg(test)]
pub(super) fn tag_for_tests(keys: &Keyring, row: &RowKey) -> [u8; 32] {
    let key = &keys
        .tier(Group::of(row.tier()).key_tier())
        .expect("the group's key")
        .manifest;
    Tagger::new(key).tag(row)
}
