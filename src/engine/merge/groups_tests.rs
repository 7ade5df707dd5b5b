//! Merges of stores that hold their edges in groups (schema v11): a group
//! both branches changed is merged edge by edge.

use std::path::Path;

use super::tests::{branch, forked, forked_at, merge, save_base};
use crate::error::Error;
use crate::keys::Level;
use crate::model::NodePatch;
use crate::model::Tier;
use crate::store::tests::{edge, new_store, node, open_at};

fn edges_of(root: &Path) -> Vec<String> {
    let s = open_at(root, Level::Master);
    let mut out: Vec<String> = s.catalog().edges().map(|e| s.describe_edge(e)).collect();
    out.sort();
    out
}

#[test]
fn edges_both_branches_made_from_one_node_all_land() {
    let (_d, ours, _bd, theirs, base) = forked();
    {
        let mut s = open_at(&ours, Level::Master);
        s.add_node(node("alpha", Tier::AgentReadable, "ours")).unwrap();
        s.link(edge("shared", "uses", "alpha")).unwrap();
        s.link(edge("shared", "calls", "other")).unwrap();
    }
    {
        let mut s = open_at(&theirs, Level::Master);
        s.add_node(node("beta", Tier::AgentReadable, "theirs")).unwrap();
        s.link(edge("shared", "uses", "beta")).unwrap();
        // The same edge as ours, under another id; and one of the base's removed.
        s.link(edge("shared", "calls", "other")).unwrap();
        s.unlink("shared", "uses", "other").unwrap();
    }
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!((report.edges_added, report.edges_removed), (1, 1), "{report:?}");
    assert!(
        report.notes.iter().any(|n| n.contains("under another id")),
        "{:?}",
        report.notes
    );
    assert_eq!(
        edges_of(&ours),
        [
            "shared -> calls -> other",
            "shared -> uses -> alpha",
            "shared -> uses -> beta"
        ]
    );
    // The merged store opens at every level, its groups as a write makes them.
    for level in [Level::Agent, Level::Human] {
        open_at(&ours, level);
    }
    let mut s = open_at(&ours, Level::Master);
    assert!(matches!(
        s.link(edge("shared", "uses", "beta")),
        Err(Error::EdgeExists(_))
    ));
}

#[test]
fn branches_holding_edges_differently_are_refused_with_the_way_forward() {
    let (_d, ours, _bd, theirs, base) = forked_at(true);
    {
        let mut s = open_at(&theirs, Level::Master);
        s.add_node(node("beta", Tier::AgentReadable, "theirs")).unwrap();
    }
    let mut s = open_at(&ours, Level::Human);
    let done = s.migrate(false).unwrap();
    assert!(done.edge_groups > 0, "{done:?}");
    drop(s);
    let before = edges_of(&ours);
    let refused = merge(&ours, &theirs, &base).unwrap_err().to_string();
    assert!(
        refused.contains("graphex export") && refused.contains("nothing was merged"),
        "{refused}"
    );
    assert_eq!(edges_of(&ours), before, "ours is untouched");
}

#[test]
fn an_edge_one_branch_moved_to_another_tier_is_one_edge_after_the_merge() {
    // Theirs raises `third`, which moves `shared -> uses -> third` to
    // shared's restricted group; ours adds an edge to shared's group the
    // edge left (case 1), or removes the edge (case 2).
    for removed in [false, true] {
        let (dir, ours) = new_store();
        {
            let mut s = open_at(&ours, Level::Master);
            s.add_node(node("shared", Tier::AgentReadable, "shared")).unwrap();
            s.add_node(node("third", Tier::AgentReadable, "third")).unwrap();
            s.link(edge("shared", "uses", "third")).unwrap();
        }
        let base = save_base(&ours, &dir);
        let (_bd, theirs) = branch(&ours);
        {
            let mut s = open_at(&ours, Level::Master);
            if removed {
                s.unlink("shared", "uses", "third").unwrap();
            } else {
                s.link(edge("shared", "calls", "third")).unwrap();
            }
        }
        {
            let mut s = open_at(&theirs, Level::Master);
            let raise = NodePatch {
                tier: Some(Tier::AgentRestricted),
                ..NodePatch::default()
            };
            s.update_node("third", &raise).unwrap();
        }
        let report = merge(&ours, &theirs, &base).unwrap();
        let edges = edges_of(&ours);
        let uses = edges.iter().filter(|e| e.as_str() == "shared -> uses -> third").count();
        assert_eq!(uses, usize::from(!removed), "{edges:?} {report:?}");
        if removed {
            assert!(
                report.notes.iter().any(|n| n.contains("changed on both branches")),
                "{:?}",
                report.notes
            );
        }
        // Every later write from that node still works.
        let mut s = open_at(&ours, Level::Master);
        s.link(edge("shared", "owned-by", "third")).unwrap();
    }
}

#[test]
fn a_node_with_edges_in_a_rotated_tier_merges_either_way() {
    // `shared -> other` is agent-restricted in the base; one branch rotates
    // that tier's key while the other links `shared` anew.
    for ours_rotates in [true, false] {
        let (_d, ours, _bd, theirs, base) = forked();
        let (rotating, linking) = if ours_rotates {
            (&ours, &theirs)
        } else {
            (&theirs, &ours)
        };
        open_at(rotating, Level::Master)
            .rotate_key(Tier::AgentRestricted, None, crate::keys::KdfCost(Some(4)))
            .unwrap();
        {
            let mut s = open_at(linking, Level::Master);
            s.add_node(node("gamma", Tier::AgentReadable, "gamma")).unwrap();
            s.link(edge("shared", "uses", "gamma")).unwrap();
        }
        let report = merge(&ours, &theirs, &base).unwrap();
        if !ours_rotates {
            super::tests::take_their_keys(&ours, &theirs);
        }
        assert_eq!(
            edges_of(&ours),
            ["shared -> uses -> gamma", "shared -> uses -> other"],
            "ours rotates: {ours_rotates}; {report:?}"
        );
    }
}
