//! Both branches must have grown from the common ancestor. Every index the
//! master ever sealed passes the seal check, so an older copy of
//! `graph.db` committed on a branch would look, three-way, like a branch
//! that changed every row it rolls back. The timeline only grows (each
//! commit appends its rows, an undo appends too) and its rows carry the
//! master's MAC (checked on each side): so each branch's timeline must
//! begin with the ancestor's, row for row, and its commit counter must not
//! be behind the ancestor's.

use std::path::Path;

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The number of timeline rows up to row `upto`, and a digest of what
/// they say (every field but the MAC, which `graphex seal` may have added
/// to rows of an older store later).
fn prefix(conn: &Connection, upto: i64) -> Result<(i64, [u8; 32])> {
    let mut stmt = conn.prepare(
        "SELECT seq, at, actor, action, node_id, edge_id, before_version, after_version, proposal, commit_seq \
         FROM timeline WHERE seq <= ?1 ORDER BY seq",
    )?;
    let mut rows = stmt.query([upto])?;
    let (mut n, mut h) = (0i64, Sha256::new());
    while let Some(r) = rows.next()? {
        n += 1;
        for i in 0..10 {
            let v = r.get_ref(i)?;
            let bytes: Vec<u8> = match v {
                rusqlite::types::ValueRef::Null => vec![0],
                rusqlite::types::ValueRef::Integer(x) => [&[1u8][..], &x.to_le_bytes()].concat(),
                rusqlite::types::ValueRef::Real(x) => [&[2u8][..], &x.to_le_bytes()].concat(),
                rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                    [&[3u8][..], &(t.len() as u64).to_le_bytes(), t].concat()
                }
            };
            h.update(&bytes);
        }
    }
    Ok((n, h.finalize().into()))
}

fn commit_seq(conn: &Connection) -> Result<i64> {
    let v: String = conn.query_row("SELECT value FROM meta WHERE key = 'commit_seq'", [], |r| r.get(0))?;
    v.parse()
        .map_err(|_| Error::integrity("index", format!("commit counter {v:?} is not a number")))
}

/// Refuses a branch whose index did not grow from `base`'s.
pub(super) fn check(base: &Path, ours: &Path, theirs: &Path) -> Result<()> {
    let o = Connection::open(base)?;
    let upto: i64 = o.query_row("SELECT COALESCE(MAX(seq), 0) FROM timeline", [], |r| r.get(0))?;
    let (want, o_seq) = (prefix(&o, upto)?, commit_seq(&o)?);
    for (path, side) in [(ours, "this branch"), (theirs, "the other branch")] {
        let c = Connection::open(path)?;
        if prefix(&c, upto)? != want || commit_seq(&c)? < o_seq {
            return Err(Error::integrity(
                format!("the graph of {side}"),
                "it did not grow from the common ancestor's: its history up to there differs (an older copy of \
                 the index committed, or history rewritten outside Graphex); nothing was merged",
            ));
        }
    }
    Ok(())
}
