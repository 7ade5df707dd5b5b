//! Saved queries: round trips, refusals, the statement's versions, and rows
//! written outside Graphex (what an agent with write access could do).

use std::path::Path;

use super::manifest::Sum;
use super::seal::Statement;
use super::seal_statement::STATEMENT_LEN_V3 as STATEMENT_LEN;
use super::tests::{creds, files_containing, new_store, node, open_at};
use super::*;
use rusqlite::params;

fn sql(root: &Path, statement: &str) {
    let conn = Connection::open(Layout::new(root).db()).unwrap();
    conn.execute_batch(statement).unwrap();
}

fn sealed_rows(root: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let conn = Connection::open(Layout::new(root).db()).unwrap();
    let mut stmt = conn
        .prepare("SELECT token, sealed FROM saved_queries ORDER BY token")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn set_sealed(root: &Path, token: &[u8], sealed: &[u8]) {
    let conn = Connection::open(Layout::new(root).db()).unwrap();
    conn.execute(
        "UPDATE saved_queries SET sealed = ?2 WHERE token = ?1",
        params![token, sealed],
    )
    .unwrap();
}

/// A master open refused for the saved queries, and the read of a session
/// opened before the change refused too.
fn refused(root: &Path, open_before: &Store) {
    let msg = Store::open(root, &creds(Level::Master, root))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("saved queries"), "{msg}");
    let msg = open_before.saved_queries().unwrap_err().to_string();
    assert!(
        msg.contains("saved queries: they differ from what the master sealed"),
        "{msg}"
    );
}

fn with_queries() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("orders-service", Tier::Public, "orders")).unwrap();
    s.save_query("deps", "orders-service -> * -> *").unwrap();
    s.save_query("all-uses", "* -> uses -> * --limit 5").unwrap();
    (dir, root)
}

#[test]
fn a_statement_round_trips_and_malformed_bytes_are_refused() {
    let st = Statement {
        seq: 7,
        rows: Sum { count: 3, acc: [1; 32] },
        decisions: Sum { count: 1, acc: [2; 32] },
        readable: [3; 32],
        audit_seq: 4,
        audit_hash: "ab".repeat(32),
        policy: [9; 32],
        queries: Sum { count: 2, acc: [5; 32] },
        timeline: Sum { count: 6, acc: [7; 32] },
        timeline_seq: 11,
        parents: vec![[8; 32], [10; 32]],
    };
    let v4 = st.encode();
    assert_eq!(v4.len(), STATEMENT_LEN + 1 + 64);
    assert_eq!(Statement::decode(&v4), Some(st.clone()));
    // A parent count the length does not match, or over two, is refused.
    let mut bad = v4.clone();
    bad[STATEMENT_LEN] = 1;
    assert_eq!(Statement::decode(&bad), None);
    bad[STATEMENT_LEN] = 3;
    assert_eq!(Statement::decode(&[&bad[..], &[0; 32]].concat()), None);
    // Version 3 (before parents): follows none.
    let mut bytes = v4[..STATEMENT_LEN].to_vec();
    bytes[14] = b'3';
    let st = Statement {
        parents: Vec::new(),
        ..st
    };
    assert_eq!(Statement::decode(&bytes), Some(st.clone()));
    assert_eq!(Statement::decode(&v4[..STATEMENT_LEN]), None);
    assert_eq!(Statement::decode(&bytes[1..]), None);
    let mut bad = bytes.clone();
    bad[0] ^= 1;
    assert_eq!(Statement::decode(&bad), None);
    let mut bad = bytes.clone();
    bad[200] = b'z';
    assert_eq!(Statement::decode(&bad), None);
    // Version 2 (before the timeline): none covered; version 1 (before
    // saved queries): no queries either; each domain only with its length.
    let mut v2 = bytes[..STATEMENT_LEN - 48].to_vec();
    v2[14] = b'2';
    let older = Statement::decode(&v2).unwrap();
    assert_eq!((older.timeline, older.timeline_seq), (Sum::default(), 0));
    assert_eq!(older.queries, st.queries);
    let mut v1 = bytes[..STATEMENT_LEN - 88].to_vec();
    v1[14] = b'1';
    let old = Statement::decode(&v1).unwrap();
    assert_eq!(old.queries, Sum::default());
    assert_eq!(old.policy, st.policy);
    let mut v2_short = bytes[..STATEMENT_LEN - 88].to_vec();
    v2_short[14] = b'2';
    assert_eq!(Statement::decode(&v2_short), None);
    let mut v3_short = bytes[..STATEMENT_LEN - 48].to_vec();
    v3_short[14] = b'3';
    assert_eq!(Statement::decode(&v3_short), None);
}

#[test]
fn saved_queries_round_trip_replace_and_delete() {
    let (_dir, root) = with_queries();
    let mut s = open_at(&root, Level::Master);
    let names: Vec<String> = s.saved_queries().unwrap().into_iter().map(|q| q.name).collect();
    assert_eq!(names, ["all-uses", "deps"]);
    let before = s.saved_query("deps").unwrap().unwrap();
    assert_eq!(before.text, "orders-service -> * -> *");
    std::thread::sleep(std::time::Duration::from_millis(2));
    s.save_query("deps", "  orders-service -> depends-on -> * --depth 2 ")
        .unwrap();
    let after = s.saved_query("deps").unwrap().unwrap();
    assert_eq!(after.text, "orders-service -> depends-on -> * --depth 2");
    assert!(after.saved_at > before.saved_at);
    assert_eq!(s.saved_queries().unwrap().len(), 2, "replaced, not added");
    s.delete_query("all-uses").unwrap();
    assert!(s.saved_query("all-uses").unwrap().is_none());
    assert!(matches!(s.delete_query("all-uses"), Err(Error::NoSavedQuery(n)) if n == "all-uses"));
    // What a later session and a later commit see: the seal moved with each.
    s.add_node(node("billing", Tier::AgentRestricted, "b")).unwrap();
    let again = open_at(&root, Level::Master);
    assert_eq!(again.saved_queries().unwrap(), [after]);
    // Agents still open the store (they check the seal's signature).
    let _ = open_at(&root, Level::Agent);
}

#[test]
fn broken_queries_bad_names_and_human_only_names_are_refused() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    for broken in ["orders -> ", "a -> b -> c --nope", ""] {
        let parser = crate::query::parse(broken).unwrap_err().to_string();
        let msg = s.save_query("q", broken).unwrap_err().to_string();
        assert!(msg.contains(&parser), "{msg} / {parser}");
    }
    let msg = s.save_query("Bad Name", "a -> * -> *").unwrap_err().to_string();
    assert!(msg.contains("invalid name"), "{msg}");
    s.add_node(node("payroll-vault", Tier::HumanOnly, "p")).unwrap();
    let msg = s.save_query("q", "payroll-vault -> * -> *").unwrap_err().to_string();
    assert!(msg.contains("payroll-vault (human-only)"), "{msg}");
    let long = format!("a -> * -> * {}", " ".repeat(10) + &"x".repeat(MAX_SAVED_QUERY_LEN));
    assert!(s.save_query("q", &long).is_err());
    assert!(s.saved_queries().unwrap().is_empty());
}

#[test]
fn below_the_master_level_saved_queries_are_refused() {
    let (_dir, root) = with_queries();
    for level in [Level::Agent, Level::Locked] {
        let mut s = open_at(&root, level);
        assert!(matches!(s.saved_queries(), Err(Error::Locked { .. })), "{level}");
        assert!(matches!(s.saved_query("deps"), Err(Error::Locked { .. })), "{level}");
        assert!(
            matches!(s.save_query("x", "a -> * -> *"), Err(Error::Locked { .. })),
            "{level}"
        );
        assert!(matches!(s.delete_query("deps"), Err(Error::Locked { .. })), "{level}");
    }
}

#[test]
fn an_altered_row_is_refused() {
    let (_dir, root) = with_queries();
    let open = open_at(&root, Level::Master);
    let (token, mut sealed) = sealed_rows(&root).remove(0);
    let last = sealed.len() - 1;
    sealed[last] ^= 1;
    set_sealed(&root, &token, &sealed);
    refused(&root, &open);
}

#[test]
fn a_deleted_row_is_refused() {
    let (_dir, root) = with_queries();
    let open = open_at(&root, Level::Master);
    sql(
        &root,
        "DELETE FROM saved_queries WHERE rowid = (SELECT MIN(rowid) FROM saved_queries)",
    );
    refused(&root, &open);
}

#[test]
fn a_row_put_back_as_it_was_is_refused() {
    let (_dir, root) = with_queries();
    let mut s = open_at(&root, Level::Master);
    let token = s.keys.blind().unwrap().token("saved-query", &[b"deps"]);
    let (_, old) = sealed_rows(&root).into_iter().find(|(t, _)| *t == token).unwrap();
    s.save_query("deps", "* -> * -> * --limit 1").unwrap();
    set_sealed(&root, &token, &old);
    refused(&root, &s);
}

#[test]
fn forged_and_swapped_rows_are_refused() {
    let (_dir, root) = with_queries();
    let open = open_at(&root, Level::Master);
    sql(
        &root,
        "INSERT INTO saved_queries (token, sealed) VALUES (zeroblob(32), x'01')",
    );
    refused(&root, &open);
    sql(&root, "DELETE FROM saved_queries WHERE sealed = x'01'");
    let _ = open_at(&root, Level::Master);
    // Two records swapped between names: neither tag nor binding holds.
    let rows = sealed_rows(&root);
    set_sealed(&root, &rows[0].0, &rows[1].1);
    set_sealed(&root, &rows[1].0, &rows[0].1);
    refused(&root, &open);
}

#[test]
fn saved_query_text_and_names_never_reach_the_disk_in_plaintext() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("canarynodeqx7", Tier::AgentRestricted, "secret"))
        .unwrap();
    s.save_query("canaryqueryname", "canarynodeqx7 -> canaryrelzk2 -> *")
        .unwrap();
    s.save_query("canaryqueryname", "canarynodeqx7 -> canaryrelzk3 -> *")
        .unwrap();
    s.save_query("canarysecondname", "canarynodeqx7 <-> * --limit 3")
        .unwrap();
    s.delete_query("canarysecondname").unwrap();
    for when in ["before checkpoint", "after checkpoint"] {
        for canary in [
            "canarynodeqx7",
            "canaryrelzk2",
            "canaryrelzk3",
            "canaryqueryname",
            "canarysecondname",
        ] {
            let hits = files_containing(&root, canary.as_bytes());
            assert!(hits.is_empty(), "{when}: {canary} found in {hits:?}");
        }
        s.checkpoint().unwrap();
    }
}

#[test]
fn a_store_of_schema_five_gains_the_table() {
    let (_dir, root) = new_store();
    sql(&root, super::schema_v10::V10_EMPTY);
    sql(&root, include_str!("testdata/v9_layout.sql"));
    sql(
        &root,
        "DROP TABLE saved_queries; DROP TABLE merge_conflicts; DROP INDEX timeline_by_action; DROP TABLE seal_log; \
         DROP INDEX timeline_by_at; \
         PRAGMA user_version = 5;",
    );
    let mut s = open_at(&root, Level::Master);
    assert!(s.saved_queries().unwrap().is_empty());
    s.save_query("q", "a -> * -> *").unwrap();
    drop(s);
    assert_eq!(open_at(&root, Level::Master).saved_queries().unwrap().len(), 1);
}
