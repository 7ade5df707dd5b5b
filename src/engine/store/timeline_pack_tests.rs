//! A batch's timeline stored packed (see `timeline_pack`): read, dated,
//! undone and shown row by row as before, and refused when a packed row is
//! altered outside Graphex.

use super::tests::{new_store, node, open_at};
use super::*;
use crate::as_of::AsOf;
use crate::model::Tier;

/// A batch of `n` nodes, each linked to the next.
fn batch(n: usize) -> Batch {
    let mut b = Batch::default();
    for i in 0..n {
        b.add_node(node(&format!("n{i}"), Tier::AgentReadable, "batch"));
    }
    for i in 0..n - 1 {
        b.link(super::tests::edge(&format!("n{i}"), "calls", &format!("n{}", i + 1)));
    }
    b
}

fn stored_rows(s: &Store, commit: i64) -> i64 {
    s.conn
        .query_row("SELECT COUNT(*) FROM timeline WHERE commit_seq = ?1", [commit], |r| {
            r.get(0)
        })
        .unwrap()
}

fn names(c: &Catalog) -> Vec<String> {
    let mut v: Vec<String> = c.nodes().map(|n| n.name.to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_batch_is_stored_packed_and_is_read_dated_shown_and_undone_row_by_row() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    s.add_node(node("first", Tier::Public, "before the batch")).unwrap();
    s.apply_batch(batch(30), Durability::Deferred).unwrap();
    assert_eq!(stored_rows(&s, 2), 2, "30 adds in one stored row, 29 links in another");
    let rows = s.commit_rows(2).unwrap();
    assert_eq!(rows.len(), 59);
    assert!(
        rows[..30]
            .iter()
            .all(|r| r.action == "add" && r.node.as_ref().is_some_and(|n| n.len() == 16))
    );

    // Who wrote a batch node, as its history says (checked at the master
    // level, read as it is below).
    let history = s.history("n7").unwrap();
    assert_eq!(history[0].action.as_deref(), Some("add"));
    assert_eq!(history[0].actor.as_deref(), Some("human"));
    let agent = open_at(&root, Level::Agent);
    assert_eq!(agent.history("n7").unwrap()[0].action.as_deref(), Some("add"));
    drop(agent);

    // Shown change by change, newest first when cut.
    let entry = &s.timeline(1).unwrap()[0];
    assert_eq!(entry.changes.len(), 59);
    assert_eq!(entry.changes[0].node.as_deref(), Some("n0"));
    assert_eq!(entry.changes[58].edge.as_deref(), Some("n28 -> calls -> n29"));
    let cut = &s.timeline_within(1, Tier::HumanOnly, 5).unwrap()[0];
    assert_eq!((cut.changes.len(), cut.more), (5, 1));
    assert_eq!(cut.changes[4].edge.as_deref(), Some("n28 -> calls -> n29"));

    // Dated: before the batch, one node; after it, all of them.
    assert_eq!(names(&s.catalog_as_of(AsOf::Commit(1)).unwrap().catalog), ["first"]);
    assert_eq!(s.catalog_as_of(AsOf::Commit(2)).unwrap().catalog.nodes().count(), 31);

    // Undone whole, from its packed rows.
    match s.undo().unwrap() {
        crate::proposal::Undone::Change { commit, changes, .. } => {
            assert_eq!((commit, changes.len()), (2, 59));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(names(s.catalog()), ["first"]);
    s.check_timeline_sealed().unwrap();
    s.check_history().unwrap();
    drop(s);
    let s = open_at(&root, Level::Human);
    assert_eq!(names(s.catalog()), ["first"]);
    assert_eq!(s.catalog().edge_count(), 0);
}

#[test]
fn a_packed_row_altered_outside_graphex_is_refused_not_misread() {
    for (what, statement) in [
        (
            "an id dropped",
            "UPDATE timeline SET node_id = substr(node_id, 17) WHERE length(node_id) > 32",
        ),
        (
            "ids reordered",
            "UPDATE timeline SET node_id = CAST(substr(node_id, 17, 16) || substr(node_id, 1, 16) \
             || substr(node_id, 33) AS BLOB) WHERE length(node_id) > 32",
        ),
        (
            "a broken id",
            "UPDATE timeline SET node_id = CAST(node_id || x'00' AS BLOB) WHERE length(node_id) > 32",
        ),
    ] {
        let (_dir, root) = new_store();
        let mut s = open_at(&root, Level::Human);
        s.apply_batch(batch(6), Durability::Deferred).unwrap();
        drop(s);
        let raw = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
        assert_eq!(raw.execute(statement, []).unwrap(), 1, "{what}");
        drop(raw);
        let mut s = open_at(&root, Level::Human);
        let err = s.timeline(5).unwrap_err();
        assert!(matches!(err, Error::Integrity { .. }), "{what}: {err}");
        assert!(s.check_timeline_sealed().is_err(), "{what}: the seal covers it too");
        assert!(s.undo().is_err(), "{what}: undo follows only what the master wrote");
        assert_eq!(s.catalog().nodes().count(), 6, "{what}: nothing undone");
    }
}

/// A row an agent with write access could add: packing ids it chose,
/// claiming to be the human's import of them, with no MAC.
fn forge(root: &std::path::Path, ids: &[u8]) {
    let raw = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    raw.execute(
        "INSERT INTO timeline (at, actor, action, node_id, after_version, commit_seq) \
         VALUES (1, 'human', 'add', ?1, 1, (SELECT MAX(commit_seq) FROM timeline))",
        [ids],
    )
    .unwrap();
}

#[test]
fn a_forged_packed_row_is_refused_at_every_level_however_many_ids_it_claims() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    s.apply_batch(batch(4), Durability::Deferred).unwrap();
    let n1 = s.catalog().by_name("n1").unwrap().id;
    drop(s);
    let _ = super::tests::creds(Level::Agent, &root);
    // More ids than any writer packs: named as malformed before anything
    // is unpacked, at the agent level too (which checks no MAC).
    forge(&root, &vec![7u8; 16 * (super::timeline_pack::MAX_IDS + 1)]);
    let agent = open_at(&root, Level::Agent);
    let err = agent.timeline_within(5, Tier::AgentReadable, 10).unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
    drop(agent);
    let raw = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    raw.execute("DELETE FROM timeline WHERE length(node_id) > 16 * 4096", [])
        .unwrap();
    drop(raw);
    // Two ids, one of them a real node's: the master's history refuses it
    // rather than say who "added" n1.
    let mut ids = n1.as_bytes().to_vec();
    ids.extend_from_slice(&[9u8; 16]);
    forge(&root, &ids);
    let s = open_at(&root, Level::Master);
    let err = s.history("n1").unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
    assert!(s.timeline(3).is_err());
}

#[test]
fn rows_renumbered_outside_graphex_are_refused_or_skipped_never_walked_one_number_at_a_time() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    s.add_node(node("first", Tier::Public, "before the batch")).unwrap();
    s.apply_batch(batch(4), Durability::Deferred).unwrap();
    drop(s);
    let raw = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    // The newest row moved far up, the oldest below 1.
    raw.execute_batch(
        "UPDATE timeline SET seq = seq + 4000000000000000000 WHERE seq = (SELECT MAX(seq) FROM timeline);
         UPDATE timeline SET seq = -9223372036854775808 WHERE seq = (SELECT MIN(seq) FROM timeline);",
    )
    .unwrap();
    drop(raw);
    let s = open_at(&root, Level::Human);
    // Ends (the walk steps from row to row, not number to number).
    let shown = s.timeline_within(10, Tier::HumanOnly, 3).unwrap();
    assert!(!shown.is_empty());
    // The row that wrote `first` now numbered below 1: refused, not shown.
    let err = s.history("first").unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
}
