//! The audit log's head as the store keeps it: the seal names the newest
//! record (its number and hash), so the store reads it; the records, their
//! sealing and their chain are the `audit` module's.

use rusqlite::{Connection, OptionalExtension};

use crate::error::Result;

/// What the first record chains to.
pub const AUDIT_ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The newest record's sequence number and hash: `(0, AUDIT_ZERO)` for an
/// empty log.
pub fn audit_head(conn: &Connection) -> Result<(u64, String)> {
    let last: Option<(i64, String)> = conn
        .prepare_cached("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(last.map_or((0, AUDIT_ZERO.to_owned()), |(s, h)| (u64::try_from(s).unwrap_or(0), h)))
}
