//! The master's seal on the index: what an agent identity cannot forge.
//!
//! The manifest's readable group is keyed from the agent-readable key, which
//! every agent identity opens: an agent with write access to the repository
//! can recompute its tags and rewrite its entry. So every commit also
//! writes one *statement*, MAC'd under a key derived from the master
//! identity and signed with the master's Ed25519 key (also derived from it):
//!
//! - the commit number (`meta.commit_seq`), so no commit can be added;
//! - the count and XOR of master-keyed tags over **every** node and edge
//!   row of every tier, covering the same fields as the manifest plus the
//!   blind-index token (so a duplicate name cannot be slipped in by editing
//!   a token);
//! - the count and XOR of master-keyed tags over the `decisions` rows, so
//!   a decided proposal cannot come back nor a pending one be hidden;
//! - a set hash (`crypto::LtHash`) of the public and agent-readable rows,
//!   which an agent recomputes: unlike the manifest's XOR of tags under a
//!   key the agent holds, it cannot be matched by a forged set of rows;
//! - the audit log's head at the last master-level write, so the records
//!   up to it cannot be truncated;
//! - the digest of the settings the master approved (trust thresholds,
//!   scrub patterns…), so a hand edit of `.gpp/config.toml` changes nothing
//!   until the master approves it (see `policy`);
//! - the count and XOR of master-keyed tags over the `saved_queries` rows
//!   (from version 2 of the statement; a version 1 statement, written
//!   before saved queries existed, vouches for none).
//!
//! A master session recomputes the tags and checks the MAC; an agent checks
//! the signature with the key pinned in its identity file and compares the
//! readable rows' set hash with what it recomputed. Records an agent appends to the
//! audit log after the last master-level write are vouched for by the hash
//! chain only.

use hmac::{Hmac, KeyInit, Mac};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::Sha256;

use super::manifest::{RowKey, Sum, digest};
use crate::crypto::{LtHash, MasterSeal, SymmetricKey};
use crate::error::{Error, Result};
use crate::keys::Keyring;

pub(crate) use super::seal_statement::{Statement, StatementId};
pub(super) use super::seal_tags::fixed;
pub(crate) use super::seal_tags::{SealTagger, edge_element, element, node_element};

/// What identifies a `decisions` row for the seal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DecisionKey {
    pub proposal: String,
    pub seq: i64,
    pub at: i64,
    pub outcome: String,
    /// [`digest`] of the sealed outcome.
    pub digest: [u8; 16],
}

fn decision_message(d: &DecisionKey) -> Vec<u8> {
    let mut m = b"graphex/decision/v1\0".to_vec();
    for field in [d.proposal.as_bytes(), d.outcome.as_bytes()] {
        m.extend_from_slice(&(field.len() as u64).to_le_bytes());
        m.extend_from_slice(field);
    }
    m.extend_from_slice(&d.seq.to_le_bytes());
    m.extend_from_slice(&d.at.to_le_bytes());
    m.extend_from_slice(&d.digest);
    m
}

/// The master's signature on a decision row (master level).
pub(crate) fn sign_decision(keys: &Keyring, d: &DecisionKey) -> Result<Vec<u8>> {
    Ok(sealer(keys)?.sign(&decision_message(d)).to_vec())
}

/// Refuses a decision row the master did not sign, for a session that can
/// check signatures (the master checks the whole set through the seal).
pub(crate) fn check_decision(keys: &Keyring, d: &DecisionKey, sig: Option<&[u8]>) -> Result<()> {
    let Some(v) = keys.verifier() else {
        return Ok(());
    };
    if sig.is_some_and(|s| v.verifies(&decision_message(d), s)) {
        Ok(())
    } else {
        Err(Error::integrity(
            format!("the decision on proposal {}", d.proposal),
            "the master's signature on it does not verify: written outside Graphex",
        ))
    }
}

const DECISION_ROWS: &str = "SELECT proposal, seq, at, outcome, sealed FROM decisions";

/// The decisions rows of commit `seq` (what an undo deletes), or all.
pub(crate) fn decision_rows(conn: &Connection, seq: Option<i64>) -> Result<Vec<DecisionKey>> {
    let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<DecisionKey> {
        let sealed: Vec<u8> = r.get(4)?;
        Ok(DecisionKey {
            proposal: r.get(0)?,
            seq: r.get(1)?,
            at: r.get(2)?,
            outcome: r.get(3)?,
            digest: digest(&sealed),
        })
    };
    let rows = match seq {
        Some(s) => conn
            .prepare_cached(&format!("{DECISION_ROWS} WHERE seq = ?1"))?
            .query_map([s], map)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
        None => conn
            .prepare(DECISION_ROWS)?
            .query_map([], map)?
            .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    Ok(rows)
}

fn mac(key: &SymmetricKey, statement: &[u8]) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(statement);
    m
}

/// Whether `tag` is the master's MAC of `statement` (master level).
pub(crate) fn verifies_mac(keys: &Keyring, statement: &[u8], tag: &[u8]) -> bool {
    keys.seal()
        .is_some_and(|seal| mac(seal.mac_key(), statement).verify_slice(tag).is_ok())
}

pub(crate) fn sealer(keys: &Keyring) -> Result<&MasterSeal> {
    keys.seal()
        .ok_or_else(|| keys.needs(crate::keys::Level::Master, "sealing a commit"))
}

fn tampered(reason: impl std::fmt::Display) -> Error {
    Error::integrity(
        "the master's seal on the index",
        format!("{reason}; nothing is served (see `graphex doctor`)"),
    )
}

/// Writes `st` with its MAC and signature, and the readable rows' set hash
/// whose digest it holds. The statement it replaces is kept (`seal_log`)
/// and followed, with the `also` ones (a merge's other branch).
fn put(conn: &Connection, seal: &MasterSeal, st: &Statement, readable: &LtHash, also: &[StatementId]) -> Result<()> {
    let mut st = st.clone();
    st.readable = readable.digest();
    st.parents = super::seal_log::retire_current(conn)?.into_iter().collect();
    for id in also {
        if !st.parents.contains(id) && st.parents.len() < super::seal_statement::MAX_PARENTS {
            st.parents.push(*id);
        }
    }
    // Every statement written covers the timeline rows written since.
    super::seal_timeline::cover(conn, &SealTagger::new(seal.mac_key()), &mut st)?;
    let bytes = st.encode();
    let tag = mac(seal.mac_key(), &bytes).finalize().into_bytes().to_vec();
    conn.execute(
        "INSERT OR REPLACE INTO seal (id, statement, mac, sig, readable) VALUES (1, ?1, ?2, ?3, ?4)",
        params![bytes, tag, seal.sign(&bytes).to_vec(), readable.to_bytes()],
    )?;
    Ok(())
}

/// The stored set hash of the readable rows, checked against `st`.
fn stored_readable(conn: &Connection, st: &Statement) -> Result<LtHash> {
    let bytes: Vec<u8> = conn
        .prepare_cached("SELECT readable FROM seal WHERE id = 1")?
        .query_row([], |r| r.get(0))?;
    LtHash::from_bytes(&bytes)
        .filter(|lt| lt.digest() == st.readable)
        .ok_or_else(|| tampered("its set hash of the readable rows is not the one it signed"))
}

/// The stored statement, authenticated: by its MAC at master level, by its
/// signature otherwise. `None` only for a session that holds nothing to
/// check it with. A missing seal is an error for everyone else: whether the
/// store was made by an earlier version or its seal was deleted to have
/// forged rows sealed anew cannot be told apart, so only a person decides,
/// with `graphex seal`.
pub(crate) fn stored(conn: &Connection, keys: &Keyring) -> Result<Option<Statement>> {
    if keys.verifier().is_none() {
        return Ok(None);
    }
    let row: Option<(Vec<u8>, Vec<u8>, Vec<u8>)> = conn
        .prepare_cached("SELECT statement, mac, sig FROM seal WHERE id = 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?;
    let Some((bytes, tag, sig)) = row else {
        return Err(tampered(
            "there is none: the store was made by an earlier version, or its seal was deleted outside Graphex. \
             Check it with `graphex doctor`, then seal it as it is with `graphex seal` (master level)",
        ));
    };
    let authentic = match (keys.seal(), keys.verifier()) {
        (Some(seal), _) => mac(seal.mac_key(), &bytes).verify_slice(&tag).is_ok(),
        (None, Some(v)) => v.verifies(&bytes, &sig),
        (None, None) => return Ok(None),
    };
    if !authentic {
        return Err(tampered(
            "it fails its MAC or signature (altered or forged outside Graphex)",
        ));
    }
    Statement::decode(&bytes)
        .map(Some)
        .ok_or_else(|| tampered("it is malformed"))
}

/// Refuses a log that no longer holds the record the seal names.
fn check_audit(conn: &Connection, st: &Statement) -> Result<()> {
    if st.audit_seq == 0 {
        return Ok(());
    }
    let hash: Option<String> = conn
        .prepare_cached("SELECT hash FROM audit WHERE seq = ?1")?
        .query_row([i64::try_from(st.audit_seq).unwrap_or(i64::MAX)], |r| r.get(0))
        .optional()?;
    if hash.as_deref() == Some(st.audit_hash.as_str()) {
        Ok(())
    } else {
        Err(Error::integrity(
            "the audit log",
            format!(
                "record {} that the master's seal names is gone or altered: records were removed outside Graphex \
                 (see `graphex audit verify`)",
                st.audit_seq
            ),
        ))
    }
}

/// [`check_audit`] against the stored statement, when this session can
/// authenticate it.
pub(crate) fn check_audit_of(conn: &Connection, keys: &Keyring) -> Result<()> {
    match stored(conn, keys)? {
        Some(st) => check_audit(conn, &st),
        None => Ok(()),
    }
}

/// What [`check`] compares the statement with, recomputed from the rows.
pub(crate) struct Recomputed {
    /// Master-keyed tags over every row (master level only).
    pub rows: Option<Sum>,
    /// The digest of the readable rows' set hash (agent sessions).
    pub readable: Option<[u8; 32]>,
    /// Whether only the first half of `rows`' tags is known (a session
    /// that counted out edge rows by half tags: see `tracked::HalfTag`).
    pub halved: bool,
}

/// Checks the stored statement against the index as `conn` sees it:
/// called at open and reload, in the manifest check's transaction.
pub(crate) fn check(conn: &Connection, keys: &Keyring, seq: u64, found: &Recomputed) -> Result<()> {
    if keys.verifier().is_none() {
        return Ok(());
    }
    let Some(st) = stored(conn, keys)? else {
        return Ok(());
    };
    if st.seq != seq {
        return Err(tampered(format!(
            "it seals commit {} but the index is at commit {seq}: commits were made or undone outside Graphex",
            st.seq
        )));
    }
    if st.policy != super::policy::approved(conn)?.digest()? {
        return Err(tampered(
            "the approved settings are not the ones the master sealed: edited outside Graphex",
        ));
    }
    if let Some(readable) = &found.readable
        && *readable != st.readable
    {
        return Err(tampered(
            "the public and agent-readable rows differ from what the master sealed: written outside Graphex \
             (an agent identity cannot write)",
        ));
    }
    if let (Some(seal), Some(rows)) = (keys.seal(), &found.rows) {
        if rows.count != st.rows.count || !super::tracked::same_acc(&rows.acc, &st.rows.acc, found.halved) {
            return Err(tampered(
                "the index rows (or their name tokens) differ from what the master sealed: written outside Graphex",
            ));
        }
        decisions_match(conn, seal, &st)?;
        super::saved::rows_match(conn, seal, &st.queries)?;
    }
    check_audit(conn, &st)
}

fn decisions_match(conn: &Connection, seal: &MasterSeal, st: &Statement) -> Result<()> {
    let tagger = SealTagger::new(seal.mac_key());
    let mut decisions = Sum::default();
    for d in decision_rows(conn, None)? {
        decisions.add(&tagger.decision(&d), 1);
    }
    if decisions == st.decisions {
        Ok(())
    } else {
        Err(tampered(
            "the proposal decisions differ from what the master sealed: a decision was deleted, added or \
             altered outside Graphex",
        ))
    }
}

/// Checks the decisions rows against the stored statement, at the master
/// level (others cannot compute the tags): inside the caller's read
/// transaction, so what it then reads is what was checked.
pub(crate) fn check_decisions(conn: &Connection, keys: &Keyring) -> Result<()> {
    let (Some(seal), Some(st)) = (keys.seal(), stored(conn, keys)?) else {
        return Ok(());
    };
    decisions_match(conn, seal, &st)
}

/// What one commit changes, for [`apply`].
pub(crate) struct Change<'a> {
    pub seq: u64,
    pub rows_before: &'a [RowKey],
    pub rows_after: &'a [RowKey],
    /// Edge rows the commit counted as it inserted them.
    pub edges_after: Option<&'a super::edge_fold::EdgeFold>,
    pub decisions_before: &'a [DecisionKey],
    pub decisions_after: &'a [DecisionKey],
    /// The commit's timeline rows, tagged as they were inserted.
    pub timeline: Option<&'a super::seal_timeline::Covered>,
}

/// Seals a commit inside its transaction, after the manifest is updated:
/// the stored statement (checked) plus the change, at the new commit.
pub(crate) fn apply(tx: &Connection, keys: &Keyring, change: &Change<'_>) -> Result<()> {
    let seal = sealer(keys)?;
    let Some(mut st) = stored(tx, keys)? else {
        return Err(tampered("there is none to seal this commit on"));
    };
    check_audit(tx, &st)?;
    let tagger = SealTagger::new(seal.mac_key());
    let mut readable = stored_readable(tx, &st)?;
    // Sums whose order does not matter: a large commit's rows are tagged
    // (and the readable ones hashed into the set) on every core.
    let tag_into = |(rows, readable): &mut (Sum, LtHash), r: &RowKey, sign: i64| {
        rows.add(&tagger.row(r), sign);
        if super::manifest::is_readable(r) {
            readable.add(&element(r), sign);
        }
    };
    let mut removed = (Sum::default(), LtHash::default());
    change.rows_before.iter().for_each(|r| tag_into(&mut removed, r, -1));
    let added = crate::parallel::fold(
        change.rows_after,
        || (Sum::default(), LtHash::default()),
        |acc, r| tag_into(acc, r, 1),
        |acc, (rows, set)| {
            acc.0.merge(&rows);
            acc.1.merge(&set);
        },
    )?;
    for (rows, set) in [removed, added] {
        st.rows.merge(&rows);
        readable.merge(&set);
    }
    if let Some(f) = change.edges_after {
        st.rows.merge(&f.sealed);
        readable.merge(&f.readable);
    }
    for (d, sign) in change
        .decisions_before
        .iter()
        .map(|d| (d, -1))
        .chain(change.decisions_after.iter().map(|d| (d, 1)))
    {
        st.decisions.add(&tagger.decision(d), sign);
    }
    if let Some(covered) = change.timeline {
        super::seal_timeline::cover_known(tx, &tagger, &mut st, covered)?;
    }
    st.seq = change.seq;
    (st.audit_seq, st.audit_hash) = super::audit_head(tx)?;
    put(tx, seal, &st, &readable, &[])
}

/// Recomputes the whole statement from the index as it is, at commit `seq`
/// (a new store, the first master open of a store from before seals, a key
/// rotation after it re-sealed every row).
pub(crate) fn rebuild(conn: &Connection, keys: &Keyring, seq: u64, also: &[StatementId]) -> Result<()> {
    let seal = sealer(keys)?;
    let tagger = SealTagger::new(seal.mac_key());
    let (rows, readable) = super::tally::seal_rows(conn, &tagger, &super::tally::never)?;
    let mut decisions = Sum::default();
    for d in decision_rows(conn, None)? {
        decisions.add(&tagger.decision(&d), 1);
    }
    let (audit_seq, audit_hash) = super::audit_head(conn)?;
    let st = Statement {
        seq,
        rows,
        decisions,
        readable: readable.digest(),
        audit_seq,
        audit_hash,
        policy: super::policy::approved(conn)?.digest()?,
        queries: super::saved::tally(conn, &tagger)?,
        timeline: Sum::default(),
        timeline_seq: 0,
        parents: Vec::new(),
    };
    put(conn, seal, &st, &readable, also)
}

/// Moves the sealed audit head to the log's newest record (a master-level
/// append), inside the append's transaction.
pub(crate) fn seal_audit_head(tx: &Connection, keys: &Keyring) -> Result<()> {
    let Some(seal) = keys.seal() else {
        return Ok(());
    };
    let Some(mut st) = stored(tx, keys)? else {
        return Ok(());
    };
    (st.audit_seq, st.audit_hash) = super::audit_head(tx)?;
    let readable = stored_readable(tx, &st)?;
    put(tx, seal, &st, &readable, &[])
}

/// Rewrites the stored statement, changed by `change`, at the same commit,
/// inside the caller's transaction (master level): approved settings, saved
/// queries. `doing` says what for, when there is no seal to change.
pub(crate) fn amend(tx: &Connection, keys: &Keyring, doing: &str, change: impl FnOnce(&mut Statement)) -> Result<()> {
    let seal = sealer(keys)?;
    let Some(mut st) = stored(tx, keys)? else {
        return Err(tampered(format!("there is none to {doing} in")));
    };
    change(&mut st);
    let readable = stored_readable(tx, &st)?;
    put(tx, seal, &st, &readable, &[])
}

/// Whether the store has a seal yet.
pub(crate) fn exists(conn: &Connection) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM seal WHERE id = 1")?
        .query_row([], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Checks a whole index against its statement with the master's key alone
/// (no tier key): every row's master-keyed tag, the readable rows' set hash,
/// decisions, saved queries, the commit, the approved settings and the
/// audit head. What a merge checks of each branch's index before it takes
/// anything from it, whichever tier keys that branch was last sealed under.
pub(crate) fn verify_whole(conn: &Connection, keys: &Keyring) -> Result<()> {
    verify_whole_unless(conn, keys, &super::tally::never)
}

/// [`verify_whole`], stopped with [`Error::Stopped`] when `stop` says (an
/// idle session checking its backup copy, when a client knocks).
pub(crate) fn verify_whole_unless(conn: &Connection, keys: &Keyring, stop: &super::tally::Stop<'_>) -> Result<()> {
    let seal = sealer(keys)?;
    let tagger = SealTagger::new(seal.mac_key());
    let (rows, readable) = super::tally::seal_rows(conn, &tagger, stop)?;
    if stored(conn, keys)?.is_none() {
        return Err(tampered("there is none"));
    }
    let found = Recomputed {
        rows: Some(rows),
        readable: Some(readable.digest()),
        halved: false,
    };
    check(conn, keys, super::schema::commit_seq(conn)?, &found)?;
    check_timeline_unless(conn, keys, stop)
}

/// Checks the timeline rows the stored statement covers against it
/// (master level; `doctor` and merges: a full scan of the timeline, so
/// not at every open).
pub(crate) fn check_timeline(conn: &Connection, keys: &Keyring) -> Result<()> {
    check_timeline_unless(conn, keys, &super::tally::never)
}

fn check_timeline_unless(conn: &Connection, keys: &Keyring, stop: &super::tally::Stop<'_>) -> Result<()> {
    let (Some(seal), Some(st)) = (keys.seal(), stored(conn, keys)?) else {
        return Ok(());
    };
    let tagger = SealTagger::new(seal.mac_key());
    if super::seal_timeline::tally_unless(conn, &tagger, st.timeline_seq, stop)? == st.timeline {
        Ok(())
    } else {
        Err(tampered(
            "the timeline differs from what the master sealed: rows deleted, altered, renumbered or added \
             outside Graphex",
        ))
    }
}

/// Whether the stored statement (authenticated) covers every timeline
/// row: what a branch to merge must show, since rows it does not cover
/// are vouched for by nothing yet.
pub(crate) fn covers_timeline(conn: &Connection, keys: &Keyring) -> Result<bool> {
    match stored(conn, keys)? {
        Some(st) => super::seal_timeline::covers_all(conn, &st),
        None => Ok(false),
    }
}
