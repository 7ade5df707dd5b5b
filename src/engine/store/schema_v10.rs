//! Schema v10, the lean layout (see `schema`): the same rows as v9, keyed
//! by their ids, with slimmer indexes and packed timeline rows. A new store
//! is made at it; `graphex migrate` lays a v9 store out anew ([`relayout`]).

use rusqlite::Connection;

use super::schema::{LEAN_SCHEMA, RARE_ACTION, SCHEMA_VERSION, UNMIGRATED_SCHEMA};
use crate::error::{Error, Result};

/// The lean layout (v10), the same rows and columns as v9. Nodes, edges and
/// node versions are keyed by their id (`WITHOUT ROWID`: no hidden row number
/// and no second index of the id); names and edges are unique by the first
/// 16 bytes of their blind-index tokens (128 bits: a false "already there"
/// is as likely as guessing a key), which is what their unique indexes hold
/// (the rows keep whole tokens, which the tags cover, so a lookup names both:
/// [`NAME_LOOKUP`]); the tier indexes hold `(tier, seq)` only,
/// so the manifest check reads the rows themselves; the timeline keeps an
/// index of its node rows and of its rare actions only (the last change is
/// the last row; a date for `--as-of` is found by a scan), and of the rows
/// that pack several nodes' (see `timeline_pack`: only a v10 store packs).
/// The columns keep v9's order. Written for a v9 store: a new store runs it
/// on empty tables.
pub(super) const V10: &str = "
CREATE TABLE nodes_v10 (
    id         BLOB PRIMARY KEY,
    tier       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    name_token BLOB NOT NULL,
    blob       TEXT NOT NULL,
    summary    BLOB NOT NULL,
    seq        INTEGER NOT NULL,
    digest     BLOB
) WITHOUT ROWID;
INSERT INTO nodes_v10 SELECT id, tier, version, name_token, blob, summary, seq, digest FROM nodes ORDER BY id;
DROP TABLE nodes;
ALTER TABLE nodes_v10 RENAME TO nodes;
CREATE UNIQUE INDEX nodes_by_name ON nodes (substr(name_token, 1, 16));
CREATE INDEX nodes_by_tier ON nodes (tier, seq);
CREATE TABLE node_versions_v10 (
    node_id BLOB NOT NULL,
    version INTEGER NOT NULL,
    tier    INTEGER NOT NULL,
    blob    TEXT NOT NULL,
    mac     BLOB,
    PRIMARY KEY (node_id, version)
) WITHOUT ROWID;
INSERT INTO node_versions_v10 SELECT node_id, version, tier, blob, mac FROM node_versions ORDER BY node_id, version;
DROP TABLE node_versions;
ALTER TABLE node_versions_v10 RENAME TO node_versions;
CREATE TABLE edges_v10 (
    id     BLOB PRIMARY KEY,
    tier   INTEGER NOT NULL,
    token  BLOB NOT NULL,
    sealed BLOB NOT NULL,
    seq    INTEGER NOT NULL,
    digest BLOB
) WITHOUT ROWID;
INSERT INTO edges_v10 SELECT id, tier, token, sealed, seq, digest FROM edges ORDER BY id;
DROP TABLE edges;
ALTER TABLE edges_v10 RENAME TO edges;
CREATE UNIQUE INDEX edges_by_token ON edges (substr(token, 1, 16));
CREATE INDEX edges_by_tier ON edges (tier, seq);
DROP INDEX IF EXISTS timeline_by_at;
DROP INDEX IF EXISTS timeline_by_proposal;
DROP INDEX IF EXISTS timeline_by_node;
DROP INDEX IF EXISTS timeline_by_action;
CREATE INDEX timeline_by_node ON timeline (node_id) WHERE length(node_id) = 16;
DROP INDEX IF EXISTS timeline_packed_nodes;
CREATE INDEX timeline_packed_nodes ON timeline (after_version) WHERE length(node_id) > 16;
";

/// Schema v11 on v10's tables: edges held in groups (see `edge_groups`),
/// whose tokens are inside the rows, so the index of tokens goes.
pub(super) const V11: &str = "DROP INDEX edges_by_token;";

/// A new store, before any edge is written, laid out as v10 (one edge a
/// row): how tests make a store as an older graphex did.
#[cfg(test)]
pub(crate) const V10_EMPTY: &str = include_str!("testdata/v10_empty.sql");

/// A node's id by its name's token, through the unique index of v10 (or
/// v9's of whole tokens).
pub const NAME_LOOKUP: &str =
    "SELECT id FROM nodes WHERE substr(name_token, 1, 16) = substr(?1, 1, 16) AND name_token = ?1";

/// The partial index of the timeline's rare actions (see [`RARE_ACTION`]).
pub(super) fn rare_action_index() -> String {
    format!("CREATE INDEX timeline_by_action ON timeline (action) WHERE {RARE_ACTION};")
}

/// Whether the store is laid out as v10 already (by its schema version).
pub fn lean(conn: &Connection) -> Result<bool> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(version >= LEAN_SCHEMA)
}

/// Whether the store holds its edges in groups (v11, see `edge_groups`).
pub fn grouped(conn: &Connection) -> Result<bool> {
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(version >= SCHEMA_VERSION)
}

/// What [`relayout`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relayout {
    /// A v9 store laid out as v10.
    pub laid_out: bool,
    /// The file rewritten without its free pages (`VACUUM`).
    pub compacted: bool,
    /// Another connection (an unlock session, a console) read the store
    /// while it was rewritten: the write-ahead log holds the new file until
    /// that connection lets go, and `graph.db` shrinks then.
    pub log_pending: bool,
}

/// Whether a tenth or more of the file is free pages (what a `VACUUM`
/// drops): a store in use always holds some, a layout whose rewrite failed
/// for want of room a third.
pub fn worth_compacting(conn: &Connection) -> Result<bool> {
    let free: i64 = conn.pragma_query_value(None, "freelist_count", |r| r.get(0))?;
    let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
    Ok(free > 0 && free * 10 >= pages)
}

/// Lays a v9 store out as v10 (see [`V10`]) in one transaction, then
/// rewrites the file without the pages the old layout freed (`VACUUM`) and
/// truncates the write-ahead log. A store at v10 already is only compacted,
/// when a tenth of it is free pages (a rewrite that failed for want of
/// room, run again). Every row is kept as it was: the seal, the manifest and the row
/// MACs cover rows, not where they lie.
pub fn relayout(conn: &mut Connection) -> Result<Relayout> {
    let found: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut done = Relayout::default();
    if found < LEAN_SCHEMA {
        if found != UNMIGRATED_SCHEMA {
            return Err(Error::integrity(
                "graph.db",
                format!("its schema is v{found}: an open brings it to v{UNMIGRATED_SCHEMA} first"),
            ));
        }
        let tx = conn.transaction()?;
        tx.execute_batch(V10)?;
        tx.execute_batch(&rare_action_index())?;
        tx.pragma_update(None, "user_version", LEAN_SCHEMA)?;
        tx.commit()?;
        done.laid_out = true;
    }
    if done.laid_out || worth_compacting(conn)? {
        conn.execute_batch("VACUUM").map_err(|e| {
            Error::integrity(
                "graph.db",
                format!(
                    "{}its pages could not be rewritten ({e}): the rows are safe; run `graphex migrate` again \
                     with room for two copies of the file",
                    if done.laid_out { "laid out as v10, but " } else { "" }
                ),
            )
        })?;
        done.compacted = true;
        let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        done.log_pending = busy != 0;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::schema::{V1, migrate};

    /// The plan SQLite makes for `sql` on `conn`, one step a line.
    fn plan(conn: &Connection, sql: &str) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let steps = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        steps.map(Result::unwrap).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn a_new_store_is_lean_and_an_older_one_stops_short_of_it() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        assert!(lean(&conn).unwrap());
        let mut old = Connection::open_in_memory().unwrap();
        old.execute_batch(V1).unwrap();
        old.pragma_update(None, "user_version", 1).unwrap();
        migrate(&mut old).unwrap();
        assert!(!lean(&old).unwrap());
        let v: u32 = old.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, UNMIGRATED_SCHEMA);
    }

    #[test]
    fn the_lean_layout_keeps_every_row_and_its_indexes_serve_the_queries() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(V1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO nodes VALUES (x'02', 1, 3, x'aa', 'b2', x'05', 7, x'd2'), (x'01', 0, 1, x'bb', 'b1', x'06', 6, NULL);
             INSERT INTO node_versions VALUES (x'01', 1, 0, 'b1', x'0f');
             INSERT INTO edges VALUES (x'09', 2, x'cc', x'07', 8, x'd9');
             INSERT INTO timeline (at, actor, action, node_id, proposal, commit_seq) VALUES
                 (5, 'human', 'add', x'01', NULL, 1), (6, 'human', 'merge-conflict', x'02', 'p', 2);",
        )
        .unwrap();
        let dump = |c: &Connection| -> Vec<String> {
            ["nodes ORDER BY id", "node_versions", "edges", "timeline ORDER BY seq"]
                .iter()
                .flat_map(|t| {
                    let mut stmt = c.prepare(&format!("SELECT * FROM {t}")).unwrap();
                    let n = stmt.column_count();
                    stmt.query_map([], |r| {
                        Ok((0..n)
                            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                            .collect::<Vec<_>>()
                            .join(","))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect::<Vec<_>>()
                })
                .collect()
        };
        let before = dump(&conn);
        // At v9 a name is found by the index of whole tokens.
        let v9_name = plan(&conn, &NAME_LOOKUP.replace("?1", "x'aa'"));
        assert!(v9_name.contains("sqlite_autoindex_nodes"), "{v9_name}");
        let done = relayout(&mut conn).unwrap();
        assert!(done.laid_out, "{done:?}");
        assert_eq!(
            relayout(&mut conn).unwrap(),
            Relayout::default(),
            "a second run has nothing to do"
        );
        assert_eq!(dump(&conn), before);
        assert!(lean(&conn).unwrap());
        let plan_of = |sql: &str| plan(&conn, sql);
        assert!(plan_of("SELECT id FROM edges WHERE tier = 2 AND seq > 3").contains("edges_by_tier"));
        assert!(plan_of("SELECT id FROM nodes WHERE tier = 1 AND seq > 3").contains("nodes_by_tier"));
        let by_name = plan_of(&NAME_LOOKUP.replace("?1", "x'aa'"));
        assert!(by_name.contains("nodes_by_name"), "{by_name}");
        // The merge's question (another row holding a token) on v10.
        let holder =
            plan_of("SELECT id FROM main.edges WHERE substr(token, 1, 16) = substr(x'cc', 1, 16) AND id != x'01'");
        assert!(holder.contains("edges_by_token"), "{holder}");
        let taken = conn.execute(
            "INSERT INTO nodes VALUES (x'03', 1, 1, x'aa', 'b3', x'05', 8, NULL)",
            [],
        );
        assert!(taken.is_err(), "a name's token is unique");
        let by_node = "SELECT action FROM timeline WHERE node_id = x'01' AND length(node_id) = 16";
        assert!(plan_of(by_node).contains("timeline_by_node"), "{}", plan_of(by_node));
        let packed = "SELECT action FROM timeline WHERE length(node_id) > 16 AND after_version = 1";
        assert!(plan_of(packed).contains("timeline_packed_nodes"), "{}", plan_of(packed));
        let rare = format!("SELECT commit_seq FROM timeline WHERE action = 'merge-conflict' AND {RARE_ACTION}");
        assert!(plan_of(&rare).contains("timeline_by_action"), "{}", plan_of(&rare));
        let no_rowid = conn.prepare("SELECT rowid FROM edges");
        assert!(no_rowid.is_err(), "edges are keyed by their id alone");
    }
}
