//! Unlink, supersede and undo of any change: each one commit that keeps
//! the seal, manifest and row MACs valid (every test reopens at the master
//! and agent levels), clear errors, and undo walking back change by change.

use super::tests::{edge, new_store, node, open_at};
use super::*;
use crate::keys::KdfCost;
use crate::model::{NodePatch, Status, Tier};
use crate::proposal::Undone;

/// What a session reads, versions aside: nodes and edges, sorted.
fn state(s: &Store) -> Vec<String> {
    let c = s.catalog();
    let mut out: Vec<String> = c
        .nodes()
        .map(|n| {
            let full = s.node(n.name.as_str()).unwrap();
            format!(
                "{} {} {} {} {:?}",
                n.name, full.description, n.tier, n.status, full.status_reason
            )
        })
        .collect();
    out.extend(c.edges().map(|e| format!("{} [{}]", s.describe_edge(e), e.tier)));
    out.sort();
    out
}

/// Opens again at the master and agent levels (seal, manifest, MACs).
fn reopens(root: &std::path::Path) -> (Store, Store) {
    let master = open_at(root, Level::Master);
    master.check_history().unwrap();
    (master, open_at(root, Level::Agent))
}

fn two_linked() -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("a", Tier::AgentReadable, "a words")).unwrap();
    s.add_node(node("b", Tier::AgentReadable, "b words")).unwrap();
    s.link(edge("a", "uses", "b")).unwrap();
    s.link(edge("a", "depends-on", "b")).unwrap();
    (dir, root, s)
}

#[test]
fn unlink_removes_one_edge_in_one_commit() {
    let (_dir, root, mut s) = two_linked();
    let gone = s.unlink("a", "uses", "b").unwrap();
    assert_eq!(gone.relation.as_str(), "uses");
    assert_eq!(s.catalog().edge_count(), 1);
    let t = &s.timeline(1).unwrap()[0];
    let rows: Vec<_> = t
        .changes
        .iter()
        .map(|c| (c.action.as_str(), c.edge.as_deref()))
        .collect();
    assert_eq!(rows, vec![("unlink", Some("a -> uses -> b"))]);
    let (master, agent) = reopens(&root);
    assert_eq!(master.catalog().edge_count(), 1);
    assert_eq!(agent.catalog().edge_count(), 1);
    assert!(agent.catalog().edges().all(|e| e.relation.as_str() == "depends-on"));
}

#[test]
fn unlink_names_what_is_missing() {
    let (_dir, root, _) = two_linked();
    let mut h = open_at(&root, Level::Human);
    h.add_node(node("secret", Tier::HumanOnly, "secret words")).unwrap();
    h.link(edge("a", "uses", "secret")).unwrap();
    let mut s = open_at(&root, Level::Master);
    let err = s.unlink("a", "contains", "b").unwrap_err();
    assert!(matches!(err, Error::EdgeNotFound { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("no edge a -> contains -> b"), "{msg}");
    assert!(msg.contains("a's edges to b are: "), "{msg}");
    assert!(msg.contains("1 edge(s) you cannot read"), "{msg}");
    assert!(matches!(s.unlink("nobody", "uses", "b"), Err(Error::NotFound(n)) if n == "nobody"));
    let msg = s.unlink("a", "uses", "secret").unwrap_err().to_string();
    assert!(msg.contains("secret is a node you cannot read"), "{msg}");
    let mut agent = open_at(&root, Level::Agent);
    assert!(matches!(agent.unlink("a", "uses", "b"), Err(Error::Locked { .. })));
    assert_eq!(s.catalog().edge_count(), 2, "nothing was removed");
    reopens(&root);
}

#[test]
fn supersede_links_and_deprecates_in_one_commit() {
    let (_dir, root, mut s) = two_linked();
    s.add_node(node("c", Tier::AgentReadable, "c words")).unwrap();
    let e = s.supersede("b", "c", Some("c does it better")).unwrap();
    assert_eq!(e.relation, crate::proposal::supersedes());
    let b = s.node("b").unwrap();
    assert_eq!(
        (b.status, b.status_reason.as_deref()),
        (Status::Deprecated, Some("c does it better"))
    );
    let t = &s.timeline(1).unwrap()[0];
    let rows: Vec<_> = t.changes.iter().map(|c| c.action.as_str()).collect();
    assert_eq!(rows, vec!["supersede", "link"]);
    // A deprecated node cannot be deprecated again: nothing is written.
    let edges = s.catalog().edge_count();
    assert!(matches!(s.supersede("b", "a", None), Err(Error::Transition { .. })));
    assert_eq!(s.catalog().edge_count(), edges);
    assert!(matches!(s.supersede("c", "c", None), Err(Error::Invalid { .. })));
    // A plain `supersedes` link deprecates an active target too.
    s.link(edge("c", "supersedes", "a")).unwrap();
    let a = s.node("a").unwrap();
    assert_eq!(
        (a.status, a.status_reason.as_deref()),
        (Status::Deprecated, Some("superseded by c"))
    );
    // ... and only links one that is not active.
    s.link(edge("a", "supersedes", "b")).unwrap();
    assert_eq!(s.node("b").unwrap().status_reason.as_deref(), Some("c does it better"));
    let (master, agent) = reopens(&root);
    assert_eq!(state(&master), state(&s));
    assert_eq!(agent.summary("b").unwrap().status, Status::Deprecated);
}

#[test]
fn a_new_successor_and_its_supersede_are_one_commit_or_none() {
    let (_dir, root, mut s) = two_linked();
    let seq = s.seen_seq();
    let c = s
        .supersede_by_new("b", node("c", Tier::AgentReadable, "c words"), Some("c does it better"))
        .unwrap();
    assert_eq!(c.name.as_str(), "c");
    assert_eq!(s.seen_seq(), seq + 1, "one commit");
    let b = s.node("b").unwrap();
    assert_eq!(
        (b.status, b.status_reason.as_deref()),
        (Status::Deprecated, Some("c does it better"))
    );
    let t = &s.timeline(1).unwrap()[0];
    let rows: Vec<_> = t.changes.iter().map(|c| c.action.as_str()).collect();
    assert_eq!(rows, vec!["add", "supersede", "link"]);
    // Refused (b is deprecated already): no orphan successor is left.
    let err = s.supersede_by_new("b", node("d", Tier::AgentReadable, "d words"), None);
    assert!(matches!(err, Err(Error::Transition { .. })), "{err:?}");
    assert!(s.summary("d").is_err(), "nothing written");
    // Undone as one change: both go.
    s.undo().unwrap();
    assert!(s.summary("c").is_err());
    assert_eq!(s.node("b").unwrap().status, Status::Active);
    let (master, _) = reopens(&root);
    assert_eq!(state(&master), state(&s));
}

#[test]
fn undo_walks_back_every_kind_of_change() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    let patch = |description: Option<&str>, tier: Option<Tier>| NodePatch {
        description: description.map(str::to_owned),
        tier,
        ..NodePatch::default()
    };
    type Op = Box<dyn Fn(&mut Store)>;
    let ops: Vec<(&str, Op)> = vec![
        (
            "add",
            Box::new(|s| drop(s.add_node(node("a", Tier::AgentReadable, "a words")).unwrap())),
        ),
        (
            "add",
            Box::new(|s| drop(s.add_node(node("b", Tier::AgentReadable, "b words")).unwrap())),
        ),
        (
            "add",
            Box::new(|s| drop(s.add_node(node("c", Tier::AgentRestricted, "c words")).unwrap())),
        ),
        (
            "update",
            Box::new(move |s| drop(s.update_node("a", &patch(Some("new words"), None)).unwrap())),
        ),
        (
            "update",
            Box::new(move |s| drop(s.update_node("c", &patch(None, Some(Tier::AgentReadable))).unwrap())),
        ),
        (
            "deprecate",
            Box::new(|s| drop(s.set_status("a", Status::Deprecated, Some("old")).unwrap())),
        ),
        (
            "restore",
            Box::new(|s| drop(s.set_status("a", Status::Active, None).unwrap())),
        ),
        (
            "deprecate",
            Box::new(|s| drop(s.set_status("b", Status::Deprecated, Some("old")).unwrap())),
        ),
        (
            "archive",
            Box::new(|s| drop(s.set_status("b", Status::Archived, None).unwrap())),
        ),
        (
            "restore",
            Box::new(|s| drop(s.set_status("b", Status::Active, None).unwrap())),
        ),
        ("link", Box::new(|s| drop(s.link(edge("a", "uses", "b")).unwrap()))),
        ("link", Box::new(|s| drop(s.link(edge("c", "uses", "b")).unwrap()))),
        ("unlink", Box::new(|s| drop(s.unlink("a", "uses", "b").unwrap()))),
        (
            "supersede",
            Box::new(|s| drop(s.supersede("b", "c", Some("replaced")).unwrap())),
        ),
        (
            "supersede",
            Box::new(|s| drop(s.link(edge("c", "supersedes", "a")).unwrap())),
        ),
    ];
    let mut states = Vec::new();
    for (_, op) in &ops {
        states.push(state(&s));
        op(&mut s);
    }
    assert!(
        open_at(&root, Level::Agent).summary("c").is_ok(),
        "lowered to agent-readable"
    );
    for (action, _) in ops.iter().rev() {
        let before = states.pop().unwrap();
        match s.undo().unwrap() {
            Undone::Change { action: a, .. } => assert_eq!(&a, action),
            other => panic!("{other:?}"),
        }
        assert_eq!(state(&s), before, "after undoing a {action}");
        let (master, _) = reopens(&root);
        assert_eq!(state(&master), before, "reopened after undoing a {action}");
    }
    let err = s.undo().unwrap_err();
    assert!(
        matches!(&err, Error::UndoBlocked(m) if m.contains("nothing to undo")),
        "{err}"
    );
    assert!(state(&s).is_empty());
    let (_, agent) = reopens(&root);
    assert!(state(&agent).is_empty());
    // The timeline says which commit each undo reverted.
    let t = s.timeline(2).unwrap();
    let undone: Vec<_> = t.iter().map(|e| e.changes.last().unwrap().undoes).collect();
    assert_eq!(undone, vec![Some(1), Some(2)]);
}

/// A node `c` at `from`, then moved to `to` by an update.
fn retiered(from: Tier, to: Tier) -> (tempfile::TempDir, std::path::PathBuf, Store) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("c", from, "c words")).unwrap();
    let patch = NodePatch {
        tier: Some(to),
        ..NodePatch::default()
    };
    s.update_node("c", &patch).unwrap();
    (dir, root, s)
}

#[test]
fn undoing_a_tier_lowering_raises_it_again_and_the_agent_loses_it() {
    let (_dir, root, mut s) = retiered(Tier::AgentRestricted, Tier::AgentReadable);
    assert!(open_at(&root, Level::Agent).summary("c").is_ok());
    s.undo().unwrap();
    assert_eq!(s.summary("c").unwrap().tier, Tier::AgentRestricted);
    let (_, agent) = reopens(&root);
    assert!(agent.summary("c").is_err());
    assert!(agent.catalog().nodes().next().is_none());
}

#[test]
fn undoing_a_tier_raise_is_refused() {
    let (_dir, root, mut s) = retiered(Tier::Public, Tier::AgentRestricted);
    let err = s.undo().unwrap_err().to_string();
    assert!(err.contains("it raised the tier of c"), "{err}");
    assert!(err.contains("under a lower key"), "{err}");
    assert_eq!(s.timeline(1).unwrap()[0].changes[0].action, "raise-tier");
    assert_eq!(s.summary("c").unwrap().tier, Tier::AgentRestricted);
    assert!(reopens(&root).1.summary("c").is_err());
}

fn kept_tier(s: &Store) -> i64 {
    s.conn.query_row("SELECT tier FROM unlinked", [], |r| r.get(0)).unwrap()
}

#[test]
fn a_kept_edge_follows_tier_raises_and_key_rotations() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("a", Tier::Public, "a words")).unwrap();
    s.add_node(node("b", Tier::Public, "b words")).unwrap();
    s.link(edge("a", "uses", "b")).unwrap();
    s.unlink("a", "uses", "b").unwrap();
    assert_eq!(kept_tier(&s), i64::from(Tier::Public.code()));
    // The kept record rotates with its key, and undo still puts it back.
    s.rotate_key(Tier::Public, None, KdfCost(Some(4))).unwrap();
    let mut s = open_at(&root, Level::Master);
    s.undo().unwrap();
    assert_eq!(s.catalog().edge_count(), 1);
    assert_eq!(kept_count(&s), 0, "put back: the kept copy goes");
    // Removed again, then an end raised: the copy is re-sealed above the public key.
    s.unlink("a", "uses", "b").unwrap();
    let raise = NodePatch {
        tier: Some(Tier::AgentRestricted),
        ..NodePatch::default()
    };
    s.update_node("b", &raise).unwrap();
    assert_eq!(kept_tier(&s), i64::from(Tier::AgentRestricted.code()));
    let (master, locked) = (reopens(&root).0, open_at(&root, Level::Locked));
    assert_eq!(kept_tier(&master), i64::from(Tier::AgentRestricted.code()));
    assert!(locked.catalog().edges().next().is_none());
}

fn kept_count(s: &Store) -> i64 {
    s.conn
        .query_row("SELECT COUNT(*) FROM unlinked", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_forged_kept_edge_is_refused() {
    let (_dir, root, mut s) = two_linked();
    s.unlink("a", "uses", "b").unwrap();
    s.conn.execute("UPDATE unlinked SET mac = NULL", []).unwrap();
    let err = s.undo().unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
    assert!(matches!(
        open_at(&root, Level::Master).check_history(),
        Err(Error::Integrity { .. })
    ));
    assert_eq!(s.catalog().edge_count(), 1, "nothing was put back");
}

#[test]
fn the_timeline_names_an_undone_add_and_numbers_notes_apart() {
    let (_dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("gone-soon", Tier::Public, "words")).unwrap();
    s.undo().unwrap();
    let t = s.timeline(10).unwrap();
    let add = t.iter().find(|e| e.changes.iter().any(|c| c.action == "add")).unwrap();
    assert_eq!(add.changes[0].node.as_deref(), Some("gone-soon"), "{t:?}");
    assert!(t.iter().all(|e| (e.commit == 0) == e.note.is_some()), "{t:?}");
}
