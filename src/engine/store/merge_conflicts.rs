//! The `merge_conflicts` rows: a node changed on both branches, kept as
//! ours, with the other branch's version waiting for a reviewer.

use rusqlite::{Connection, params};

use super::rowmac;
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
pub(crate) fn rows_in(conn: &Connection, schema: &str) -> Result<Vec<(ConflictRow, Option<Vec<u8>>)>> {
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
pub(crate) fn insert(tx: &Connection, keys: &Keyring, row: &ConflictRow) -> Result<()> {
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

/// A conflict as a reviewer's session reads it.
#[derive(Clone, Debug)]
pub struct Conflict {
    /// The bytes its proposal id is the hash of.
    pub key: Vec<u8>,
    /// The node kept (ours).
    pub ours: crate::model::NodeId,
    /// The other branch's version; `None` while its blob is missing (git
    /// has not brought it yet) or above this session's level.
    pub theirs: Option<crate::model::Node>,
    pub base_version: Option<u64>,
    pub branch: String,
    pub at: crate::model::Timestamp,
}

impl ConflictRow {
    /// What a merge proposal's id is the hash of: every field.
    fn key(&self) -> Vec<u8> {
        let mut out = b"graphex/merge-proposal/v1\0".to_vec();
        for f in [
            self.node.as_slice(),
            self.theirs_id.as_slice(),
            self.theirs_blob.as_bytes(),
            self.branch.as_bytes(),
        ] {
            out.extend_from_slice(&(f.len() as u64).to_le_bytes());
            out.extend_from_slice(f);
        }
        for n in [
            self.theirs_version,
            self.theirs_tier,
            self.commit,
            self.base_version.unwrap_or(-1),
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out
    }
}

impl crate::store::Store {
    /// The conflicts branch merges left, each checked against the master's
    /// MAC, and every conflict the merge commits' timeline rows name
    /// present (master level).
    pub fn merge_conflicts(&self) -> Result<Vec<Conflict>> {
        self.require_writer("reviewing merge conflicts")?;
        let rows = checked(self.conn(), self.keys())?;
        let commits: Vec<i64> = self
            .conn()
            .prepare_cached(&format!(
                "SELECT DISTINCT commit_seq FROM timeline INDEXED BY timeline_by_action \
                 WHERE action = 'merge-conflict' AND {}",
                super::schema::RARE_ACTION
            ))?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for commit in commits {
            for named in rowmac::commit_rows(self.conn(), self.keys(), commit)? {
                if named.action == "merge-conflict"
                    && !rows
                        .iter()
                        .any(|r| Some(&r.node) == named.node.as_ref() && r.commit >= commit)
                {
                    return Err(Error::integrity(
                        format!("the merge of commit {commit}"),
                        "a conflict it left for review is gone from the index: deleted outside Graphex",
                    ));
                }
            }
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let (Ok(ours), Ok(theirs_id)) = (super::row_node_id(&row.node), super::row_node_id(&row.theirs_id)) else {
                continue;
            };
            let version = u64::try_from(row.theirs_version).unwrap_or(0);
            let theirs = crate::model::Tier::from_code(row.theirs_tier)
                .filter(|t| self.keys().reads(*t))
                .and_then(|tier| {
                    let bytes = self.objects.read(&row.theirs_blob).ok()?;
                    crate::codec::decode_node(self.keys(), &theirs_id, version, tier, &bytes).ok()
                });
            out.push(Conflict {
                key: row.key(),
                ours,
                theirs,
                base_version: row.base_version.and_then(|v| u64::try_from(v).ok()),
                branch: row.branch,
                at: crate::model::Timestamp(row.at),
            });
        }
        Ok(out)
    }
}
