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
//! The row scan is `tally`, the rows a session keeps after it `verified`,
//! and snapshot signatures `snapshot_sign`.
//!
//! What this cannot catch: a whole group (or the whole store) put back as
//! it was at an earlier commit, consistently, rows and manifest together;
//! a locked session, holding no key, checks nothing.

use hmac::{Hmac, KeyInit, Mac};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::seal::SealTagger;
use super::tally::{Part, tally};
use super::verified::VerifiedNodes;
use super::{row_tier, row_version};
use crate::crypto::{LtHash, SymmetricKey};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{EdgeId, NodeId, Tier};

/// The three groups of rows, each with its own key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    Readable = 1,
    Restricted = 2,
    Human = 3,
}

impl Group {
    pub(crate) const ALL: [Group; 3] = [Group::Readable, Group::Restricted, Group::Human];

    pub(crate) fn of(tier: Tier) -> Group {
        match tier {
            Tier::Public | Tier::AgentReadable => Group::Readable,
            Tier::AgentRestricted => Group::Restricted,
            Tier::HumanOnly => Group::Human,
        }
    }

    /// The tier whose key keys the group.
    pub(crate) fn key_tier(self) -> Tier {
        match self {
            Group::Readable => Tier::AgentReadable,
            Group::Restricted => Tier::AgentRestricted,
            Group::Human => Tier::HumanOnly,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Group::Readable => "public and agent-readable",
            Group::Restricted => "agent-restricted",
            Group::Human => "human-only",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize - 1
    }
}

/// What identifies a row for the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RowKey {
    Node {
        id: NodeId,
        tier: Tier,
        version: u64,
        /// The blob's name (boxed: the key of every row of a bulk commit
        /// is as large as a node's).
        blob: Box<str>,
        /// [`digest`] of the sealed summary.
        digest: [u8; 16],
        /// The name's blind-index token (covered by the master's seal).
        token: RowToken,
    },
    Edge {
        id: EdgeId,
        tier: Tier,
        seq: u64,
        /// [`digest`] of the sealed record.
        digest: [u8; 16],
        /// The edge's blind-index token (covered by the master's seal); a
        /// group's tokens, one after the other (schema v11).
        token: RowToken,
        /// The edges the row holds: one, or a group's (schema v11: the
        /// id is then the group's, see `edge_groups`). Not in any tag:
        /// what the counts of edges per tier are moved by.
        edges: u32,
        /// A group's row (v11): its tags are of their own kind and cover
        /// its tokens (see [`RowToken::group`]), so its count of edges is
        /// vouched for at every level.
        grouped: bool,
    },
}

/// A row's blind-index token as the master's seal covers it, held inline
/// (a bulk commit keeps a row key per row, and a token on the heap was an
/// allocation each): a token as Graphex writes it is its 32 bytes; any
/// other column (absent, empty, or not written by Graphex) is held as the
/// digest the seal's tag puts in its place (see `seal::fixed`), so a row's
/// tag is the one its column gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowToken([u8; 32]);

impl RowToken {
    /// The token column `raw` as the seal covers it.
    pub(crate) fn of(raw: &[u8]) -> Self {
        RowToken(super::seal::fixed(raw, false))
    }

    /// No token: what an empty column is to the seal (a row kept for its
    /// id and tier only, or one the manifest tags, which reads no token).
    pub(crate) fn absent() -> Self {
        static ABSENT: std::sync::LazyLock<RowToken> = std::sync::LazyLock::new(|| RowToken::of(&[]));
        *ABSENT
    }

    /// A group's token column (v11) as every tag of its row covers it:
    /// hashed whole, its length included, under a label of its own (never
    /// taken as it is, so no column can stand for another's hash).
    pub(crate) fn group(raw: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(b"graphex/edge-group/tokens/v1");
        h.update((raw.len() as u64).to_le_bytes());
        h.update(raw);
        RowToken(h.finalize().into())
    }

    /// The 32 bytes the seal's tag hashes.
    pub(crate) fn fixed(&self) -> &[u8; 32] {
        &self.0
    }
}

impl RowKey {
    pub(crate) fn tier(&self) -> Tier {
        match self {
            RowKey::Node { tier, .. } | RowKey::Edge { tier, .. } => *tier,
        }
    }
}

/// The digest of a sealed record kept in its row: SHA-256, 16 bytes.
pub(crate) fn digest(sealed: &[u8]) -> [u8; 16] {
    let full: [u8; 32] = Sha256::digest(sealed).into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// A digest column as stored (a missing or malformed one reads as zeros,
/// which matches no record).
pub(crate) fn stored_digest(v: rusqlite::types::ValueRef<'_>) -> [u8; 16] {
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
pub(crate) fn check_digest(
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
    pub(super) fn id_bytes(&self) -> [u8; 16] {
        match self {
            RowKey::Node { id, .. } => *id.as_bytes(),
            RowKey::Edge { id, .. } => *id.as_bytes(),
        }
    }
}

/// The last of the rows written for each id: what the index holds after a
/// commit that wrote one row twice.
pub(crate) fn last_per_row(mut rows: Vec<RowKey>) -> Vec<RowKey> {
    // In place: a large commit's rows are not held twice.
    let mut seen = std::collections::HashSet::with_capacity(rows.len());
    let mut last: Vec<bool> = rows
        .iter()
        .rev()
        .map(|r| seen.insert((matches!(r, RowKey::Node { .. }), r.id_bytes())))
        .collect();
    drop(seen);
    last.reverse();
    let mut keep = last.into_iter();
    rows.retain(|_| keep.next().unwrap_or(false));
    rows
}

/// Row tags under one group key: SHA-256 over the key (one whole block),
/// then the row's fixed-length fields. Every input of a kind has the same
/// length, so the secret-prefix construction is a PRF here; the key block is
/// hashed once and the state cloned per row (one or two compressions).
pub(crate) struct Tagger(Sha256);

/// SHA-256 with one whole block of `key` and a 32-byte `label` already
/// hashed: the state row tags clone (the manifest's and the seal's).
pub(crate) fn keyed_block(key: &SymmetricKey, label: &[u8; 32]) -> Sha256 {
    let mut block = zeroize::Zeroizing::new([0u8; 64]);
    block[..32].copy_from_slice(key.expose());
    block[32..].copy_from_slice(label);
    let mut h = Sha256::new();
    h.update(&block[..]);
    h
}

impl Tagger {
    pub(crate) fn new(key: &SymmetricKey) -> Self {
        Tagger(keyed_block(key, b"graphex/manifest/row-tag/v1\0\0\0\0\0"))
    }

    pub(crate) fn tag(&self, row: &RowKey) -> [u8; 32] {
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
                id,
                tier,
                seq,
                digest,
                token,
                grouped,
                ..
            } => self.edge(id, *tier, *seq, digest, grouped.then_some(token)),
        }
    }

    /// An edge row's tag; a group's (`group`: its tokens) is of its own
    /// kind.
    pub(crate) fn edge(
        &self,
        id: &EdgeId,
        tier: Tier,
        seq: u64,
        digest: &[u8; 16],
        group: Option<&RowToken>,
    ) -> [u8; 32] {
        let mut h = self.0.clone();
        h.update([if group.is_some() { b'g' } else { b'e' }, tier.code()]);
        h.update(id.as_bytes());
        h.update(seq.to_le_bytes());
        h.update(digest);
        if let Some(tokens) = group {
            h.update(tokens.fixed());
        }
        h.finalize().into()
    }

    pub(crate) fn node(&self, id: &NodeId, tier: Tier, version: u64, blob: &str, digest: &[u8; 16]) -> [u8; 32] {
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
pub(crate) struct Sum {
    pub count: i64,
    pub acc: [u8; 32],
}

impl Sum {
    /// Adds another sum of disjoint rows.
    pub(crate) fn merge(&mut self, other: &Sum) {
        self.count += other.count;
        for (a, t) in self.acc.iter_mut().zip(&other.acc) {
            *a ^= t;
        }
    }

    pub(crate) fn add(&mut self, tag: &[u8; 32], sign: i64) {
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
pub(crate) fn init_empty(conn: &Connection, keys: &Keyring) -> Result<()> {
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
pub(super) fn stored(conn: &Connection, key: &SymmetricKey, group: Group) -> Result<Sum> {
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

pub(crate) fn tampered(group: Group, reason: &str) -> Error {
    Error::integrity(
        format!("the index's {} rows", group.name()),
        format!("{reason}; nothing is served (see `graphex doctor`)"),
    )
}

/// The tagger of each group this session can key.
pub(crate) fn taggers(keys: &Keyring) -> Vec<(Group, Tagger)> {
    Group::ALL
        .into_iter()
        .filter_map(|g| keys.tier(g.key_tier()).ok().map(|c| (g, Tagger::new(&c.manifest))))
        .collect()
}

pub(crate) fn tagger_of(taggers: &[(Group, Tagger)], tier: Tier) -> Option<(Group, &Tagger)> {
    taggers
        .iter()
        .find(|(g, _)| *g == Group::of(tier))
        .map(|(g, t)| (*g, t))
}

/// A blind-index token column (any blob; a non-blob reads as empty, which
/// no real token is).
pub(crate) fn token<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Result<&'r [u8]> {
    Ok(r.get_ref(i)?.as_blob().unwrap_or(&[]))
}

/// Whether a row belongs to the readable group (public, agent-readable).
pub(crate) fn is_readable(row: &RowKey) -> bool {
    Group::of(row.tier()) == Group::Readable
}

/// Recomputes the entry of the group holding `tier` from the rows as they
/// are, under `keys` (a key rotation, inside its transaction, after it
/// re-sealed every row of the tier and after [`verify`] passed under the
/// old key).
pub(crate) fn rebuild(conn: &Connection, keys: &Keyring, tier: Tier) -> Result<()> {
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

/// Checks every row against the manifest (what [`verify`] does), for an
/// operation that needs the answer only (a key rotation, before it
/// re-seals anything).
pub(crate) fn check(conn: &Connection, keys: &Keyring) -> Result<()> {
    verify(conn, keys).map(|_| ())
}

/// Recomputes every group this session can key and compares it with the
/// manifest, then checks the master's seal (see `seal`). Returns the
/// verified node rows of those groups.
pub(super) fn verify(conn: &Connection, keys: &Keyring) -> Result<VerifiedNodes> {
    verify_with(conn, keys, None::<&fn() -> Result<EdgeReader>>, true, false)
}

/// A second read-only view of the index, at the commit the first one reads,
/// for the edge half of the check.
pub(crate) type EdgeReader = Connection;

/// [`verify`], with the edge rows tallied on a second thread through the
/// connection `edges` opens (it must read the same commit: the caller
/// checks, and a mismatch is [`Error::Stale`]). Without `with_seal`: a store with
/// no seal yet, checked against its manifest alone, to be sealed. With
/// `track`, also keeps what `delta` needs (see `verified::Tracked`).
pub(super) fn verify_with(
    conn: &Connection,
    keys: &Keyring,
    edges: Option<&(impl Fn() -> Result<EdgeReader> + Sync)>,
    with_seal: bool,
    track: bool,
) -> Result<VerifiedNodes> {
    let groups = taggers(keys);
    let fresh = || {
        if track {
            VerifiedNodes::tracking()
        } else {
            VerifiedNodes::new()
        }
    };
    let mut verified = fresh();
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
                    let mut counted = fresh();
                    let (sums, sealed) = tally(&tx, groups, seal_ref, lt.as_mut(), &mut counted, part)?;
                    Ok((sums, sealed, lt, counted))
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
                verified.absorb(e_counts);
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
        readable: lt.as_ref().map(LtHash::digest),
        halved: false,
    };
    if with_seal {
        super::seal::check(conn, keys, seq, &found)?;
    }
    verified.every_row = seal.is_some();
    verified.settle();
    if let Some(t) = verified.tracked.as_mut() {
        t.totals = super::tracked::Totals {
            sums,
            sealed,
            readable: lt,
            timeline: conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM timeline", [], |r| r.get(0))?,
            master: seal.is_some(),
            halved: false,
        };
    }
    Ok(verified)
}

/// Updates the manifest inside a commit's transaction: `removed` are the
/// rows as they were before, `added` as they are after.
/// `edges` are rows the commit counted as it inserted them (see
/// `edge_fold`).
pub(crate) fn apply(
    conn: &Connection,
    keys: &Keyring,
    removed: &[RowKey],
    added: &[RowKey],
    edges: Option<&super::edge_fold::EdgeFold>,
) -> Result<()> {
    // The groups the rows fall in, each with its stored entry (checked),
    // in the order the rows name them.
    let mut touched: Vec<(Group, Tagger, Sum)> = Vec::new();
    let folded = Group::ALL
        .into_iter()
        .filter(|g| edges.is_some_and(|f| f.groups[g.index()]));
    for g in removed.iter().chain(added).map(|r| Group::of(r.tier())).chain(folded) {
        if !touched.iter().any(|(tg, _, _)| *tg == g) {
            let key = &keys.tier(g.key_tier())?.manifest;
            touched.push((g, Tagger::new(key), stored(conn, key, g)?));
        }
    }
    // The change to each group's entry: XORs and counts, so a large
    // commit's rows are tagged on every core.
    let tag_into = |sums: &mut [Sum; 3], row: &RowKey, sign: i64| {
        let g = Group::of(row.tier());
        if let Some((_, tagger, _)) = touched.iter().find(|(tg, _, _)| *tg == g) {
            sums[g.index()].add(&tagger.tag(row), sign);
        }
    };
    let merge = |a: &mut [Sum; 3], b: [Sum; 3]| a.iter_mut().zip(&b).for_each(|(a, b)| a.merge(b));
    let mut change = [Sum::default(); 3];
    removed.iter().for_each(|r| tag_into(&mut change, r, -1));
    let added = crate::parallel::fold(added, || [Sum::default(); 3], |a, r| tag_into(a, r, 1), merge)?;
    merge(&mut change, added);
    if let Some(f) = edges {
        merge(&mut change, f.manifest);
    }
    for (g, _, sum) in &mut touched {
        sum.merge(&change[g.index()]);
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
pub(crate) fn node_row(conn: &Connection, id: &NodeId) -> Result<Option<RowKey>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT tier, version, {}, digest, name_token FROM nodes WHERE id = ?1",
        super::blob_name::BLOB_NAME
    ))?;
    let mut rows = stmt.query([id.as_bytes().as_slice()])?;
    let Some(r) = rows.next()? else { return Ok(None) };
    Ok(Some(RowKey::Node {
        id: *id,
        tier: row_tier(r.get(0)?)?,
        version: row_version(r.get(1)?)?,
        blob: r.get::<_, String>(2)?.into_boxed_str(),
        digest: stored_digest(r.get_ref(3)?),
        token: RowToken::of(token(r, 4)?),
    }))
}

/// The edge row `id` as the index holds it now.
pub(crate) fn edge_row(conn: &Connection, id: &EdgeId) -> Result<Option<RowKey>> {
    let mut stmt = conn.prepare_cached("SELECT tier, seq, digest, token FROM edges WHERE id = ?1")?;
    let mut rows = stmt.query([id.as_bytes().as_slice()])?;
    let Some(r) = rows.next()? else { return Ok(None) };
    Ok(Some(RowKey::Edge {
        id: *id,
        tier: row_tier(r.get(0)?)?,
        seq: row_version(r.get(1)?)?,
        digest: stored_digest(r.get_ref(2)?),
        token: RowToken::of(token(r, 3)?),
        edges: 1,
        grouped: false,
    }))
}

/// A row's tag under its group's key, as the session holding `keys`
/// computes it (tests of what an agent holding that key can forge).
#[cfg(test)]
pub(crate) fn tag_for_tests(keys: &Keyring, row: &RowKey) -> [u8; 32] {
    let key = &keys
        .tier(Group::of(row.tier()).key_tier())
        .expect("the group's key")
        .manifest;
    Tagger::new(key).tag(row)
}
