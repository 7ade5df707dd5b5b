//! The per-row work of a commit, spread over the cores for large ones:
//! node blobs are sealed and written on every core at once, and index
//! rows are sealed on a helper thread a chunk ahead of the one thread that
//! inserts them into the commit's transaction. Every blob and row is
//! sealed exactly as one at a time would seal it (its own data key, its
//! own nonce); only where the work runs changes.

use rusqlite::{Connection, params};

use super::edge_fold::{EdgeFold, EdgeTaggers};
use super::manifest::{self, RowKey, RowToken, Sum};
use super::objects::{Durability, Objects};
use super::plan::{Entries, Entry, NodeWrite};
use super::rowmac;
use super::seal::SealTagger;
use super::seal_timeline::{self, Covered};
use super::tokens::{edge_token, name_token};
use super::write::unique_violation;
use crate::codec;
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{Edge, NodeSummary};
use crate::parallel;

/// Seals each node's new version into its own blob file, on up to
/// `threads` threads, and returns the blob names, in order. Written
/// [`Durability::Deferred`]: the caller makes them durable (see
/// [`make_durable`]) before any index row names them.
pub(super) fn write_node_blobs(
    keys: &Keyring,
    objects: &Objects,
    nodes: &[NodeWrite],
    threads: usize,
) -> Result<Vec<String>> {
    parallel::map_on(threads, nodes, |w| {
        objects.write(&codec::encode_node(keys, &w.node)?, Durability::Deferred)
    })
}

/// Makes the blobs `hashes` (written deferred) durable, directory entries
/// included: each file and the directory synced for a few, one `syncfs`
/// for many. Only after this returns may an index transaction that names
/// them commit; a crash before leaves blobs nothing names, which are
/// harmless orphans, and never an index naming a blob the disk lost.
pub(super) fn make_durable<'a>(
    objects: &Objects,
    hashes: impl IntoIterator<Item = &'a str>,
    durability: Durability,
) -> Result<()> {
    match durability {
        Durability::Sync => objects.sync_files(hashes),
        Durability::Deferred => objects.sync_filesystem(),
    }
}

/// Rows from which a commit gets a larger SQLite page cache.
const BULK_ROWS: usize = 10_000;
/// Its size, in KiB (SQLite's negative `cache_size`).
const BULK_CACHE_KIB: i64 = 128 * 1024;
/// SQLite's default page cache, in KiB.
const DEFAULT_CACHE_KIB: i64 = 2000;

/// Widens the page cache for a commit of `rows` rows when it is large
/// (true then): its inserts land all over the blind-index token indexes,
/// and with the default 2 MB cache most would reread and spill pages.
/// [`restore_cache`] puts the default back, so an open store keeps its
/// small footprint.
pub(super) fn widen_cache(conn: &Connection, rows: usize) -> Result<bool> {
    if rows < BULK_ROWS {
        return Ok(false);
    }
    conn.pragma_update(None, "cache_size", -BULK_CACHE_KIB)?;
    Ok(true)
}

/// Back to the default page cache (freeing what the commit cached).
pub(super) fn restore_cache(conn: &Connection) {
    let _ = conn.pragma_update(None, "cache_size", -DEFAULT_CACHE_KIB);
}

/// A node row sealed, ready to insert.
struct SealedNode {
    token: Vec<u8>,
    summary: Vec<u8>,
    digest: [u8; 16],
    mac: Option<Vec<u8>>,
}

/// Inserts the index rows of `nodes` (whose blobs are `hashes`, in
/// order) at commit `row_seq`, noting each in `after`.
pub(super) fn insert_nodes(
    tx: &Connection,
    keys: &Keyring,
    nodes: &[NodeWrite],
    hashes: Vec<String>,
    row_seq: i64,
    after: &mut Vec<RowKey>,
) -> Result<()> {
    let mut upsert_node = tx.prepare_cached(
        "INSERT INTO nodes (id, tier, version, name_token, blob, summary, seq, digest)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(id) DO UPDATE SET tier = ?2, version = ?3, blob = ?5, summary = ?6, seq = ?7, digest = ?8",
    )?;
    let mut add_version =
        tx.prepare_cached("INSERT INTO node_versions (node_id, version, tier, blob, mac) VALUES (?1, ?2, ?3, ?4, ?5)")?;
    let rows: Vec<(&NodeWrite, String)> = nodes.iter().zip(hashes).collect();
    // A store at v11 keeps blob names as bytes and summaries without what
    // their associated data binds; older ones as older versions read them.
    let v11 = super::schema::grouped(tx)?;
    // Each row is sealed as it is inserted and only its key is kept: a
    // large import's sealed rows are never all held at once.
    parallel::pipeline(
        &rows,
        |_, (w, hash)| {
            let n = &w.node;
            let summary = if v11 {
                codec::seal_summary_lean(keys, &NodeSummary::from(n))?
            } else {
                codec::seal_summary(keys, &NodeSummary::from(n))?
            };
            Ok(SealedNode {
                token: name_token(keys, n.name.as_str())?,
                digest: manifest::digest(&summary),
                summary,
                mac: super::rowmac::version_mac(keys, &n.id, super::sql_version(n.version), n.tier, hash),
            })
        },
        |(w, hash), sealed| {
            let n = &w.node;
            let id = n.id.as_bytes().as_slice();
            let version = super::sql_version(n.version);
            let stored = super::blob_name::stored(v11, hash);
            upsert_node
                .execute(params![
                    id,
                    n.tier.code(),
                    version,
                    sealed.token,
                    stored,
                    sealed.summary,
                    row_seq,
                    sealed.digest.as_slice()
                ])
                .map_err(|e| unique_violation(e, n.name.as_str()))?;
            add_version.execute(params![id, version, n.tier.code(), stored, sealed.mac])?;
            after.push(RowKey::Node {
                id: n.id,
                tier: n.tier,
                version: n.version,
                blob: hash.as_str().into(),
                digest: sealed.digest,
                token: RowToken::of(&sealed.token),
            });
            Ok(())
        },
    )
}

/// An edge row sealed, ready to insert.
struct SealedEdge {
    token: Vec<u8>,
    sealed: Vec<u8>,
    digest: [u8; 16],
}

/// Inserts (or replaces) the index rows of `edges` (distinct ids) at
/// commit `seq`, counting each into `fold`; `describe` names an edge that
/// already exists.
pub(super) fn insert_edges(
    tx: &Connection,
    keys: &Keyring,
    edges: &[Edge],
    seq: u64,
    fold: &std::sync::Mutex<EdgeFold>,
    describe: &dyn Fn(&Edge) -> String,
) -> Result<()> {
    if edges.is_empty() {
        return Ok(());
    }
    let row_seq = super::sql_version(seq);
    let taggers = EdgeTaggers::new(keys)?;
    let mut upsert_edge = tx.prepare_cached(
        "INSERT INTO edges (id, tier, token, sealed, seq, digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(id) DO UPDATE SET tier = ?2, sealed = ?4, seq = ?5, digest = ?6",
    )?;
    parallel::pipeline(
        edges,
        |_, e| {
            let sealed = codec::seal_edge(keys, e)?;
            let row = SealedEdge {
                token: edge_token(keys, e)?,
                digest: manifest::digest(&sealed),
                sealed,
            };
            // Counted here, on the sealing thread: the inserting one is
            // the slower.
            let key = RowKey::Edge {
                id: e.id,
                tier: e.tier,
                seq,
                digest: row.digest,
                token: RowToken::of(&row.token),
                edges: 1,
                grouped: false,
            };
            super::edge_fold::add_shared(fold, &taggers, &key)?;
            Ok(row)
        },
        |e, row| {
            upsert_edge
                .execute(params![
                    e.id.as_bytes().as_slice(),
                    e.tier.code(),
                    row.token,
                    row.sealed,
                    row_seq,
                    row.digest.as_slice()
                ])
                .map_err(|err| match err {
                    rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                        Error::EdgeExists(describe(e))
                    }
                    other => Error::Db(other),
                })?;
            Ok(())
        },
    )
}

/// Timeline rows made and inserted at a time by a commit to a v9 store.
const SLICE: usize = if cfg!(test) { 8 } else { 1 << 16 };

/// Inserts one commit's timeline rows, one per entry of `entries` (packed,
/// see `timeline_pack`, in a store at v10), each stored row with its MAC
/// (made on the helper thread: it covers the row's place).
/// The helper also tags each row for the master's seal, under the number
/// the row is to get; when every row got it, the rows and the sum of their
/// tags are returned, so the seal need not read them back (see
/// `seal_timeline::cover_known`).
pub(super) fn insert_timeline(
    tx: &Connection,
    keys: &Keyring,
    entries: &Entries,
    actor: &str,
    proposal: Option<&str>,
    now: i64,
    row_seq: i64,
) -> Result<Option<Covered>> {
    let row = |en: &Entry| rowmac::TimelineRow {
        at: now,
        actor: actor.to_owned(),
        action: en.action.to_string(),
        node: en.node.as_ref().map(|i| i.as_bytes().to_vec()),
        edge: en.edge.as_ref().map(|i| i.as_bytes().to_vec()),
        before: en.before.map(super::sql_version),
        after: en.after.map(super::sql_version),
        proposal: proposal.map(str::to_owned),
        commit: Some(row_seq),
    };
    let (logical, rows): (usize, Box<dyn Iterator<Item = rowmac::TimelineRow> + '_>) = match entries {
        Entries::Listed(list) => (list.len(), Box::new(list.iter().map(row))),
        Entries::Batch { nodes, edges } => {
            let adds = nodes.iter().map(|w| row(&Entry::node("add", w.node.id, None, Some(1))));
            let links = edges.iter().map(move |e| row(&Entry::edge("link", e.id)));
            (nodes.len() + edges.len(), Box::new(adds.chain(links)))
        }
    };
    // Packed at v10 (a few rows, held at once); at v9 one row an entry,
    // made and inserted a slice at a time.
    let (count, mut rows): (usize, Box<dyn Iterator<Item = rowmac::TimelineRow> + '_>) = if super::schema::lean(tx)? {
        let stored = super::timeline_pack::pack(rows);
        (stored.len(), Box::new(stored.into_iter()))
    } else {
        (logical, rows)
    };
    let mut put = rowmac::timeline_insert(tx)?;
    // The number before the first row's (AUTOINCREMENT: past every number
    // ever used).
    let base: i64 = tx.query_row(
        "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'timeline'), 0),
                    COALESCE((SELECT MAX(seq) FROM timeline), 0))",
        [],
        |r| r.get(0),
    )?;
    let tagger = keys.seal().map(|s| SealTagger::new(s.mac_key()));
    let mut sum = Sum::default();
    let mut numbered = true;
    let produce = |i: usize, row: &rowmac::TimelineRow| {
        let mac = rowmac::timeline_mac(keys, row, i, count);
        let seq = base + i as i64 + 1;
        let tag = tagger.as_ref().map(|t| t.timeline(seq, &seal_timeline::fields(row)));
        Ok((mac, seq, tag))
    };
    let mut done = 0;
    loop {
        let slice: Vec<rowmac::TimelineRow> = rows.by_ref().take(SLICE).collect();
        if slice.is_empty() {
            break;
        }
        let at = done;
        parallel::pipeline(
            &slice,
            |i, row| produce(at + i, row),
            |row, (mac, seq, tag)| {
                rowmac::put_timeline_row(&mut put, row, mac)?;
                numbered &= tx.last_insert_rowid() == seq;
                if let Some(tag) = tag {
                    sum.add(&tag, 1);
                }
                Ok(())
            },
        )?;
        done += slice.len();
    }
    Ok((numbered && tagger.is_some() && count > 0).then_some(Covered {
        first: base + 1,
        last: base + count as i64,
        sum,
    }))
}
