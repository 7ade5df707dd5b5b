//! Saved queries: named query texts kept in the index, shared through the
//! repository, written and read at the master level.
//!
//! A saved query can name nodes of any tier a master reads, so none of it is
//! on disk in the clear: a row (`saved_queries`) holds the blind-index token
//! of its name (under the master's blind key, like node names) and one record
//! (name, text, time) sealed with AES-256-GCM under a key derived from the
//! master identity (`Purpose::SavedQueries`), its associated data binding
//! the token. Opening a record checks that its name gives its row's token.
//!
//! Tampering: the master's seal (`seal`) holds the count and XOR of
//! master-keyed tags over every row (token and digest of the sealed record),
//! updated in the transaction that saves or deletes. It is checked at every
//! master-level open and again on every read and write of saved queries, so
//! a row added, deleted, altered, moved to another name or put back as it was
//! before a later save is refused ("the saved queries differ from what the
//! master sealed"), even while a console is open. An agent holds neither
//! the sealing key nor the seal's MAC key, so it can forge none.
//!
//! A query naming a human-only node is refused: saved queries are read at
//! the master level, which does not hold that tier.

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use super::Store;
use super::manifest::{Sum, digest};
use super::seal::{self, SealTagger};
use crate::crypto::{MasterSeal, Sealer};
use crate::error::{Error, Result};
use crate::keys::{Keyring, Level};
use crate::model::Timestamp;

/// The longest query text that can be saved, in bytes.
pub const MAX_SAVED_QUERY_LEN: usize = 16 * 1024;

const FORMAT: u8 = 1;
const AD: &[u8] = b"graphex/saved-query/v1";

/// A saved query, as read back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedQuery {
    /// Its name (the rules of node names).
    pub name: String,
    /// The query text.
    pub text: String,
    /// When it was last saved.
    pub saved_at: Timestamp,
}

impl Store {
    /// Stores `q` under its name (master level), replacing what that name
    /// held, in one transaction that also updates the master's seal. What
    /// may be saved is the query module's to say (`Store::save_query`).
    pub(crate) fn put_saved_query(&mut self, q: &SavedQuery) -> Result<()> {
        self.require_writer("saving a query")?;
        let token = token(&self.keys, &q.name)?;
        let sealed = seal_record(self.sealer()?, &token, q)?;
        self.write_query(&token, Some(&sealed), "save a query")?;
        Ok(())
    }

    /// Deletes the saved query `name` (master level); an error when there
    /// is none.
    pub fn delete_query(&mut self, name: &str) -> Result<()> {
        self.require_writer("deleting a saved query")?;
        let token = token(&self.keys, name)?;
        if self.write_query(&token, None, "delete a query")? {
            Ok(())
        } else {
            Err(Error::NoSavedQuery(name.to_owned()))
        }
    }

    /// Every saved query, sorted by name (master level), after checking the
    /// rows against the master's seal.
    pub fn saved_queries(&self) -> Result<Vec<SavedQuery>> {
        let seal = self.sealer()?;
        let tx = self.conn.unchecked_transaction()?;
        check(&tx, &self.keys)?;
        let rows: Vec<(Vec<u8>, Vec<u8>)> = tx
            .prepare("SELECT token, sealed FROM saved_queries")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut out = rows
            .iter()
            .map(|(token, sealed)| open_record(&self.keys, seal, token, sealed))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The saved query `name`, if there is one (master level), checked
    /// like [`Store::saved_queries`].
    pub fn saved_query(&self, name: &str) -> Result<Option<SavedQuery>> {
        let seal = self.sealer()?;
        let token = token(&self.keys, name)?;
        let tx = self.conn.unchecked_transaction()?;
        check(&tx, &self.keys)?;
        let sealed: Option<Vec<u8>> = tx
            .prepare_cached("SELECT sealed FROM saved_queries WHERE token = ?1")?
            .query_row([&token], |r| r.get(0))
            .optional()?;
        sealed.map(|s| open_record(&self.keys, seal, &token, &s)).transpose()
    }

    fn sealer(&self) -> Result<&MasterSeal> {
        self.keys
            .seal()
            .ok_or_else(|| self.keys.needs(Level::Master, "reading saved queries"))
    }

    /// Puts `sealed` (or nothing) under `token` and moves the master's seal
    /// with it, in one transaction; returns whether the token had a row.
    fn write_query(&mut self, token: &[u8], sealed: Option<&[u8]>, doing: &str) -> Result<bool> {
        let tagger = SealTagger::new(self.sealer()?.mac_key());
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        check(&tx, &self.keys)?;
        let old: Option<Vec<u8>> = tx
            .query_row(
                "DELETE FROM saved_queries WHERE token = ?1 RETURNING sealed",
                [token],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(new) = sealed {
            tx.execute(
                "INSERT INTO saved_queries (token, sealed) VALUES (?1, ?2)",
                params![token, new],
            )?;
        }
        seal::amend(&tx, &self.keys, doing, |st| {
            if let Some(old) = &old {
                st.queries.add(&tagger.query(token, &digest(old)), -1);
            }
            if let Some(new) = sealed {
                st.queries.add(&tagger.query(token, &digest(new)), 1);
            }
        })?;
        tx.commit()?;
        self.note_fresh();
        Ok(old.is_some())
    }
}

/// The blind-index token of a saved query's name.
fn token(keys: &Keyring, name: &str) -> Result<Vec<u8>> {
    Ok(keys.blind()?.token("saved-query", &[name.as_bytes()]))
}

fn associated_data(token: &[u8]) -> Vec<u8> {
    [AD, token].concat()
}

fn seal_record(seal: &MasterSeal, token: &[u8], q: &SavedQuery) -> Result<Vec<u8>> {
    let plain = Zeroizing::new(serde_json::to_vec(q).map_err(|e| Error::integrity("a saved query", e.to_string()))?);
    let sealed = Sealer::new(seal.queries_key()).seal(&associated_data(token), &plain)?;
    Ok([&[FORMAT][..], &sealed].concat())
}

fn open_record(keys: &Keyring, seal: &MasterSeal, token: &[u8], bytes: &[u8]) -> Result<SavedQuery> {
    let forged = |reason: &str| {
        Error::integrity(
            "a saved query",
            format!("{reason}: written or altered outside Graphex; nothing is served (see `graphex doctor`)"),
        )
    };
    let Some((&FORMAT, body)) = bytes.split_first() else {
        return Err(forged("its record is in no format Graphex writes"));
    };
    let plain = Zeroizing::new(
        Sealer::new(seal.queries_key())
            .open(&associated_data(token), body)
            .map_err(|_| forged("its record fails authentication"))?,
    );
    let q: SavedQuery = serde_json::from_slice(&plain).map_err(|_| forged("its record is malformed"))?;
    if self::token(keys, &q.name)? != token {
        return Err(forged("its record names another query"));
    }
    Ok(q)
}

/// The count and XOR of the seal's tags over every saved query row.
pub(super) fn tally(conn: &Connection, tagger: &SealTagger) -> Result<Sum> {
    let mut sum = Sum::default();
    let mut stmt = conn.prepare_cached("SELECT token, sealed FROM saved_queries")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        sum.add(&tagger.query(super::blob(r, 0)?, &digest(super::blob(r, 1)?)), 1);
    }
    Ok(sum)
}

/// Refuses saved query rows that are not the ones the master sealed.
pub(super) fn rows_match(conn: &Connection, seal: &MasterSeal, want: &Sum) -> Result<()> {
    if tally(conn, &SealTagger::new(seal.mac_key()))? == *want {
        Ok(())
    } else {
        Err(Error::integrity(
            "the saved queries",
            "they differ from what the master sealed: a saved query was added, deleted, altered or put back \
             outside Graphex; nothing is served (see `graphex doctor`)",
        ))
    }
}

/// [`rows_match`] against the stored statement, inside the caller's
/// transaction (master level; a store with no seal is refused at open).
fn check(conn: &Connection, keys: &Keyring) -> Result<()> {
    match (keys.seal(), seal::stored(conn, keys)?) {
        (Some(seal), Some(st)) => rows_match(conn, seal, &st.queries),
        _ => Ok(()),
    }
}
