//! Merges across a key rotation on one branch: the stale branch's records
//! are sealed again under the new key, and rotations on both branches are
//! refused.

use super::tests::{db, describe, forked, merge, take_their_keys};
use super::*;
use crate::keys::{KdfCost, Level};
use crate::store::tests::{creds, edge, node, open_at};

#[test]
fn a_rotation_on_their_branch_and_adds_on_ours_merge_into_a_store_that_opens() {
    let (_d, ours, _bd, theirs, base) = forked();
    {
        let mut s = open_at(&ours, Level::Master);
        s.add_node(node("alpha", Tier::AgentRestricted, "added under the old key"))
            .unwrap();
        s.link(edge("alpha", "uses", "other")).unwrap();
    }
    describe(&ours, "other", "changed under the old key");
    open_at(&theirs, Level::Master)
        .rotate_key(Tier::AgentRestricted, None, KdfCost(Some(4)))
        .unwrap();
    open_at(&theirs, Level::Master)
        .add_node(node("beta", Tier::AgentRestricted, "new key"))
        .unwrap();
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!(report.conflicts, 0, "{report:?}");
    assert!(
        !report.new_files.is_empty(),
        "ours' blobs were rewrapped into new files"
    );
    let old_keys = Keyring::unlock(&crate::store::Layout::new(&ours).keys(), &creds(Level::Master, &ours)).unwrap();
    take_their_keys(&ours, &theirs);
    let s = open_at(&ours, Level::Master);
    // Every restricted node's blob opens under the new key, none under the old.
    for n in s.catalog().nodes().filter(|n| n.tier == Tier::AgentRestricted) {
        let (version, blob): (i64, String) = s
            .conn()
            .query_row(
                &format!(
                    "SELECT version, {} FROM nodes WHERE id = ?1",
                    crate::store::kit::blob_name::BLOB_NAME
                ),
                [n.id.as_bytes().as_slice()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let bytes = s.objects().read(&blob).unwrap();
        let v = u64::try_from(version).unwrap();
        assert!(crate::codec::decode_node(s.keys(), &n.id, v, n.tier, &bytes).is_ok());
        assert!(
            crate::codec::decode_node(&old_keys, &n.id, v, n.tier, &bytes).is_err(),
            "{}",
            n.name
        );
    }
    for (name, text) in [
        ("alpha", "added under the old key"),
        ("other", "changed under the old key"),
        ("beta", "new key"),
    ] {
        assert_eq!(s.node(name).unwrap().description, text);
    }
    let alpha = s.catalog().by_name("alpha").unwrap().id;
    assert_eq!(s.catalog().outgoing(&alpha).count(), 1);
    s.check_history().unwrap();
    assert_eq!(s.history("other").unwrap().len(), 2);
}
#[test]
fn a_rotation_on_our_branch_and_adds_on_theirs_merge_into_a_store_that_opens() {
    let (_d, ours, _bd, theirs, base) = forked();
    open_at(&ours, Level::Master)
        .rotate_key(Tier::AgentRestricted, None, KdfCost(Some(4)))
        .unwrap();
    {
        let mut s = open_at(&theirs, Level::Master);
        s.add_node(node("beta", Tier::AgentRestricted, "added under the old key"))
            .unwrap();
        s.link(edge("beta", "uses", "other")).unwrap();
    }
    describe(&theirs, "other", "changed on theirs");
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!(
        (report.conflicts, report.nodes_added, report.nodes_changed),
        (0, 1, 1),
        "{report:?}"
    );
    let s = open_at(&ours, Level::Master);
    assert_eq!(s.node("beta").unwrap().description, "added under the old key");
    assert_eq!(s.node("other").unwrap().description, "changed on theirs");
    s.check_history().unwrap();
    for v in s.history("other").unwrap() {
        s.node_version(&s.catalog().by_name("other").unwrap().id, v.version)
            .unwrap();
    }
}
#[test]
fn rotations_on_both_branches_are_refused() {
    let (_d, ours, _bd, theirs, base) = forked();
    for root in [&ours, &theirs] {
        open_at(root, Level::Master)
            .rotate_key(Tier::AgentRestricted, None, KdfCost(Some(4)))
            .unwrap();
    }
    let err = merge(&ours, &theirs, &base).unwrap_err().to_string();
    assert!(err.contains("rotated on both branches"), "{err}");
}
#[test]
fn a_rotation_undone_on_the_other_branch_by_older_key_files_is_refused() {
    let (_d, ours, _bd, theirs, base) = forked();
    open_at(&ours, Level::Master)
        .add_node(node("alpha", Tier::AgentRestricted, "a"))
        .unwrap();
    // Before a first rotation the index records no commitment.
    let first: Option<String> = rusqlite::Connection::open(db(&theirs))
        .unwrap()
        .query_row("SELECT value FROM meta WHERE key = 'key_commit:2'", [], |r| r.get(0))
        .ok();
    assert!(first.is_none());
    open_at(&theirs, Level::Master)
        .rotate_key(Tier::AgentRestricted, None, KdfCost(Some(4)))
        .unwrap();
    // The agent puts the older (genuine) key files back on the branch, and
    // the index's record of the key with them.
    take_their_keys(&theirs, &ours);
    rusqlite::Connection::open(db(&theirs))
        .unwrap()
        .execute_batch("DELETE FROM meta WHERE key IN ('key_commit:2', 'key_version:2')")
        .unwrap();
    let before = std::fs::read(db(&ours)).unwrap();
    let err = merge(&ours, &theirs, &base).unwrap_err().to_string();
    assert!(err.contains("not the ones its rotation made"), "{err}");
    assert_eq!(std::fs::read(db(&ours)).unwrap(), before);
}
