//! The order of a bulk commit: blobs durable before any index row names them.

use super::tests::{creds, new_store, open_at};
use super::{Durability, Layout};
use crate::error::Error;
use crate::keys::Level;
use crate::synth::{SynthSpec, generate};

fn objects_in(root: &std::path::Path) -> usize {
    crate::store::Objects::new(Layout::new(root).objects())
        .list()
        .unwrap()
        .len()
}

#[test]
fn a_batch_whose_blobs_are_not_yet_durable_is_not_in_the_index() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    let before = objects_in(&root);
    let spec = SynthSpec {
        nodes: 600,
        edges: 900,
        seed: 11,
    };
    // Written on several threads, then made durable: a failure (a crash)
    // between the two must leave no index row naming any of them.
    s.inject_fault("blob-sync");
    assert!(matches!(
        s.apply_batch(generate(spec), Durability::Deferred),
        Err(Error::InjectedFault("blob-sync"))
    ));
    drop(s);
    assert_eq!(objects_in(&root), before + 600, "every blob written, as orphans");
    let s = super::Store::open(&root, &creds(Level::Human, &root)).unwrap();
    assert_eq!((s.catalog().node_count(), s.catalog().edge_count()), (0, 0));
    let named: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM node_versions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(named, 0, "no version row names an unsynced blob");
}

#[test]
fn a_parallel_batch_reads_back_whole_and_in_order() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    let spec = SynthSpec {
        nodes: 600,
        edges: 900,
        seed: 12,
    };
    let ids = s.apply_batch(generate(spec), Durability::Deferred).unwrap();
    drop(s);
    let s = super::Store::open(&root, &creds(Level::Human, &root)).unwrap();
    let nodes = s.nodes_by_ids(&ids.nodes).unwrap();
    assert_eq!(nodes.len(), 600);
    for (id, node) in ids.nodes.iter().zip(&nodes) {
        assert_eq!(node.id, *id, "each id opens its own blob, in order");
        assert_eq!(node.name, s.catalog().node(id).unwrap().name);
    }
    assert_eq!(s.catalog().edge_count(), 900);
    // The timeline, made as its rows were written: one `add` per node,
    // then one `link` per edge, in the order planned, and under the seal;
    // stored as two rows, the adds packed in one and the links in another.
    let stored: i64 = s
        .conn
        .query_row("SELECT COUNT(*) FROM timeline", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 2);
    let rows = s.timeline_rows_through(i64::MAX).unwrap();
    assert_eq!(rows.len(), 1500);
    for (row, id) in rows.iter().zip(&ids.nodes) {
        assert_eq!(
            (row.action.as_str(), row.node.as_deref()),
            ("add", Some(&id.as_bytes()[..]))
        );
        assert_eq!((row.after, row.edge.as_deref()), (Some(1), None));
    }
    for (row, id) in rows[600..].iter().zip(&ids.edges) {
        assert_eq!(
            (row.action.as_str(), row.edge.as_deref()),
            ("link", Some(&id.as_bytes()[..]))
        );
        assert_eq!(row.node, None);
    }
    s.check_timeline_sealed().unwrap();
}

#[test]
fn a_batch_fails_whole_when_its_blobs_fail_after_its_rows_went_in() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    let spec = SynthSpec {
        nodes: 600,
        edges: 900,
        seed: 13,
    };
    // The edge and timeline rows are inserted while the blobs are written
    // and synced: a failure of the blobs rolls every row back.
    s.inject_fault("after-blobs");
    assert!(matches!(
        s.apply_batch(generate(spec), Durability::Deferred),
        Err(Error::InjectedFault("after-blobs"))
    ));
    drop(s);
    let s = super::Store::open(&root, &creds(Level::Human, &root)).unwrap();
    assert_eq!((s.catalog().node_count(), s.catalog().edge_count()), (0, 0));
    let rows: i64 = s
        .conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM edges) + (SELECT COUNT(*) FROM timeline) + (SELECT COUNT(*) FROM nodes)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 0, "nothing of the batch is in the index");
}

#[test]
fn a_store_created_in_process_opens_as_both_passphrases_open_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let (pass, human) = (
        age::secrecy::SecretString::from(super::tests::PASS),
        age::secrecy::SecretString::from(super::tests::HUMAN),
    );
    let mut s = super::Store::create(&root, &pass, &human, crate::KdfCost(Some(4))).unwrap();
    assert_eq!(s.level(), Level::Human);
    let spec = SynthSpec {
        nodes: 300,
        edges: 400,
        seed: 14,
    };
    s.apply_batch(generate(spec), Durability::Deferred).unwrap();
    drop(s);
    // What it wrote, under every tier, reads back with the passphrases.
    let s = super::Store::open(&root, &creds(Level::Human, &root)).unwrap();
    assert_eq!(s.level(), Level::Human);
    assert_eq!((s.catalog().node_count(), s.catalog().edge_count()), (300, 400));
    let ids: Vec<_> = s.catalog().nodes().map(|n| n.id).collect();
    assert_eq!(s.nodes_by_ids(&ids).unwrap().len(), 300);
}

#[test]
fn the_seal_covers_a_bulk_commits_timeline_rows_as_a_full_scan_tags_them() {
    use crate::model::{Name, NewEdge, NewNode, NodeType, Relation, Tier};
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    // Rows tagged as they are inserted, twice (the second commit's rows
    // follow the first's), then an ordinary commit that reads them back.
    for round in 0..2 {
        let mut batch = super::Batch::default();
        let name = |i: usize| Name::new(&format!("n{round}-{i}")).unwrap();
        for i in 0..300 {
            let tier = Tier::ALL[i % 4];
            batch.add_node(NewNode::new(
                name(i),
                NodeType::new("service").unwrap(),
                format!("node {i}"),
                tier,
            ));
        }
        for i in 1..300 {
            batch.link(NewEdge::new(name(i), Relation::new("uses").unwrap(), name(i - 1)));
        }
        s.apply_batch(batch, Durability::Deferred).unwrap();
        s.check_timeline_sealed().unwrap();
    }
    s.add_node(NewNode::new(
        Name::new("one-more").unwrap(),
        NodeType::new("service").unwrap(),
        "after the bulk commits",
        Tier::Public,
    ))
    .unwrap();
    s.check_timeline_sealed().unwrap();
    drop(s);
    open_at(&root, Level::Human).check_timeline_sealed().unwrap();
}
