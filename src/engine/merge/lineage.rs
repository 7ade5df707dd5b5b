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
use crate::store::kit::schema;

/// The columns a row is told by, in this order.
pub(super) const KEY_COLUMNS: &str = "at, actor, action, node_id, edge_id, before_version, after_version, proposal";

/// What a timeline row says, as one digest: every field but its number,
/// commit and MAC (which a merge renumbers or writes anew), and an undo's
/// `before` (the commit it undid, renumbered too).
pub(super) fn row_key(r: &rusqlite::Row<'_>) -> rusqlite::Result<[u8; 32]> {
    let action: String = r.get(2)?;
    let mut h = Sha256::new();
    for i in 0..8 {
        if i == 5 && action == "undo" {
            h.update([9u8]);
            continue;
        }
        crate::store::kit::seal_timeline::hash_value(&mut h, r.get_ref(i)?);
    }
    Ok(h.finalize().into())
}

/// The keys of every timeline row of `schema`.
pub(super) fn keys(conn: &Connection, schema: &str) -> Result<HashSet<[u8; 32]>> {
    Ok(conn
        .prepare(&format!("SELECT {KEY_COLUMNS} FROM {schema}.timeline"))?
        .query_map([], row_key)?
        .collect::<rusqlite::Result<_>>()?)
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
