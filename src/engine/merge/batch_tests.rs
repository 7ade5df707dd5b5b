//! A batch merged from the branch that packed its timeline rows (see
//! `timeline_pack`): brought over once, and never brought back as new.

use std::path::Path;

use super::tests::{forked_at, merge};
use crate::keys::Level;
use crate::model::Tier;
use crate::store::tests::{edge, node, open_at};

#[test]
fn a_batch_packed_on_one_branch_merges_once_each_way() {
    merge_a_batch_both_ways(false);
}

#[test]
fn a_batch_packed_on_a_v10_branch_merges_into_a_v9_store_and_back() {
    merge_a_batch_both_ways(true);
}

/// Their branch imports a batch (packed), ours adds a node; theirs is
/// merged into ours (laid out as v9 when `ours_v9`: stored row by row
/// there), then ours back into theirs.
fn merge_a_batch_both_ways(ours_v9: bool) {
    let (_d, ours, _bd, theirs, base) = forked_at(ours_v9);
    if ours_v9 {
        let conn = rusqlite::Connection::open(ours.join(".gpp/graphex/graph.db")).unwrap();
        conn.execute_batch(include_str!("../store/testdata/v9_layout.sql"))
            .unwrap();
    }
    {
        let mut s = open_at(&theirs, Level::Master);
        let mut b = crate::store::Batch::default();
        for i in 0..8 {
            b.add_node(node(&format!("t{i}"), Tier::AgentReadable, "theirs"));
        }
        for i in 0..7 {
            b.link(edge(&format!("t{i}"), "calls", &format!("t{}", i + 1)));
        }
        s.apply_batch(b, crate::store::Durability::Deferred).unwrap();
    }
    {
        let mut s = open_at(&ours, Level::Master);
        s.add_node(node("alpha", Tier::Public, "ours")).unwrap();
    }
    let logical = |root: &Path| {
        open_at(root, Level::Master)
            .timeline_rows_through(i64::MAX)
            .unwrap()
            .len()
    };
    let (ours_before, theirs_before) = (logical(&ours), logical(&theirs));
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!((report.nodes_added, report.edges_added), (8, 7));
    let s = open_at(&ours, Level::Master);
    assert_eq!(s.history("t3").unwrap()[0].action.as_deref(), Some("add"));
    let packed: i64 = s
        .conn()
        .query_row("SELECT COUNT(*) FROM timeline WHERE length(node_id) > 16", [], |r| {
            r.get(0)
        })
        .unwrap();
    // (In tests a merge stores what it brings four rows at a time.)
    assert_eq!(
        packed,
        if ours_v9 { 0 } else { 2 },
        "packed as ours keeps a commit's rows"
    );
    s.check_history().unwrap();
    drop(s);
    // Ours gained their 15 rows (and its merge row); back the other way,
    // theirs gains ours only: its own batch is known, packed or not.
    let ours_after = logical(&ours);
    assert_eq!(ours_after, ours_before + 15 + 1, "their 15 rows and the merge's");
    let keep = tempfile::tempdir().unwrap();
    let base2 = keep.path().join("base2.db");
    std::fs::copy(&base, &base2).unwrap();
    merge(&theirs, &ours, &base2).unwrap();
    let s = open_at(&theirs, Level::Master);
    let adds_of_t3 = s
        .timeline_rows_through(i64::MAX)
        .unwrap()
        .iter()
        .filter(|r| r.action == "add" && r.node.as_deref() == Some(s.catalog().by_name("t3").unwrap().id.as_bytes()))
        .count();
    assert_eq!(adds_of_t3, 1, "their batch is not brought back as new");
    assert_eq!(
        logical(&theirs),
        theirs_before + 3,
        "ours' add and merge rows, and this merge's"
    );
    assert!(s.catalog().by_name("alpha").is_some());
}
