//! The log (`graph.db-wal`) of a long-lived session: what it commits is in
//! graph.db itself before git reads the file, and the log is emptied, so a
//! checkout that replaces graph.db finds no frames of the old file.

use super::tests::{creds, new_store};
use super::*;
use crate::model::{Name, NewNode, NodeType};

fn wal_len(root: &std::path::Path) -> u64 {
    std::fs::metadata(Layout::new(root).db().with_extension("db-wal")).map_or(0, |m| m.len())
}

#[test]
fn a_long_lived_session_empties_its_log_and_graph_db_holds_its_commits() {
    for synced_with_the_log in [false, true] {
        log_emptied_and_graph_db_holds_the_commit(synced_with_the_log);
    }
}

fn log_emptied_and_graph_db_holds_the_commit(synced_with_the_log: bool) {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    if synced_with_the_log {
        s.sync_commits_with_the_log().unwrap();
        let level: i64 = s.conn.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
        assert_eq!(level, 1, "NORMAL: commits are synced by the checkpoint");
    }
    // Another session keeps the store open, so no close folds the log.
    let other = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(NewNode::new(
        Name::new("kept-in-the-file").unwrap(),
        NodeType::new("concept").unwrap(),
        "written by a long-lived session",
        Tier::Public,
    ))
    .unwrap();
    assert!(wal_len(&root) > 0, "the commit is in the log first");
    assert!(s.empty_the_log());
    assert_eq!(wal_len(&root), 0);
    // graph.db alone (as git would take it) holds the node.
    let copy = tempfile::tempdir().unwrap();
    let alone = copy.path().join("graph.db");
    std::fs::copy(Layout::new(&root).db(), &alone).unwrap();
    let conn = rusqlite::Connection::open(&alone).unwrap();
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM nodes", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
    drop(other);
}
