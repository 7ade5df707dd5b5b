//! The `merge_conflicts` rows: a node changed on both branches, kept as
//! ours, with the other branch's version waiting for a reviewer.

use rusqlite::{Connection, params};

use super::super::rowmac;
use crate::error::{Error, Result};
use crate::keys::Keyring;

/// One conflict, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConflictRow {
    /// The node kept (ours).
    pub node: Vec<u8>,
    /// The other branch's node: the same id, or another one that took the
    /// same name there.
    pub theirs_id: Vec<u8>,
    pub theirs_version: i64,
    pub theirs_tier: i64,
    pub theirs_blob: String,
    /// The version both branches started from (`None`: added on both).
    pub base_version: Option<i64>,
    /// What git called the other branch.
    pub branch: String,
    /// The merge commit.
    pub commit: i64,
    pub at: i64,
}

const COLUMNS: &str =
    "node_id, theirs_id, theirs_version, theirs_tier, theirs_blob, base_version, branch, commit_seq, at, mac";

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(ConflictRow, Option<Vec<u8>>)> {
    Ok((
        ConflictRow {
            node: r.get(0)?,
            theirs_id: r.get(1)?,
            theirs_version: r.get(2)?,
            theirs_tier: r.get(3)?,
            theirs_blob: r.get(4)?,
            base_version: r.get(5)?,
            branch: r.get(6)?,
            commit: r.get(7)?,
            at: r.get(8)?,
        },
        r.get(9)?,
    ))
}

/// Every conflict row of `schema` (`main`, or an attached branch), with
/// its stored MAC.
pub(super) fn rows_in(conn: &Connection, schema: &str) -> Result<Vec<(ConflictRow, Option<Vec<u8>>)>> {
    Ok(conn
        .prepare(&format!(
            "SELECT {COLUMNS} FROM {schema}.merge_conflicts ORDER BY commit_seq, node_id"
        ))?
        .query_map([], read_row)?
        .collect::<rusqlite::Result<_>>()?)
}

/// Every conflict row, each checked against the master's MAC (master
/// level; below it the rows are returned unchecked, and nothing below the
/// master reviews them).
pub(crate) fn checked(conn: &Connection, keys: &Keyring) -> Result<Vec<ConflictRow>> {
    let rows = rows_in(conn, "main")?;
    let mut out = Vec::with_capacity(rows.len());
    for (row, mac) in rows {
        if keys.seal().is_some() && rowmac::conflict_mac(keys, &row) != mac {
            return Err(Error::integrity(
                "a merge conflict row",
                "its MAC does not verify: written or altered outside Graphex; nothing is done with it \
                 (see `graphex doctor`)",
            ));
        }
        out.push(row);
    }
    Ok(out)
}

/// Inserts `row` with its MAC.
pub(super) fn insert(tx: &Connection, keys: &Keyring, row: &ConflictRow) -> Result<()> {
    tx.execute(
        &format!(
            "INSERT OR REPLACE INTO main.merge_conflicts ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        ),
        params![
            row.node,
            row.theirs_id,
            row.theirs_version,
            row.theirs_tier,
            row.theirs_blob,
            row.base_version,
            row.branch,
            row.commit,
            row.at,
            rowmac::conflict_mac(keys, row)
        ],
    )?;
    Ok(())
}
