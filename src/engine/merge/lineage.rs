//! The other branch must have grown from the common ancestor. Every index
//! the master ever sealed passes the seal check, so an older copy of
//! `graph.db` committed on a branch would look, three-way, like a branch
//! that changed every row it rolls back. The timeline only grows (each
//! commit appends its rows, an undo and a merge append too) and its rows
//! carry the master's MAC (checked on each side), so the other branch must
//! hold every row of the ancestor's timeline, and a commit counter not
//! behind it. Rows are compared by what they say, not by their place: a
//! merge appends the other branch's rows under new numbers.
//!
//! The timeline is under the master's seal (see `seal_timeline`), and the
//! merge asks the other branch's seal to cover every row of it: an older
//! sealed index whose timeline was rewritten to hold the ancestor's rows
//! fails its seal.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::store::kit::rowmac::{TimelineRow, timeline_fields};
use crate::store::kit::{schema, seal_timeline};

/// The columns a stored row is read by, in this order (as
/// `rowmac::timeline_fields` reads them).
const ROW_COLUMNS: &str = "at, actor, action, node_id, edge_id, before_version, after_version, proposal, commit_seq";

/// What a timeline row says, as one digest: every field but its number,
/// commit and MAC (which a merge renumbers or writes anew), and an undo's
/// `before` (the commit it undid, renumbered too). Rows are told apart
/// as they read, not as they are stored: a row packed with others on one
/// branch (see `timeline_pack`) is the same row stored alone on another.
pub(super) fn key(r: &TimelineRow) -> [u8; 32] {
    let mut h = Sha256::new();
    // Every field but the commit (the last).
    for (i, v) in seal_timeline::values(r).into_iter().take(8).enumerate() {
        if i == 5 && r.action == "undo" {
            h.update([9u8]);
        } else {
            seal_timeline::hash_value(&mut h, v);
        }
    }
    h.finalize().into()
}

/// Calls `each` on every row of `schema`'s timeline that `filter` keeps,
/// as it reads (packed rows unpacked), in order, a stored row at a time
/// (never the whole timeline held). Not checked against MACs: each side's
/// were checked whole before.
pub(super) fn each_row(
    conn: &Connection,
    schema: &str,
    filter: &str,
    mut each: impl FnMut(TimelineRow) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ROW_COLUMNS} FROM {schema}.timeline {filter} ORDER BY seq"
    ))?;
    let mut stored = stmt.query([])?;
    let mut one = Vec::new();
    while let Some(r) = stored.next()? {
        crate::store::kit::timeline_pack::unpack(timeline_fields(r)?, &mut one)?;
        for row in one.drain(..) {
            each(row)?;
        }
    }
    Ok(())
}

/// The keys of every timeline row of `schema`.
pub(super) fn keys(conn: &Connection, schema: &str) -> Result<HashSet<[u8; 32]>> {
    let mut out = HashSet::new();
    each_row(conn, schema, "", |row| {
        out.insert(key(&row));
        Ok(())
    })?;
    Ok(out)
}

/// Refuses the other branch when its index did not grow from the
/// ancestor's, whose timeline rows are `known` (see [`keys`]).
pub(super) fn check(base: &Path, known: &HashSet<[u8; 32]>, theirs: &Path) -> Result<()> {
    let open = |p: &Path| -> Result<Connection> {
        let c = Connection::open(p)?;
        crate::store::forbid_code(&c)?;
        Ok(c)
    };
    let (o, b) = (open(base)?, open(theirs)?);
    let have = keys(&b, "main")?;
    let missing = known.iter().any(|k| !have.contains(k));
    if missing || schema::commit_seq(&b)? < schema::commit_seq(&o)? {
        return Err(Error::integrity(
            "the graph of the other branch",
            "it did not grow from the common ancestor's: it lacks history the ancestor has (an older copy of \
             the index committed, or history rewritten outside Graphex); nothing was merged",
        ));
    }
    Ok(())
}
