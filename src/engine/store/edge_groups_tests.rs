//! Edge groups (schema v11): one row per source node and tier, every edge
//! one across the tiers, rows bound to their place, and every reader seeing
//! what it saw when edges were one a row.

use std::path::Path;

use super::tests::{creds, edge, new_store, node, open_at};
use super::*;
use crate::model::{NodePatch, Tier};

fn raw(root: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(Layout::new(root).db()).unwrap()
}

/// The edges each group row's tokens count, in order.
fn groups(root: &Path) -> Vec<i64> {
    raw(root)
        .prepare(&format!(
            "SELECT length(token) / {} FROM edges ORDER BY 1",
            edge_groups::TOKEN
        ))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn edges_seen(root: &Path, level: Level) -> Vec<String> {
    let s = open_at(root, level);
    let mut out: Vec<String> = s.catalog().edges().map(|e| s.describe_edge(e)).collect();
    out.sort();
    out
}

fn edge_counts(s: &Store) -> Vec<u64> {
    s.status().unwrap().tiers.iter().map(|t| t.edges).collect()
}

/// A store of a public source with edges into three tiers.
fn grouped_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = new_store();
    let _ = creds(Level::Agent, &root);
    let mut s = open_at(&root, Level::Human);
    for (name, tier) in [
        ("a", Tier::Public),
        ("b", Tier::Public),
        ("c", Tier::AgentRestricted),
        ("h", Tier::HumanOnly),
    ] {
        s.add_node(node(name, tier, "words")).unwrap();
    }
    for (from, to) in [("a", "b"), ("a", "c"), ("a", "h"), ("b", "a")] {
        s.link(edge(from, "uses", to)).unwrap();
    }
    (dir, root)
}

#[test]
fn a_group_holds_its_source_s_edges_of_one_tier_and_an_edge_is_one_across_tiers() {
    let (_dir, root) = grouped_store();
    // a's public, restricted and human-only groups, and b's public one.
    assert_eq!(groups(&root), [1, 1, 1, 1]);
    let mut s = open_at(&root, Level::Human);
    assert_eq!(edge_counts(&s), [2, 0, 1, 1]);
    // The same ends and relation again, in any tier: refused.
    assert!(matches!(s.link(edge("a", "uses", "b")), Err(Error::EdgeExists(_))));
    let mut batch = Batch::default();
    batch.link(edge("b", "calls", "a"));
    batch.link(edge("a", "calls", "b"));
    s.apply_batch(batch, Durability::Sync).unwrap();
    assert_eq!(groups(&root), [1, 1, 2, 2], "a batch lands in the groups there are");
    // A tier raise moves b's edges, and the edge into it, to the groups of
    // the new tier; the groups it empties stay, holding none.
    let raise = NodePatch {
        tier: Some(Tier::AgentRestricted),
        ..NodePatch::default()
    };
    s.update_node("b", &raise).unwrap();
    assert_eq!(groups(&root), [0, 0, 1, 2, 3]);
    assert_eq!(edge_counts(&s), [0, 0, 5, 1]);
    drop(s);
    assert_eq!(edges_seen(&root, Level::Agent), Vec::<String>::new());
    assert_eq!(edges_seen(&root, Level::Master).len(), 5);
    assert_eq!(edges_seen(&root, Level::Human).len(), 6);
    let fresh = open_at(&root, Level::Master);
    assert_eq!(
        edge_counts(&fresh),
        [0, 0, 5, 1],
        "counted from the rows: a group's edges by its tokens"
    );
    drop(fresh);
    // Lowered again: the edges go back to the public groups.
    let mut s = open_at(&root, Level::Human);
    let lower = NodePatch {
        tier: Some(Tier::Public),
        ..NodePatch::default()
    };
    s.update_node("b", &lower).unwrap();
    drop(s);
    assert_eq!(edges_seen(&root, Level::Agent).len(), 4);
    assert_eq!(groups(&root), [0, 1, 1, 2, 2]);
}

#[test]
fn a_group_s_row_is_bound_to_its_place_and_its_tokens_to_its_edges() {
    type Tamper = (&'static str, &'static str);
    let cases: [Tamper; 3] = [
        (
            "a record moved to another group's row",
            "UPDATE edges SET sealed = (SELECT sealed FROM edges WHERE tier = 0 ORDER BY id DESC LIMIT 1), \
             digest = (SELECT digest FROM edges WHERE tier = 0 ORDER BY id DESC LIMIT 1) \
             WHERE id = (SELECT id FROM edges WHERE tier = 0 ORDER BY id LIMIT 1)",
        ),
        (
            "a token fewer",
            "UPDATE edges SET token = substr(token, 9) WHERE tier = 0 AND length(token) = 16",
        ),
        (
            "a group moved to another tier",
            "UPDATE edges SET tier = 1 WHERE tier = 0",
        ),
    ];
    for (what, tamper) in cases {
        let (_dir, root) = grouped_store();
        let mut s = open_at(&root, Level::Master);
        s.link(edge("b", "calls", "a")).unwrap();
        drop(s);
        assert!(raw(&root).execute(tamper, []).unwrap() > 0, "{what}");
        for level in [Level::Agent, Level::Master] {
            let refused = Store::open(&root, &creds(level, &root));
            assert!(
                matches!(refused, Err(Error::Integrity { .. })),
                "{what} at {level}: {refused:?}"
            );
        }
    }
}

#[test]
fn a_group_s_id_names_no_node() {
    let (_dir, root) = grouped_store();
    let s = open_at(&root, Level::Master);
    let a = s.summary("a").unwrap().id;
    let id = edge_groups::group_id(&s.keys, &a, Tier::Public).unwrap();
    assert_ne!(id.as_bytes(), a.as_bytes());
    let held: i64 = raw(&root)
        .query_row(
            "SELECT COUNT(*) FROM edges WHERE id = ?1",
            [id.as_bytes().as_slice()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(held, 1, "the master finds a node's group by its keyed id");
    // Another store's key gives the same node another group id.
    let (_other_dir, other) = new_store();
    let other = open_at(&other, Level::Master);
    assert_ne!(edge_groups::group_id(&other.keys, &a, Tier::Public).unwrap(), id);
}

#[test]
fn an_old_snapshot_put_back_cannot_bring_a_removed_edge_back_by_a_group_s_tokens() {
    let (_dir, root) = grouped_store();
    let mut s = open_at(&root, Level::Master);
    s.refresh_snapshots(true).unwrap();
    // The public snapshot as it is, with a -> uses -> b in it.
    let (seq, hash, rows, mac): (i64, String, i64, Vec<u8>) = s
        .conn
        .query_row("SELECT seq, blob, rows, mac FROM snapshots WHERE tier = 0", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap();
    let file = std::fs::read(Layout::new(&root).blob(&hash)).unwrap();
    s.unlink("a", "uses", "b").unwrap();
    drop(s);
    assert_eq!(edges_seen(&root, Level::Agent), ["b -> uses -> a"]);
    // The agent puts the old snapshot back, and makes the groups the
    // snapshot stands for count one edge more (b's, older than it).
    let path = Layout::new(&root).blob(&hash);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, file).unwrap();
    let db = raw(&root);
    db.execute(
        "INSERT OR REPLACE INTO snapshots (tier, seq, blob, rows, mac) VALUES (0, ?1, ?2, ?3, ?4)",
        rusqlite::params![seq, hash, rows, mac],
    )
    .unwrap();
    let padded = db
        .execute(
            "UPDATE edges SET token = unhex(hex(token) || '0000000000000000') WHERE tier = 0 AND seq <= ?1 AND length(token) > 0",
            [seq],
        )
        .unwrap();
    assert_eq!(padded, 1, "b's public group");
    for level in [Level::Agent, Level::Master] {
        let refused = Store::open(&root, &creds(level, &root));
        assert!(
            matches!(refused, Err(Error::Integrity { .. })),
            "at {level}: {refused:?}"
        );
    }
}

#[test]
fn a_group_s_tokens_are_covered_even_where_a_snapshot_stands_for_its_edges() {
    // Opens read the snapshot, not the groups: only their tags vouch for
    // the edges they count. A token added (the agent's own tier), or the
    // column swapped for the hash a malformed one stands for: refused.
    let tampers = [
        "UPDATE edges SET token = unhex(hex(token) || '0000000000000000') WHERE tier = 0",
        "UPDATE edges SET token = randomblob(32) WHERE tier = 0",
    ];
    for tamper in tampers {
        let (_dir, root) = grouped_store();
        let mut s = open_at(&root, Level::Master);
        s.refresh_snapshots(true).unwrap();
        drop(s);
        assert!(raw(&root).execute(tamper, []).unwrap() > 0);
        for level in [Level::Agent, Level::Master] {
            let refused = Store::open(&root, &creds(level, &root));
            assert!(
                matches!(refused, Err(Error::Integrity { .. })),
                "{tamper} at {level}: {refused:?}"
            );
        }
    }
}

#[test]
fn a_commit_keeps_no_edge_it_did_not_read_and_loses_none_it_did() {
    // The group a commit rewrites is changed outside Graphex under the
    // writer's session: removed, or its record replaced.
    for tamper in [
        "DELETE FROM edges WHERE tier = 0",
        "UPDATE edges SET sealed = zeroblob(1) WHERE tier = 0",
    ] {
        let (_dir, root) = grouped_store();
        let mut s = open_at(&root, Level::Master);
        raw(&root).execute(tamper, []).unwrap();
        let refused = s.link(edge("a", "calls", "b"));
        assert!(matches!(refused, Err(Error::Integrity { .. })), "{tamper}: {refused:?}");
    }
}

#[test]
fn an_edge_a_commit_both_moves_and_removes_is_removed() {
    // What a federation pull that raises a node and withdraws one of its
    // edges plans: the edge re-tiered and removed in one commit.
    let (_dir, root) = grouped_store();
    let mut s = open_at(&root, Level::Human);
    let e = s
        .catalog()
        .edges()
        .find(|e| s.describe_edge(e) == "a -> uses -> b")
        .cloned()
        .unwrap();
    let plan = super::plan::Plan {
        edges: vec![crate::model::Edge {
            tier: Tier::AgentRestricted,
            ..e.clone()
        }],
        removed_edges: vec![(e.id, e.tier)],
        ..Default::default()
    };
    s.commit(plan, Durability::Sync).unwrap();
    assert!(s.catalog().edge(&e.id).is_none());
    s.link(edge("a", "calls", "b")).unwrap();
    drop(s);
    assert_eq!(
        edges_seen(&root, Level::Human),
        ["a -> calls -> b", "a -> uses -> c", "a -> uses -> h", "b -> uses -> a"]
    );
}
