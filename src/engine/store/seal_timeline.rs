//! The timeline under the master's seal: each statement covers every
//! timeline row up to its `timeline_seq` (count and XOR of master-keyed
//! tags over the row's number and fields). A row MAC alone cannot tell a
//! commit's rows deleted whole, or rows renumbered or pasted from another
//! copy of the index; the seal does. Rows written after the last
//! statement are vouched for by the next one.

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::manifest::Sum;
use super::seal::SealTagger;
use super::seal_statement::Statement;
use crate::error::Result;

const ROWS: &str = "SELECT seq, at, actor, action, node_id, edge_id, before_version, after_version, proposal, \
                    commit_seq FROM timeline";

/// Adds one SQLite value to `h`, typed and length-prefixed, so no two
/// rows' fields can run into the same bytes.
pub(crate) fn hash_value(h: &mut Sha256, v: rusqlite::types::ValueRef<'_>) {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Null => h.update([0u8]),
        ValueRef::Integer(x) => {
            h.update([1u8]);
            h.update(x.to_le_bytes());
        }
        ValueRef::Real(x) => {
            h.update([2u8]);
            h.update(x.to_le_bytes());
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            h.update([3u8]);
            h.update((t.len() as u64).to_le_bytes());
            h.update(t);
        }
    }
}

/// A row's number and a digest of its fields.
fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, [u8; 32])> {
    let mut h = Sha256::new();
    for i in 1..10 {
        hash_value(&mut h, r.get_ref(i)?);
    }
    Ok((r.get(0)?, h.finalize().into()))
}

/// Timeline rows a commit wrote, numbered `first..=last` one after the
/// other, and the sum of their tags, made as they were inserted (what
/// [`cover`] would read back and tag).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Covered {
    pub first: i64,
    pub last: i64,
    pub sum: Sum,
}

/// The digest of a row's fields as [`cover`] reads them: every value is
/// stored with the type it is bound with (the columns' affinities keep
/// integers, text and blobs as they are).
pub(crate) fn fields(r: &super::rowmac::TimelineRow) -> [u8; 32] {
    let mut h = Sha256::new();
    for v in values(r) {
        hash_value(&mut h, v);
    }
    h.finalize().into()
}

/// A row's fields as stored, in the columns' order: at, actor, action,
/// node, edge, before, after, proposal, commit.
pub(crate) fn values(r: &super::rowmac::TimelineRow) -> [rusqlite::types::ValueRef<'_>; 9] {
    use rusqlite::types::ValueRef;
    let int = |v: Option<i64>| v.map_or(ValueRef::Null, ValueRef::Integer);
    fn blob(v: &Option<Vec<u8>>) -> ValueRef<'_> {
        v.as_deref().map_or(ValueRef::Null, ValueRef::Blob)
    }
    [
        ValueRef::Integer(r.at),
        ValueRef::Text(r.actor.as_bytes()),
        ValueRef::Text(r.action.as_bytes()),
        blob(&r.node),
        blob(&r.edge),
        int(r.before),
        int(r.after),
        r.proposal
            .as_deref()
            .map_or(ValueRef::Null, |p| ValueRef::Text(p.as_bytes())),
        int(r.commit),
    ]
}

/// Extends `st` over the rows `covered` vouches for, reading only the rows
/// written since `st` before them (any: the rest of [`cover`] reads those
/// after them).
pub(crate) fn cover_known(conn: &Connection, tagger: &SealTagger, st: &mut Statement, covered: &Covered) -> Result<()> {
    let after = i64::try_from(st.timeline_seq).unwrap_or(i64::MAX);
    if covered.first <= after {
        return Ok(());
    }
    let mut stmt = conn.prepare_cached(&format!("{ROWS} WHERE seq > ?1 AND seq < ?2 ORDER BY seq"))?;
    let mut rows = stmt.query([after, covered.first])?;
    while let Some(r) = rows.next()? {
        let (seq, fields) = row(r)?;
        st.timeline.add(&tagger.timeline(seq, &fields), 1);
    }
    st.timeline.merge(&covered.sum);
    st.timeline_seq = u64::try_from(covered.last).unwrap_or(0);
    Ok(())
}

/// Extends `st` over the rows written since it was made.
pub(crate) fn cover(conn: &Connection, tagger: &SealTagger, st: &mut Statement) -> Result<()> {
    let after = i64::try_from(st.timeline_seq).unwrap_or(i64::MAX);
    let mut stmt = conn.prepare_cached(&format!("{ROWS} WHERE seq > ?1 ORDER BY seq"))?;
    let mut rows = stmt.query([after])?;
    while let Some(r) = rows.next()? {
        let (seq, fields) = row(r)?;
        st.timeline.add(&tagger.timeline(seq, &fields), 1);
        st.timeline_seq = u64::try_from(seq).unwrap_or(0);
    }
    Ok(())
}

/// The tags of every row up to `upto`, recomputed.
pub(crate) fn tally(conn: &Connection, tagger: &SealTagger, upto: u64) -> Result<Sum> {
    tally_unless(conn, tagger, upto, &super::tally::never)
}

/// [`tally`], stopped when `stop` says (see `tally::Stop`).
pub(crate) fn tally_unless(
    conn: &Connection,
    tagger: &SealTagger,
    upto: u64,
    stop: &super::tally::Stop<'_>,
) -> Result<Sum> {
    let mut asking = super::tally::Asking::new(stop);
    let mut sum = Sum::default();
    let mut stmt = conn.prepare(&format!("{ROWS} WHERE seq <= ?1"))?;
    let mut rows = stmt.query([i64::try_from(upto).unwrap_or(i64::MAX)])?;
    while let Some(r) = rows.next()? {
        asking.row()?;
        let (seq, fields) = row(r)?;
        sum.add(&tagger.timeline(seq, &fields), 1);
    }
    Ok(sum)
}

/// Whether `st` covers every row there is.
pub(crate) fn covers_all(conn: &Connection, st: &Statement) -> Result<bool> {
    let last: i64 = conn.query_row("SELECT COALESCE(MAX(seq), 0) FROM timeline", [], |r| r.get(0))?;
    Ok(u64::try_from(last).unwrap_or(0) == st.timeline_seq)
}
