//! The statements the master's seal has held: each statement names the
//! one(s) it follows (see `seal_statement`), and every statement replaced
//! is kept here by its id, so a store's statement can be told to descend
//! from another one or not. That is what tells a store moved forward from
//! one put back as it was (a rollback through git, see `freshness`).
//!
//! Rows are content-addressed: a walk checks each row's bytes against the
//! id that named it, so rows need no MAC of their own (one forged here is
//! reached from no authentic statement), and copying another branch's
//! rows in a merge is safe.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension};

use super::seal_statement::{Statement, StatementId, statement_id};
use crate::error::Result;

/// The stored statement's bytes, as they are (not authenticated here).
pub(crate) fn current_bytes(conn: &Connection) -> Result<Option<Vec<u8>>> {
    current_in(conn, "main")
}

fn current_in(conn: &Connection, schema: &str) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .prepare_cached(&format!("SELECT statement FROM {schema}.seal WHERE id = 1"))?
        .query_row([], |r| r.get(0))
        .optional()?)
}

/// The stored statement's MAC.
pub(crate) fn current_mac(conn: &Connection) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .prepare_cached("SELECT mac FROM seal WHERE id = 1")?
        .query_row([], |r| r.get(0))
        .optional()?)
}

/// Keeps `bytes` as a past statement; returns its id.
pub(crate) fn keep(conn: &Connection, bytes: &[u8]) -> Result<StatementId> {
    let id = statement_id(bytes);
    conn.prepare_cached("INSERT OR IGNORE INTO seal_log (id, statement) VALUES (?1, ?2)")?
        .execute(rusqlite::params![id.as_slice(), bytes])?;
    Ok(id)
}

/// Keeps the stored statement, about to be replaced, as a past one; its
/// id is what the next statement follows.
pub(crate) fn retire_current(conn: &Connection) -> Result<Option<StatementId>> {
    current_bytes(conn)?.map(|b| keep(conn, &b)).transpose()
}

/// Copies the past statements of the database attached as `schema` (the
/// other branch of a merge) and its current one; returns the latter's id.
pub(crate) fn adopt(conn: &Connection, schema: &str) -> Result<Option<StatementId>> {
    let has_log: bool = conn.query_row(
        &format!("SELECT count(*) FROM {schema}.sqlite_master WHERE type = 'table' AND name = 'seal_log'"),
        [],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if has_log {
        conn.execute(
            &format!("INSERT OR IGNORE INTO main.seal_log (id, statement) SELECT id, statement FROM {schema}.seal_log"),
            [],
        )?;
    }
    current_in(conn, schema)?.map(|b| keep(conn, &b)).transpose()
}

fn past(conn: &Connection, id: &StatementId) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .prepare_cached("SELECT statement FROM seal_log WHERE id = ?1")?
        .query_row([id.as_slice()], |r| r.get(0))
        .optional()?)
}

/// Whether the statement `head` (bytes) is the statement `target` or
/// descends from it through the kept statements. Statements before commit
/// `target_seq` are not followed (commit numbers never go down along a
/// chain), so a walk stops early. A row that is missing or does not hash
/// to its id ends that branch of the walk.
pub(crate) fn descends(conn: &Connection, head: &[u8], target: &StatementId, target_seq: u64) -> Result<bool> {
    let mut queue = vec![head.to_vec()];
    let mut seen: HashSet<StatementId> = HashSet::new();
    while let Some(bytes) = queue.pop() {
        let id = statement_id(&bytes);
        if &id == target {
            return Ok(true);
        }
        if !seen.insert(id) {
            continue;
        }
        let Some(st) = Statement::decode(&bytes) else {
            continue;
        };
        if st.seq < target_seq {
            continue;
        }
        for parent in &st.parents {
            if parent == target {
                return Ok(true);
            }
            if let Some(b) = past(conn, parent)?
                && statement_id(&b) == *parent
            {
                queue.push(b);
            }
        }
    }
    Ok(false)
}

/// The commit number a statement's bytes name, if they decode.
pub(crate) fn seq_of(bytes: &[u8]) -> Option<u64> {
    Statement::decode(bytes).map(|st| st.seq)
}
