//! A store opened for names and edges (`Store::open_names_only`): the same
//! graph as a full open, from snapshots and from later rows alike, with
//! descriptions and properties left undecoded, and no write through it.

use super::tests::{creds, edge, new_store, node};
use super::*;

#[test]
fn names_and_edges_are_a_full_open_s_without_descriptions_or_properties() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let mut owned = node("snapshotted", Tier::Public, "in a snapshot");
    owned.properties.insert("owner".into(), "payments-team".into());
    s.add_node(owned).unwrap();
    s.add_node(node("restricted", Tier::AgentRestricted, "also in a snapshot"))
        .unwrap();
    s.link(edge("snapshotted", "calls", "restricted")).unwrap();
    s.refresh_snapshots(true).unwrap();
    let mut later = node("later-row", Tier::AgentReadable, "after the snapshot");
    later.properties.insert("since".into(), "2025".into());
    s.add_node(later).unwrap();
    s.link(edge("later-row", "depends-on", "snapshotted")).unwrap();
    drop(s);

    for level in [Level::Master, Level::Agent, Level::Locked] {
        let full = Store::open(&root, &creds(level, &root)).unwrap();
        let names = Store::open_names_only(&root, &creds(level, &root)).unwrap();
        let mut expected: Vec<NodeSummary> = full.catalog().nodes().cloned().collect();
        for n in &mut expected {
            n.description = String::new();
            n.properties = crate::model::Properties::default();
        }
        let got: Vec<NodeSummary> = names.catalog().nodes().cloned().collect();
        assert_eq!(got, expected, "at {level}");
        let edges = |s: &Store| s.catalog().edges().map(|e| format!("{e:?}")).collect::<Vec<_>>();
        assert_eq!(edges(&names), edges(&full), "at {level}");
        assert_eq!(
            names.status().unwrap().tiers,
            full.status().unwrap().tiers,
            "at {level}"
        );
        if level == Level::Master {
            assert!(
                full.catalog().nodes().any(|n| !n.properties.is_empty()),
                "the fixture has properties"
            );
        }
    }

    let mut names = Store::open_names_only(&root, &creds(Level::Master, &root)).unwrap();
    let refused = names.add_node(node("never", Tier::Public, "refused")).unwrap_err();
    assert!(refused.to_string().contains("names and edges only"), "{refused}");
    drop(names);
    let full = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(full.catalog().by_name("never").is_none(), "nothing was written");
}

#[test]
fn node_names_are_the_names_open_s_nodes_with_no_edge_and_the_same_status() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("snapshotted", Tier::Public, "in a snapshot")).unwrap();
    s.add_node(node("restricted", Tier::AgentRestricted, "also in a snapshot"))
        .unwrap();
    s.link(edge("snapshotted", "calls", "restricted")).unwrap();
    s.refresh_snapshots(true).unwrap();
    s.add_node(node("later-row", Tier::AgentReadable, "after the snapshot"))
        .unwrap();
    s.link(edge("later-row", "depends-on", "snapshotted")).unwrap();
    drop(s);

    for level in [Level::Master, Level::Agent, Level::Locked] {
        let names = Store::open_names_only(&root, &creds(level, &root)).unwrap();
        let nodes = Store::open_node_names(&root, &creds(level, &root)).unwrap();
        let list = |s: &Store| s.catalog().nodes().cloned().collect::<Vec<NodeSummary>>();
        assert_eq!(list(&nodes), list(&names), "at {level}");
        assert_eq!(nodes.catalog().edges().count(), 0, "at {level}: no edge decoded");
        let (a, b) = (nodes.status().unwrap(), names.status().unwrap());
        assert_eq!(a.tiers, b.tiers, "at {level}");
        assert_eq!((a.by_status, a.by_type), (b.by_status, b.by_type), "at {level}");
        assert_eq!(a.last_update, b.last_update, "at {level}");
        if level != Level::Locked {
            assert!(a.total_edges > 0, "at {level}: edges are counted from the index");
        }
    }

    let mut nodes = Store::open_node_names(&root, &creds(Level::Master, &root)).unwrap();
    let refused = nodes.add_node(node("never", Tier::Public, "refused")).unwrap_err();
    assert!(refused.to_string().contains("node names only"), "{refused}");
}
