//! Building the catalog at open: each readable tier's snapshot (read and
//! decoded in parallel, one thread per tier), then the rows written since.

use rusqlite::params;

use super::catalog::Catalog;
use super::objects::Objects;
use super::schema::commit_seq;
use super::verified::VerifiedNodes;
use super::{Store, blob, row_edge_id, row_node_id, row_version};
use crate::codec::{self, Decode, Interner, Snapshot};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::Tier;

/// Where a tier's snapshot is.
struct SnapshotRef {
    tier: Tier,
    seq: u64,
    hash: String,
    mac: Option<Vec<u8>>,
}

impl Store {
    /// Decrypts everything this session can read, as of one consistent view of
    /// the index, and checks the index rows against their manifest in the
    /// same view. Returns the catalog, the commit it reflects and the
    /// verified node rows. CPU-heavy: see the benchmarks (about 0.2 s for
    /// 100k nodes and 500k edges).
    pub(super) fn load_catalog(&self, use_snapshots: bool) -> Result<(Catalog, u64, VerifiedNodes)> {
        // The manifest check runs beside the decoding, on its own read-only
        // connection; both must have read the same commit.
        std::thread::scope(|scope| {
            let (db, keys, file) = (self.layout.db(), &self.keys, self.db_file);
            let sealed = !self.unsealed;
            let track = self.track && sealed;
            let verifier = scope.spawn(move || verify_manifest(&db, file, keys, sealed, track));
            let (catalog, seen) = self.decode_catalog(use_snapshots)?;
            let (checked, verified) = verifier
                .join()
                .map_err(|_| Error::integrity("the index manifest", "its checking thread failed"))??;
            if checked != seen {
                // A commit landed between the two reads; the caller retries.
                return Err(Error::Stale);
            }
            Ok((catalog, seen, verified))
        })
    }

    fn decode_catalog(&self, use_snapshots: bool) -> Result<(Catalog, u64)> {
        let tx = self.conn.unchecked_transaction()?;
        let seen = commit_seq(&tx)?;
        let refs = if use_snapshots {
            self.snapshot_refs()?
        } else {
            Vec::new()
        };
        let mut since = [-1i64; 4];
        for r in &refs {
            since[r.tier.code() as usize] = i64::try_from(r.seq).unwrap_or(i64::MAX);
        }
        let parts = open_all(&self.keys, &self.objects, refs, self.decode)?;

        let mut later = Snapshot::default();
        let mut terms = Interner::for_decode(self.decode);
        let mut node_rows =
            tx.prepare("SELECT id, version, summary, digest FROM nodes WHERE tier = ?1 AND seq > ?2")?;
        let mut edge_rows = tx.prepare("SELECT id, sealed, digest FROM edges WHERE tier = ?1 AND seq > ?2")?;
        let mut group_rows = tx.prepare(&format!(
            "SELECT {} FROM edges WHERE tier = ?1 AND seq > ?2",
            super::edge_groups::COLUMNS
        ))?;
        let grouped = super::schema::grouped(&tx)?;
        for tier in Tier::ALL.into_iter().filter(|t| self.keys.reads(*t)) {
            let after = since[tier.code() as usize];
            let mut rows = node_rows.query(params![tier.code(), after])?;
            while let Some(row) = rows.next()? {
                let id = row_node_id(blob(row, 0)?)?;
                let version = row_version(row.get(1)?)?;
                let sealed = (blob(row, 2)?, row.get_ref(3)?);
                later.nodes.push(std::sync::Arc::new(open_node_row(
                    &self.keys, &id, version, tier, sealed, &mut terms,
                )?));
            }
            if !self.decode.edges() {
                continue;
            }
            if grouped {
                // In the order of their commits, then of their sources (a
                // group's id is a keyed hash, different in every store).
                let mut groups = Vec::new();
                let mut rows = group_rows.query(params![tier.code(), after])?;
                while let Some(row) = rows.next()? {
                    let row = super::edge_groups::GroupRow::read(row)?;
                    let (source, edges) = row.open(&self.keys, &mut terms)?;
                    groups.push((row.seq, source, edges));
                }
                groups.sort_unstable_by_key(|(seq, source, _)| (*seq, *source));
                later.edges.extend(groups.into_iter().flat_map(|(_, _, edges)| edges));
                continue;
            }
            let mut rows = edge_rows.query(params![tier.code(), after])?;
            while let Some(row) = rows.next()? {
                let id = row_edge_id(blob(row, 0)?)?;
                let sealed = (blob(row, 1)?, row.get_ref(2)?);
                later
                    .edges
                    .push(open_edge_row(&self.keys, &id, tier, sealed, &mut terms)?);
            }
        }
        Ok((Catalog::build(parts, later), seen))
    }

    fn snapshot_refs(&self) -> Result<Vec<SnapshotRef>> {
        let mut stmt = self.conn.prepare("SELECT tier, seq, blob, mac FROM snapshots")?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let tier = super::row_tier(row.get(0)?)?;
            let signed = row.get_ref(3)?.as_blob().is_ok();
            // A snapshot from before snapshots were signed is not used (the
            // rows are read instead) until the master rebuilds it.
            if self.keys.reads(tier) && (signed || self.keys.verifier().is_none()) {
                out.push(SnapshotRef {
                    tier,
                    seq: row_version(row.get(1)?)?,
                    hash: row.get(2)?,
                    mac: row.get(3)?,
                });
            }
        }
        Ok(out)
    }
}

/// A sealed summary and its row's digest column.
pub(super) type SealedRow<'r> = (&'r [u8], rusqlite::types::ValueRef<'r>);

/// A node row's summary, opened once its digest is the row's.
pub(super) fn open_node_row(
    keys: &Keyring,
    id: &crate::model::NodeId,
    version: u64,
    tier: Tier,
    (sealed, digest): SealedRow<'_>,
    terms: &mut Interner,
) -> Result<crate::model::NodeSummary> {
    super::manifest::check_digest(|| format!("index row of node {id}"), sealed, digest)?;
    codec::open_summary(keys, id, version, tier, sealed, terms)
}

/// An edge row's record, opened once its digest is the row's.
pub(super) fn open_edge_row(
    keys: &Keyring,
    id: &crate::model::EdgeId,
    tier: Tier,
    (sealed, digest): SealedRow<'_>,
    terms: &mut Interner,
) -> Result<crate::model::Edge> {
    super::manifest::check_digest(|| format!("edge {id}"), sealed, digest)?;
    codec::open_edge(keys, id, tier, sealed, terms)
}

fn open_one(keys: &Keyring, objects: &Objects, r: &SnapshotRef, what: Decode, buf: &mut Vec<u8>) -> Result<Snapshot> {
    objects.read_authenticated_later_into(&r.hash, buf)?;
    super::snapshot_sign::check_snapshot(keys, r.tier, r.seq, buf, r.mac.as_deref())?;
    codec::open_snapshot_in_buffer(keys, r.tier, r.seq, buf, what)
}

/// Reads and opens every snapshot on two threads, each reading its share
/// one after another through one buffer (wiped after each): the manifest
/// check runs beside them, so more threads would only compete for the
/// cores, and a buffer per tier was as many megabytes of fresh pages, each
/// a page fault. The snapshots come back in `refs`' order.
fn open_all(keys: &Keyring, objects: &Objects, refs: Vec<SnapshotRef>, what: Decode) -> Result<Vec<Snapshot>> {
    let in_turn = |share: &[usize]| -> Result<Vec<(usize, Snapshot)>> {
        let mut buf = Vec::new();
        share
            .iter()
            .map(|&i| Ok((i, open_one(keys, objects, &refs[i], what, &mut buf)?)))
            .collect()
    };
    // Shares of about equal bytes: each file, largest first, to the lighter.
    let mut by_size: Vec<(u64, usize)> = refs
        .iter()
        .enumerate()
        .map(|(i, r)| (objects.size(&r.hash).unwrap_or(0), i))
        .collect();
    by_size.sort_unstable_by(|a, b| b.cmp(a));
    let (mut shares, mut loads): ([Vec<usize>; 2], [u64; 2]) = Default::default();
    for (size, i) in by_size {
        let lighter = usize::from(loads[1] < loads[0]);
        loads[lighter] += size;
        shares[lighter].push(i);
    }
    let [mine, theirs] = &shares;
    let (theirs, mine) = crate::parallel::beside(!theirs.is_empty(), |_| in_turn(theirs), || in_turn(mine))?;
    let mut in_order = mine;
    in_order.extend(theirs);
    in_order.sort_unstable_by_key(|(i, _)| *i);
    Ok(in_order.into_iter().map(|(_, s)| s).collect())
}

/// Checks the manifest in a read transaction of its own; returns the commit
/// it saw.
fn verify_manifest(
    db: &std::path::Path,
    file: (u64, u64),
    keys: &Keyring,
    sealed: bool,
    track: bool,
) -> Result<(u64, VerifiedNodes)> {
    let open = || -> Result<rusqlite::Connection> {
        let conn = rusqlite::Connection::open_with_flags(
            db,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        super::schema::forbid_code(&conn)?;
        // The check must read the index the session reads, not a file put
        // in its place since.
        if super::file_id(db)? != file {
            return Err(Error::integrity(
                "graph.db",
                "the index file was replaced while the store was open",
            ));
        }
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(conn)
    };
    let conn = open()?;
    let tx = conn.unchecked_transaction()?;
    let seq = commit_seq(&tx)?;
    // Edge rows (most of them) on a thread of their own.
    Ok((
        seq,
        super::manifest::verify_with(&tx, keys, Some(&open), sealed, track)?,
    ))
}
