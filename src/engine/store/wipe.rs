//! Old copies owed deletion after a tier raise.
//!
//! Raising a node's tier re-encrypts its every version under the higher
//! key; the old files, readable with the lower key (the public one is in
//! the clear), are deleted once the commit lands. A crash between the
//! commit and the deletion would leave them behind with nothing naming
//! them, so the commit itself records them (`meta.wipe_owed`) and the next
//! open of the store, at any level, finishes the job, as a key rotation's
//! next open does.

use rusqlite::{Connection, OptionalExtension};

use super::Store;
use crate::error::Result;

const KEY: &str = "wipe_owed";

/// Records `hashes` as owed deletion, inside the commit's transaction.
pub(super) fn owe<'a>(tx: &Connection, hashes: impl Iterator<Item = &'a String>) -> Result<()> {
    let mut list: Vec<String> = super::schema::meta(tx, KEY)?
        .map(|v| v.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    list.extend(hashes.cloned());
    if !list.is_empty() {
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
            rusqlite::params![KEY, list.join(" ")],
        )?;
    }
    Ok(())
}

/// Whether a blob is still named by the index (then it is not owed: the
/// list was written by someone else than a commit).
fn named(conn: &Connection, hash: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM node_versions WHERE blob IN (?1, unhex(?1))
             UNION ALL SELECT 1 FROM nodes WHERE blob IN (?1, unhex(?1))
             UNION ALL SELECT 1 FROM snapshots WHERE blob = ?1 LIMIT 1",
        )?
        .query_row([hash], |_| Ok(()))
        .optional()?
        .is_some())
}

impl Store {
    /// Deletes the old copies a tier raise left, if any: right after its
    /// commit (`checked` false: the commit just stopped naming them), or at
    /// the next open after a crash (`checked`: a file the index still names
    /// is never deleted, whoever wrote the list). Returns how many files
    /// went. Failures leave the list for the next open. The caller purges
    /// the WAL, where the old rows' pages may still be.
    pub(super) fn finish_wipe(&self, checked: bool) -> Result<usize> {
        let Some(list) = super::schema::meta(&self.conn, KEY)? else {
            return Ok(0);
        };
        let mut removed = 0;
        let mut left = false;
        for hash in list.split_whitespace() {
            let valid = super::objects::is_blob_name(hash);
            if !valid || (checked && named(&self.conn, hash)?) {
                continue;
            }
            match self.objects.remove(hash) {
                Ok(()) => removed += 1,
                Err(_) => left = true,
            }
        }
        if !left {
            self.conn.execute("DELETE FROM meta WHERE key = ?1", [KEY])?;
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{creds, new_store};
    use super::super::*;
    use super::KEY;
    use crate::model::{Name, NewNode, NodePatch, NodeType};

    fn blobs_of(s: &Store) -> Vec<String> {
        let mut st = s
            .conn
            .prepare(&format!(
                "SELECT {} FROM node_versions",
                super::super::blob_name::BLOB_NAME
            ))
            .unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn a_crash_after_a_tier_raise_is_finished_by_the_next_open() {
        let (_dir, root) = new_store();
        let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        s.add_node(NewNode::new(
            Name::new("svc").unwrap(),
            NodeType::new("service").unwrap(),
            "public words",
            Tier::Public,
        ))
        .unwrap();
        let patch = NodePatch {
            description: Some("second public words".into()),
            ..NodePatch::default()
        };
        s.update_node("svc", &patch).unwrap();
        let old = blobs_of(&s);
        let id = s.summary("svc").unwrap().id;
        s.inject_fault("after-commit");
        let raise = NodePatch {
            tier: Some(Tier::AgentRestricted),
            ..NodePatch::default()
        };
        s.update_node("svc", &raise).unwrap();
        drop(s);
        // The crash left the old versions, and the public key (in the clear)
        // opens them: what the raise was meant to take away.
        let public = Keyring::unlock(&Layout::new(&root).keys(), &Credentials::none()).unwrap();
        let objects = crate::store::Objects::new(Layout::new(&root).objects());
        for (v, hash) in old.iter().enumerate() {
            let bytes = objects.read(hash).unwrap();
            let node = codec::decode_node(&public, &id, v as u64 + 1, Tier::Public, &bytes).unwrap();
            assert!(node.description.contains("public words"));
        }
        // The next open, even without keys, finishes the raise.
        let s = Store::open(&root, &creds(Level::Locked, &root)).unwrap();
        for hash in &old {
            assert!(!objects.exists(hash), "{hash} still there");
        }
        assert_eq!(schema::meta(&s.conn, KEY).unwrap(), None);
        drop(s);
        let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        assert_eq!(s.node("svc").unwrap().description, "second public words");
        assert_eq!(s.node_version(&id, 1).unwrap().description, "public words");
    }

    #[test]
    fn a_forged_list_never_deletes_a_blob_the_index_names() {
        let (_dir, root) = new_store();
        let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        s.add_node(NewNode::new(
            Name::new("svc").unwrap(),
            NodeType::new("service").unwrap(),
            "words",
            Tier::AgentReadable,
        ))
        .unwrap();
        let live = blobs_of(&s);
        s.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                rusqlite::params![KEY, format!("{} ../../etc/passwd", live.join(" "))],
            )
            .unwrap();
        drop(s);
        let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        assert_eq!(s.node("svc").unwrap().description, "words");
        assert!(live.iter().all(|h| s.objects.exists(h)));
    }
}
