//! A batch merged from the branch that packed its timeline rows (see
//! `timeline_pack`): brought over once, and never brought back as new.

use std::path::Path;

use super::tests::{forked, merge};
use crate::keys::Level;
use crate::model::Tier;
use crate::store::tests::{edge, node, open_at};

#[test]
fn a_batch_packed_on_one_branch_merges_once_each_way() {
    let (_d, ours, _bd, theirs, base) = forked();
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
    s.check_history().unwrap();
    drop(s);
    // Ours gained their 15 rows (and its merge row); back the other way,
    // theirs gains ours only: its own batch is known, packed or not.
    let ours_after = logical(&ours);
    assert!(ours_after >= ours_before + 15, "{ours_before} -> {ours_after}");
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
    assert!(logical(&theirs) < theirs_before + ours_after - ours_before + 5);
    assert!(s.catalog().by_name("alpha").is_some());
}
