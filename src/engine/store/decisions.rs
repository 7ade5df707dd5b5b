//! The decisions table as the store keeps it: each row's signature and
//! the master's seal over all of them are checked before anything is read.

use std::collections::HashSet;

use rusqlite::OptionalExtension;

use super::Store;
use crate::codec;
use crate::error::{Error, Result};

impl Store {
    /// The opened record of the decision on proposal `id`, if any
    /// (readable at agent level), its row checked against the master's
    /// signature first.
    pub(crate) fn decision_plain(&self, id: &str) -> Result<Option<Vec<u8>>> {
        type Row = (Vec<u8>, i64, i64, String, Option<Vec<u8>>);
        let row: Option<Row> = self
            .conn
            .query_row(
                "SELECT sealed, seq, at, outcome, sig FROM decisions WHERE proposal = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        row.map(|(s, seq, at, outcome, sig)| {
            let key = super::seal::DecisionKey {
                proposal: id.to_string(),
                seq,
                at,
                outcome,
                digest: super::manifest::digest(&s),
            };
            super::seal::check_decision(&self.keys, &key, sig.as_deref())?;
            Ok::<_, Error>(s)
        })
        .transpose()?
        .map(|s| codec::open_decision(&self.keys, id, &s))
        .transpose()
    }

    /// The ids of every decided proposal: what keeps them out of the
    /// queue. At the master level the rows are checked against the master's
    /// seal first, every time, so a decision row inserted or deleted while a
    /// console is open cannot hide or bring back a proposal until the next
    /// open.
    pub fn decided(&self) -> Result<HashSet<String>> {
        let tx = self.conn.unchecked_transaction()?;
        super::seal::check_decisions(&tx, &self.keys)?;
        let mut stmt = tx.prepare("SELECT proposal FROM decisions")?;
        let ids = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<HashSet<String>>>()?;
        Ok(ids)
    }
}
