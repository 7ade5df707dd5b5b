//! The index schema and its migrations, tracked in SQLite's `user_version`.
//!
//! Nothing in the index is plaintext content of a non-public node: rows hold
//! ids, tiers, versions, blob hashes, blind-index tokens and sealed records.

use rusqlite::{Connection, OptionalExtension};

#[cfg(test)]
pub(crate) use super::schema_v10::V10_EMPTY;
pub use super::schema_v10::{grouped, lean, relayout};
use crate::error::{Error, Result};

/// The schema version this program writes: a new store is made at it, and
/// `graphex migrate` brings a store at [`UNMIGRATED_SCHEMA`] or
/// [`LEAN_SCHEMA`] to it. v11 holds edges in groups (see `edge_groups`).
pub const SCHEMA_VERSION: u32 = 11;

/// The lean layout (see `schema_v10`), one edge a row.
pub const LEAN_SCHEMA: u32 = 10;

/// The newest schema an open brings an older store to by itself: v10 changes
/// only how the rows are laid out (see [`V10`]), which rewrites the whole file,
/// so it waits for `graphex migrate`. A store at v9 reads and writes as at v10.
pub const UNMIGRATED_SCHEMA: u32 = 9;

/// The timeline's actions a bulk write makes by the thousand: the action
/// index leaves them out, and a query that uses the index names this term.
pub const RARE_ACTION: &str = "action NOT IN ('add', 'link', 'update')";

/// The time of the last change: the newest timeline row's.
pub const LAST_CHANGE: &str = "SELECT at FROM timeline ORDER BY seq DESC LIMIT 1";

pub(super) const V1: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- One row per node: its current version. name_token is the keyed blind index
-- of the name (unique across all tiers); summary is sealed under the tier.
CREATE TABLE nodes (
    id         BLOB PRIMARY KEY,
    tier       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    name_token BLOB NOT NULL UNIQUE,
    blob       TEXT NOT NULL,
    summary    BLOB NOT NULL,
    seq        INTEGER NOT NULL
);
-- Every version of every node, for history; each blob is sealed under the
-- tier recorded here.
CREATE TABLE node_versions (
    node_id BLOB NOT NULL,
    version INTEGER NOT NULL,
    tier    INTEGER NOT NULL,
    blob    TEXT NOT NULL,
    PRIMARY KEY (node_id, version)
);
-- Edges are sealed whole: endpoints and relation included.
CREATE TABLE edges (
    id     BLOB PRIMARY KEY,
    tier   INTEGER NOT NULL,
    token  BLOB NOT NULL UNIQUE,
    sealed BLOB NOT NULL,
    seq    INTEGER NOT NULL
);
-- seq is the commit that last wrote a row; (tier, seq) finds what changed in
-- a tier since its snapshot, and counts per tier without a sort.
CREATE INDEX nodes_by_tier ON nodes (tier, seq);
CREATE INDEX edges_by_tier ON edges (tier, seq);
-- One sealed image (an object file) of each tier's summaries and edges as of
-- commit seq: a cache that makes opening a large store fast. Deleted when a
-- node or edge enters or leaves the tier.
CREATE TABLE snapshots (
    tier INTEGER PRIMARY KEY,
    seq  INTEGER NOT NULL,
    blob TEXT NOT NULL,
    rows INTEGER NOT NULL
);
-- The audit log of projections: each record sealed under the projection's
-- tier, chained by hash over the sealed bytes (verifiable without keys).
CREATE TABLE audit (
    seq    INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    kind   TEXT NOT NULL,
    tier   INTEGER NOT NULL,
    sealed BLOB NOT NULL,
    prev   TEXT NOT NULL,
    hash   TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('commit_seq', '0');
-- Who changed what, when: ids and versions only, never content.
CREATE TABLE timeline (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    at             INTEGER NOT NULL,
    actor          TEXT NOT NULL,
    action         TEXT NOT NULL,
    node_id        BLOB,
    edge_id        BLOB,
    before_version INTEGER,
    after_version  INTEGER
);
";

/// Proposal decisions, and the proposal and commit of each timeline row.
const V2: &str = "
-- One row per decided proposal; deleting the row (undo) puts the proposal
-- back in the queue. sealed holds the outcome's details under the
-- agent-readable tier, so the proposing agent can read why.
CREATE TABLE decisions (
    proposal TEXT PRIMARY KEY,
    seq      INTEGER NOT NULL,
    at       INTEGER NOT NULL,
    outcome  TEXT NOT NULL,
    sealed   BLOB NOT NULL
);
CREATE INDEX decisions_by_seq ON decisions (seq);
ALTER TABLE timeline ADD COLUMN proposal TEXT;
ALTER TABLE timeline ADD COLUMN commit_seq INTEGER;
CREATE INDEX timeline_by_node ON timeline (node_id);
CREATE INDEX timeline_by_proposal ON timeline (proposal);
";

/// The authenticated manifest of the index rows (see `manifest`).
const V3: &str = "
-- Per group of tiers: the number of rows and the XOR of their keyed tags,
-- under a MAC with the group's key.
CREATE TABLE manifest (
    grp   INTEGER PRIMARY KEY,
    count INTEGER NOT NULL,
    acc   BLOB NOT NULL,
    mac   BLOB NOT NULL
);
-- A digest (SHA-256, 16 bytes) of each row's sealed record: a node's
-- summary, an edge. The manifest's row tags cover it and decoding checks
-- it, so even a record sealed under the public key (which is in the clear)
-- cannot be replaced. The tier indexes cover what the manifest check reads,
-- so it scans them instead of the rows (several times larger).
ALTER TABLE nodes ADD COLUMN digest BLOB;
ALTER TABLE edges ADD COLUMN digest BLOB;
DROP INDEX nodes_by_tier;
DROP INDEX edges_by_tier;
CREATE INDEX nodes_by_tier ON nodes (tier, seq, id, version, blob, digest);
CREATE INDEX edges_by_tier ON edges (tier, seq, id, digest);
-- The public snapshot's MAC under the readable group's manifest key (its
-- own key is in the clear; see `manifest`).
ALTER TABLE snapshots ADD COLUMN mac BLOB;
";

/// The master's seal on the index (see `seal`).
const V4: &str = "
-- One row: the master's statement over the index at the last commit, its
-- MAC under a key derived from the master identity, and its Ed25519
-- signature by the master (checked by agents); readable is the set hash
-- of the public and agent-readable rows (its digest is in the statement),
-- kept so the master updates it by what each commit changes.
CREATE TABLE seal (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    statement BLOB NOT NULL,
    mac       BLOB NOT NULL,
    sig       BLOB NOT NULL,
    readable  BLOB NOT NULL
);
-- The seal's row tags cover the blind-index tokens: the tier indexes carry
-- them so the check still scans the indexes only.
DROP INDEX nodes_by_tier;
DROP INDEX edges_by_tier;
CREATE INDEX nodes_by_tier ON nodes (tier, seq, id, version, blob, digest, name_token);
CREATE INDEX edges_by_tier ON edges (tier, seq, id, digest, token);
-- History and timeline rows carry the master's MAC (see `rowmac`).
ALTER TABLE node_versions ADD COLUMN mac BLOB;
ALTER TABLE timeline ADD COLUMN mac BLOB;
-- Each decision signed by the master: an agent reads outcomes and reasons
-- it could otherwise forge for another agent under its own key.
ALTER TABLE decisions ADD COLUMN sig BLOB;
-- snapshots.mac now holds the master's signature; the MACs of v3 are
-- dropped and those snapshots rebuilt by the next master-level session.
UPDATE snapshots SET mac = NULL;
";

/// Edges removed by `unlink`, kept for `undo` (see `unlinked`).
const V5: &str = "
-- One row per edge an unlink removed: the edge's record sealed as its
-- index row was (under the edge's tier, bound to its id and tier), with
-- the master's MAC, so an undo can put exactly that edge back.
CREATE TABLE unlinked (
    edge_id BLOB PRIMARY KEY,
    tier    INTEGER NOT NULL,
    sealed  BLOB NOT NULL,
    mac     BLOB
);
";

/// Saved queries (see `saved`).
const V6: &str = "
-- One row per saved query: token is the blind-index token of its name
-- (under the master's blind key), sealed its name, text and time under a
-- key derived from the master identity, bound to the token. The master's
-- seal covers every row (count and XOR of master-keyed tags).
CREATE TABLE saved_queries (
    token  BLOB PRIMARY KEY,
    sealed BLOB NOT NULL
);
";

/// Merge conflicts (see `merge`).
const V7: &str = "
-- One row per node that a merge of two branches found changed on both:
-- the ours node (kept as the current version) and the other branch's
-- version of it, by its blob (sealed under its tier, bound to its id and
-- version), for review as a merge proposal. mac is the master's MAC over
-- the whole row; the merge commit's timeline names each row too, so a row
-- deleted outside Graphex is caught.
CREATE TABLE merge_conflicts (
    node_id        BLOB PRIMARY KEY,
    theirs_id      BLOB NOT NULL,
    theirs_version INTEGER NOT NULL,
    theirs_tier    INTEGER NOT NULL,
    theirs_blob    TEXT NOT NULL,
    base_version   INTEGER,
    branch         TEXT NOT NULL,
    commit_seq     INTEGER NOT NULL,
    at             INTEGER NOT NULL,
    mac            BLOB
);
-- The merge commits' rows, found without a scan of the whole timeline.
CREATE INDEX timeline_by_action ON timeline (action);
";

/// The statements the seal held (see `seal_log`).
const V8: &str = "
-- Every statement the seal held before its current one, by its id (a hash
-- of its bytes): each statement names the ones it follows, so whether the
-- index moved forward from a statement seen earlier can be told.
CREATE TABLE seal_log (
    id        BLOB PRIMARY KEY,
    statement BLOB NOT NULL
);
";

/// The time of the last change found without a scan of the whole timeline
/// (`status` asks for it on every open).
const V9: &str = "
CREATE INDEX timeline_by_at ON timeline (at);
";

/// The schema version before the master's seal existed: a store migrated
/// from below it has no seal yet, by its schema (see `Store::seal`).
pub const FIRST_SEALED_SCHEMA: u32 = 4;

/// The value of `key` in `meta`, if set.
pub fn meta(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

/// The number of the last commit.
pub fn commit_seq(conn: &Connection) -> Result<u64> {
    let v: String = conn.query_row("SELECT value FROM meta WHERE key = 'commit_seq'", [], |r| r.get(0))?;
    v.parse()
        .map_err(|_| Error::integrity("index", format!("commit counter {v:?} is not a number")))
}

/// Advances the commit counter (inside the commit's transaction) and returns
/// the new value.
pub fn next_commit_seq(conn: &Connection) -> Result<u64> {
    let next = commit_seq(conn)? + 1;
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'commit_seq'",
        [next.to_string()],
    )?;
    Ok(next)
}

/// Adds `counts` (per tier code) to the sealings each tier key has made,
/// inside the caller's transaction. AES-GCM with random nonces is safe up
/// to a bounded number of messages per key; `doctor` compares these counts
/// with that bound.
pub fn count_sealings(conn: &Connection, counts: [u64; 4]) -> Result<()> {
    let mut add = conn.prepare_cached(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + ?2 AS TEXT)",
    )?;
    for (code, n) in counts.iter().enumerate() {
        if *n > 0 {
            add.execute(rusqlite::params![
                format!("sealings:{code}"),
                i64::try_from(*n).unwrap_or(i64::MAX)
            ])?;
        }
    }
    Ok(())
}

/// The sealings counted per tier code, `None` for a store that has no
/// count yet (made before counting began).
pub fn sealings(conn: &Connection) -> Result<Option<[u64; 4]>> {
    let mut stmt = conn.prepare("SELECT key, value FROM meta WHERE key LIKE 'sealings:%'")?;
    let mut rows = stmt.query([])?;
    let mut out = [0u64; 4];
    let mut any = false;
    while let Some(r) = rows.next()? {
        let (key, value): (String, String) = (r.get(0)?, r.get(1)?);
        let code = key.strip_prefix("sealings:").and_then(|c| c.parse::<usize>().ok());
        if let (Some(slot), Ok(n)) = (code.and_then(|c| out.get_mut(c)), value.parse()) {
            *slot = n;
            any = true;
        }
    }
    Ok(any.then_some(out))
}

/// Whether `conn` is another tool's database (gpp-cli keeps its own at
/// the same path): tables without a schema version of ours, or a version
/// without our `meta` table and our blind-indexed `nodes`. Checked before
/// anything is written to it (the WAL switch included).
pub fn foreign(conn: &Connection) -> Result<bool> {
    let count = |sql: &str| -> Result<i64> { Ok(conn.query_row(sql, [], |r| r.get(0))?) };
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version == 0 {
        return Ok(count("SELECT count(*) FROM sqlite_master WHERE type = 'table'")? > 0);
    }
    let has_meta = count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")? == 1;
    let ours = has_meta && conn.prepare("SELECT name_token FROM nodes LIMIT 0").is_ok();
    Ok(!ours)
}

/// Refuses an index holding SQL that runs by itself (a trigger or a view):
/// Graphex makes none, and one written outside Graphex would run inside a
/// master's transaction, before the seal is computed over what it did.
/// Checked before anything is written.
pub fn refuse_code(conn: &Connection) -> Result<()> {
    let found: Option<(String, String)> = conn
        .query_row(
            "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match found {
        None => Ok(()),
        Some((kind, name)) => Err(Error::integrity(
            "graph.db",
            format!(
                "it holds the SQL {kind} {:?}, which Graphex never makes: written outside Graphex; nothing was \
                 written or run (see `graphex doctor`)",
                crate::hygiene::visible_line(&name)
            ),
        )),
    }
}

/// Turns off, on this connection, what in a database file could run code:
/// triggers and views never fire or expand (Graphex makes none, so one
/// added outside Graphex, even while a session is open, does nothing), and
/// functions named in the schema run without side effects. Refused writes
/// to the schema tables too (SQLite's defensive mode).
pub fn forbid_code(conn: &Connection) -> Result<()> {
    use rusqlite::config::DbConfig;
    // No value read from the file is larger than this (the largest Graphex
    // writes are audit records of a few KiB and packed timeline rows of
    // 64 KiB): one written outside Graphex is refused by SQLite before it
    // is loaded, not read into memory up to SQLite's own 1 GB.
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    Ok(())
}

/// The largest string or blob a connection to an index reads or writes.
pub const MAX_VALUE: i32 = 64 << 20;

/// The page size of a new index. Opening reads every row of the tier
/// indexes (the manifest check): at SQLite's default 4 KiB that is a read
/// call per 4 KiB, about a quarter of `status`'s time on a 100k-node store;
/// 16 KiB pages take a quarter of the calls, and a commit writes a few more
/// bytes to the WAL. (A store made before keeps its pages.)
pub const PAGE_SIZE: u32 = 16 << 10;

/// Sets the page size of a database file that holds nothing yet: before
/// anything (WAL mode included) is written to it.
pub fn new_file(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "page_size", PAGE_SIZE)?;
    Ok(())
}

/// Sets the connection's pragmas: WAL, full sync, secure delete, busy timeout.
pub fn configure(conn: &Connection) -> Result<()> {
    forbid_code(conn)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    // Deleted and overwritten cells are zeroed, so a raised tier leaves no old
    // ciphertext readable with a lower key in free pages.
    conn.pragma_update(None, "secure_delete", "ON")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Brings the schema up to [`SCHEMA_VERSION`] in one transaction, or refuses
/// a database written by a newer program.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    let found: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    if found >= UNMIGRATED_SCHEMA {
        return Ok(());
    }
    let tx = conn.transaction()?;
    if found < 1 {
        tx.execute_batch(V1)?;
    }
    if found < 2 {
        tx.execute_batch(V2)?;
    }
    if found < 3 {
        tx.execute_batch(V3)?;
    }
    if found < 4 {
        tx.execute_batch(V4)?;
    }
    if found < 5 {
        tx.execute_batch(V5)?;
    }
    if found < 6 {
        tx.execute_batch(V6)?;
    }
    if found < 7 {
        tx.execute_batch(V7)?;
    }
    if found < 8 {
        tx.execute_batch(V8)?;
    }
    if found < 9 {
        tx.execute_batch(V9)?;
    }
    // A new store is laid out as today's; an older one stops at v9 (see
    // [`UNMIGRATED_SCHEMA`]).
    let reached = if found == 0 {
        tx.execute_batch(super::schema_v10::V10)?;
        tx.execute_batch(&super::schema_v10::rare_action_index())?;
        tx.execute_batch(super::schema_v10::V11)?;
        SCHEMA_VERSION
    } else {
        UNMIGRATED_SCHEMA
    };
    // The lowest version this store was migrated from: a store from before
    // the seal may be sealed as it is (`Store::seal`), by its schema alone.
    if found > 0 {
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('migrated_from', ?1)
             ON CONFLICT(key) DO UPDATE SET value = MIN(CAST(value AS INTEGER), CAST(?1 AS INTEGER))",
            [found.to_string()],
        )?;
    }
    tx.pragma_update(None, "user_version", reached)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        assert!(matches!(migrate(&mut conn), Err(Error::SchemaTooNew { .. })));
    }

    #[test]
    fn version_one_gains_decisions_and_keeps_rows() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(V1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO timeline (at, actor, action) VALUES (5, 'human', 'add')",
            [],
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let (action, proposal): (String, Option<String>) = conn
            .query_row("SELECT action, proposal FROM timeline", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((action.as_str(), proposal), ("add", None));
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM decisions", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
    }

    /// The plan SQLite makes for `sql` on `conn`, one step a line.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let steps = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        steps.map(Result::unwrap).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn the_last_update_is_the_newest_row_read_without_a_sort() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        // The newest row by its number: read from the end, never sorted.
        let plan = plan(&conn, LAST_CHANGE);
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }

    #[test]
    fn a_value_larger_than_any_graphex_writes_is_refused_not_loaded() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (v BLOB)").unwrap();
        let big = i64::from(MAX_VALUE) + 1;
        conn.execute("INSERT INTO t VALUES (zeroblob(?1))", [big]).unwrap();
        forbid_code(&conn).unwrap();
        let read = conn.query_row("SELECT v FROM t", [], |r| r.get::<_, Vec<u8>>(0));
        assert!(read.is_err(), "a {big}-byte value is refused");
        let fits = conn.execute("INSERT INTO t VALUES (zeroblob(?1))", [1i64 << 20]);
        assert!(fits.is_ok(), "a MiB, far above what Graphex writes, fits: {fits:?}");
    }

    #[test]
    fn a_new_file_takes_the_larger_pages_and_an_existing_one_keeps_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.db");
        let conn = Connection::open(&path).unwrap();
        new_file(&conn).unwrap();
        configure(&conn).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        let size = |c: &Connection| -> u32 { c.pragma_query_value(None, "page_size", |r| r.get(0)).unwrap() };
        assert_eq!(size(&conn), PAGE_SIZE);
        drop(conn);
        let old = dir.path().join("old.db");
        let conn = Connection::open(&old).unwrap();
        configure(&conn).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(conn);
        let conn = Connection::open(&old).unwrap();
        new_file(&conn).unwrap();
        assert_eq!(size(&conn), 4096, "a database with content keeps its page size");
    }
}
