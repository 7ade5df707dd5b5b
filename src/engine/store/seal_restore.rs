//! Putting back, from a trusted copy of the index, the kinds of difference
//! `seal` can restore one by one: the approved settings, the decisions, the
//! audit log and the saved queries are tables of their own, copied whole
//! from the copy. Rows, the timeline and the commit counter hang together
//! (versions, blobs, snapshots): they come back only with the whole copy.

use std::path::Path;

use rusqlite::Connection;

use super::SCHEMA_VERSION;
use super::schema::UNMIGRATED_SCHEMA;
use super::seal_repair::DiffKind;
use super::seal_statement::{StatementId, statement_id};
use crate::error::{Error, Result};

impl DiffKind {
    /// Whether this kind can be restored alone from a trusted copy.
    pub fn restorable(self) -> bool {
        matches!(
            self,
            DiffKind::Settings | DiffKind::Decisions | DiffKind::Audit | DiffKind::Queries
        )
    }
}

/// The schema name the trusted copy is attached under.
const TRUSTED: &str = "trusted";

/// Attaches the trusted copy at `copy`, once its seal is checked to be the
/// statement `want` (the one the plan trusted) and its schema ours.
pub(super) fn attach(conn: &Connection, copy: &Path, want: &StatementId) -> Result<()> {
    conn.execute(&format!("ATTACH DATABASE ?1 AS {TRUSTED}"), [copy.to_string_lossy()])?;
    let checked = (|| -> Result<()> {
        let version: u32 = conn.query_row(&format!("PRAGMA {TRUSTED}.user_version"), [], |r| r.get(0))?;
        if !(UNMIGRATED_SCHEMA..=SCHEMA_VERSION).contains(&version) {
            return Err(Error::integrity(
                "the trusted copy",
                format!(
                    "its schema is v{version}, this program's v{SCHEMA_VERSION}: restore it whole instead \
                     (`graphex seal --restore-all`)"
                ),
            ));
        }
        let bytes: Vec<u8> =
            conn.query_row(&format!("SELECT statement FROM {TRUSTED}.seal WHERE id = 1"), [], |r| {
                r.get(0)
            })?;
        if statement_id(&bytes) != *want {
            return Err(Error::integrity(
                "the trusted copy",
                "its seal is not the one the comparison trusted; nothing restored",
            ));
        }
        Ok(())
    })();
    if checked.is_err() {
        detach(conn);
    }
    checked
}

pub(super) fn detach(conn: &Connection) {
    let _ = conn.execute_batch(&format!("DETACH DATABASE {TRUSTED}"));
}

/// Replaces, inside the caller's transaction, the tables of `kind` with the
/// attached trusted copy's.
pub(super) fn restore(tx: &Connection, kind: DiffKind) -> Result<()> {
    let t = TRUSTED;
    let sql = match kind {
        DiffKind::Settings => format!(
            "DELETE FROM main.meta WHERE key = 'policy';
             INSERT INTO main.meta (key, value) SELECT key, value FROM {t}.meta WHERE key = 'policy';"
        ),
        DiffKind::Decisions => format!(
            "DELETE FROM main.decisions;
             INSERT INTO main.decisions (proposal, seq, at, outcome, sealed, sig)
             SELECT proposal, seq, at, outcome, sealed, sig FROM {t}.decisions;"
        ),
        DiffKind::Audit => format!(
            "DELETE FROM main.audit;
             INSERT INTO main.audit (seq, at, kind, tier, sealed, prev, hash)
             SELECT seq, at, kind, tier, sealed, prev, hash FROM {t}.audit;
             DELETE FROM main.meta WHERE key = 'audit_head';
             INSERT INTO main.meta (key, value) SELECT key, value FROM {t}.meta WHERE key = 'audit_head';"
        ),
        DiffKind::Queries => format!(
            "DELETE FROM main.saved_queries;
             INSERT INTO main.saved_queries (token, sealed) SELECT token, sealed FROM {t}.saved_queries;"
        ),
        other => {
            return Err(Error::Unexplained(format!(
                "{} cannot be restored alone: restore the whole trusted copy (`graphex seal --restore-all`) or \
                 accept it (`--accept {}`)",
                other.as_str(),
                other.as_str()
            )));
        }
    };
    tx.execute_batch(&sql)?;
    Ok(())
}
