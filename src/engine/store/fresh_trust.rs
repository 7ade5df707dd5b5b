//! `graphex freshness trust REV`: the record of the line of history checked
//! out, seeded from the graph a revision the user names holds (a fresh
//! clone, a record deleted, a branch whose first sight trusted the wrong
//! graph). Only a graph whose seal this session's key authenticates is
//! trusted; the store is then checked against it as at every open.

use super::seal_repair::sealed_in_git;
use super::{Store, schema};
use crate::crypto::hex::hex;
use crate::error::{Error, Result};
use crate::freshness::{self, Record};
use crate::model::Timestamp;

impl Store {
    /// Makes the graph at git revision `rev` the newest this machine has
    /// seen on the line of history checked out; returns the record written
    /// (the open's verdict is then taken again: the store as it is may be
    /// fresh, or older than what was named).
    pub fn trust_revision(&mut self, rev: &str) -> Result<Record> {
        // Allowed on a store that went back: naming the trusted graph is one
        // way out.
        self.refuse_if_names_only("trusting a revision's graph")?;
        if self.keys.level() < crate::keys::Level::Master {
            return Err(self
                .keys
                .needs(crate::keys::Level::Master, "trusting a revision's graph"));
        }
        let root = self.layout.root().to_owned();
        let file =
            self.fresh.as_ref().and_then(|f| f.file.clone()).ok_or_else(|| {
                Error::MissingSecret("no freshness record can be kept here (no state directory)".into())
            })?;
        let commit = freshness::git::resolve(&root, rev)
            .ok_or_else(|| Error::invalid("revision", rev, "git knows no commit by that name here"))?;
        let (bytes, mac, st) = sealed_in_git(&root, &commit, &self.keys).ok_or_else(|| {
            Error::invalid(
                "revision",
                rev,
                format!(
                    "commit {} holds no graph.db sealed by this store's master key",
                    commit.get(..12).unwrap_or(&commit)
                ),
            )
        })?;
        let on_disk = file.load().ok().flatten();
        let record = Record {
            store_id: schema::meta(&self.conn, "store_id")?.unwrap_or_default(),
            signer: self.keys.verifier().map(|v| v.to_hex()).unwrap_or_default(),
            statement: hex(&super::seal_statement::statement_id(&bytes)),
            seq: st.seq,
            bytes: hex(&bytes),
            mac: hex(&mac),
            commit: Some(commit),
            at: Timestamp::now().0,
            federation: on_disk.map(|r| r.federation).unwrap_or_default(),
            scope: None,
        };
        file.save(&record)?;
        self.check_fresh();
        Ok(record)
    }
}
