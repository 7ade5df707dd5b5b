//! Merges of two branches of one store, as git would run them: the base
//! index saved, each branch a copy of the repository, the other branch's
//! blob files copied over after the index is merged.

use std::path::{Path, PathBuf};

use super::*;
use crate::keys::Level;
use crate::model::{NodePatch, Status};
use crate::store::Store;
use crate::store::tests::{creds, edge, new_store, node, open_at};

/// A copy of the repository at `root`: the other branch's checkout.
pub(super) fn branch(root: &Path) -> (tempfile::TempDir, PathBuf) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let target = to.join(path.file_name().unwrap());
            if path.is_dir() {
                copy(&path, &target);
            } else {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(root, dir.path());
    let path = dir.path().to_path_buf();
    (dir, path)
}

pub(super) fn db(root: &Path) -> PathBuf {
    root.join(".gpp/graphex/graph.db")
}

/// The base index (a copy of the store's `graph.db` as it is now).
pub(super) fn save_base(root: &Path, keep: &tempfile::TempDir) -> PathBuf {
    let to = keep.path().join("base.db");
    std::fs::copy(db(root), &to).unwrap();
    to
}

/// The other branch's files, read from its checkout (the driver reads
/// them from git).
struct Checkout(PathBuf);

impl OtherBranch for Checkout {
    fn keys(&self) -> Result<Option<PathBuf>> {
        Ok(Some(self.0.join(".gpp/graphex/keys")))
    }
    fn blob(&self, name: &str) -> Result<Vec<u8>> {
        crate::store::Objects::new(self.0.join(".gpp/objects")).read(name)
    }
}

/// Merges `theirs` into `ours` as the driver does, then brings the other
/// branch's blob files (and key files, when only it changed them) over as
/// git does.
pub(super) fn merge(ours: &Path, theirs: &Path, base: &Path) -> Result<MergeReport> {
    let report = merge_indexes(
        ours,
        &creds(Level::Master, ours),
        &MergeInput {
            base: base.to_owned(),
            ours: db(ours),
            theirs: db(theirs),
            branch: "feature".into(),
        },
        &Checkout(theirs.to_owned()),
    )?;
    let ours_objects = crate::store::Objects::new(ours.join(".gpp/objects"));
    for (hash, path) in crate::store::Objects::new(theirs.join(".gpp/objects"))
        .list()
        .unwrap()
        .into_iter()
        .flatten()
    {
        if !ours_objects.exists(&hash) {
            let to = crate::store::Layout::new(ours).blob(&hash);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&path, to).unwrap();
        }
    }
    Ok(report)
}

/// What git does to the key files when only the other branch rotated.
pub(super) fn take_their_keys(ours: &Path, theirs: &Path) {
    let (from, to) = (theirs.join(".gpp/graphex/keys"), ours.join(".gpp/graphex/keys"));
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

pub(super) fn describe(root: &Path, name: &str, text: &str) {
    let mut s = open_at(root, Level::Master);
    let patch = NodePatch {
        description: Some(text.into()),
        ..NodePatch::default()
    };
    s.update_node(name, &patch).unwrap();
}

/// A store with `shared` and `other`, its base saved, and a branch of it.
pub(super) fn forked() -> (tempfile::TempDir, PathBuf, tempfile::TempDir, PathBuf, PathBuf) {
    forked_at(false)
}

/// [`forked`], the store made as v10 made it (`one_a_row`: one edge a row).
pub(super) fn forked_at(one_a_row: bool) -> (tempfile::TempDir, PathBuf, tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = new_store();
    if one_a_row {
        rusqlite::Connection::open(root.join(".gpp/graphex/graph.db"))
            .unwrap()
            .execute_batch(crate::store::kit::schema::V10_EMPTY)
            .unwrap();
    }
    {
        let mut s = open_at(&root, Level::Master);
        s.add_node(node("shared", Tier::AgentReadable, "as it was")).unwrap();
        s.add_node(node("other", Tier::AgentRestricted, "restricted")).unwrap();
        s.link(edge("shared", "uses", "other")).unwrap();
    }
    let base = save_base(&root, &dir);
    let (bdir, broot) = branch(&root);
    (dir, root, bdir, broot, base)
}

#[test]
fn disjoint_changes_from_both_branches_land() {
    let (_d, ours, _bd, theirs, base) = forked();
    {
        let mut s = open_at(&ours, Level::Master);
        s.add_node(node("alpha", Tier::Public, "ours")).unwrap();
        s.link(edge("alpha", "uses", "shared")).unwrap();
    }
    {
        let mut s = open_at(&theirs, Level::Master);
        s.add_node(node("beta", Tier::AgentRestricted, "theirs")).unwrap();
        s.link(edge("beta", "depends-on", "shared")).unwrap();
    }
    describe(&theirs, "shared", "changed on the other branch");
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!(
        (
            report.nodes_added,
            report.nodes_changed,
            report.edges_added,
            report.conflicts
        ),
        (1, 1, 1, 0)
    );
    for level in [Level::Master, Level::Agent] {
        let s = Store::open(&ours, &creds(level, &ours)).unwrap();
        assert!(s.catalog().by_name("alpha").is_some());
        assert_eq!(s.catalog().by_name("beta").is_some(), level == Level::Master);
    }
    let s = open_at(&ours, Level::Master);
    assert_eq!(s.node("shared").unwrap().description, "changed on the other branch");
    assert_eq!(s.node("beta").unwrap().description, "theirs");
    let beta = s.catalog().by_name("beta").unwrap().id;
    assert_eq!(s.catalog().outgoing(&beta).count(), 1);
    // Its whole history came with it.
    assert_eq!(s.history("shared").unwrap().len(), 2);
    s.check_history().unwrap();
}

#[test]
fn a_node_changed_on_both_branches_becomes_a_conflict_and_stays_ours() {
    let (_d, ours, _bd, theirs, base) = forked();
    describe(&ours, "shared", "ours says this");
    describe(&theirs, "shared", "theirs says that");
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!(report.conflicts, 1);
    let s = open_at(&ours, Level::Master);
    assert_eq!(s.node("shared").unwrap().description, "ours says this");
    let rows = checked_conflicts(s.conn(), s.keys()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].base_version, rows[0].theirs_version, rows[0].branch.as_str()),
        (Some(1), 2, "feature")
    );
    assert!(
        s.objects().exists(&rows[0].theirs_blob),
        "the other branch's version is kept"
    );
}

#[test]
fn a_branch_altered_outside_graphex_is_refused_and_ours_is_untouched() {
    let (_d, ours, _bd, theirs, base) = forked();
    describe(&theirs, "shared", "theirs");
    let c = rusqlite::Connection::open(db(&theirs)).unwrap();
    c.execute("UPDATE nodes SET tier = 0 WHERE tier = 2", []).unwrap();
    drop(c);
    let before = std::fs::read(db(&ours)).unwrap();
    let err = merge(&ours, &theirs, &base).unwrap_err().to_string();
    assert!(
        err.contains("the other branch") && err.contains("nothing was merged"),
        "{err}"
    );
    assert_eq!(std::fs::read(db(&ours)).unwrap(), before);
}

#[test]
fn a_merge_is_undone_with_git_not_with_undo() {
    let (_d, ours, _bd, theirs, base) = forked();
    open_at(&theirs, Level::Master)
        .add_node(node("beta", Tier::Public, "b"))
        .unwrap();
    merge(&ours, &theirs, &base).unwrap();
    let err = open_at(&ours, Level::Master).undo().unwrap_err().to_string();
    assert!(err.contains("merge"), "{err}");
}

#[test]
fn a_conflict_is_a_merge_proposal_with_three_versions_that_accept_and_undo_handle() {
    let (_d, ours, _bd, theirs, base) = forked();
    describe(&ours, "shared", "ours says this");
    describe(&theirs, "shared", "theirs says that");
    merge(&ours, &theirs, &base).unwrap();
    let mut s = open_at(&ours, Level::Master);
    let pending = s.pending().unwrap().pending;
    assert_eq!(pending.len(), 1);
    let p = &pending[0];
    assert_eq!(p.proposal.source, crate::proposal::Source::Merge);
    let (cards, _) = crate::proposal::cards(&s, pending.clone());
    let sides = cards[0].merge.as_ref().expect("three versions on the card");
    assert_eq!(
        (
            sides.base.as_ref().map(|b| b.description.as_str()),
            sides.ours.description.as_str(),
            sides.theirs.description.as_str()
        ),
        (Some("as it was"), "ours says this", "theirs says that")
    );
    assert_eq!(s.pending_count().unwrap(), 1);
    // Found by its short id, like any proposal.
    let (id, found) = s.proposal(&p.id.as_str()[..8]).unwrap();
    assert_eq!(
        (id.clone(), found.source),
        (p.id.clone(), crate::proposal::Source::Merge)
    );
    // Nobody would answer a request for changes: it is refused.
    let e = s.request_changes(&id, "redo it", None).unwrap_err().to_string();
    assert!(e.contains("comes from git"), "{e}");
    s.accept(&id, &found, &crate::proposal::AcceptOptions::default())
        .unwrap();
    assert_eq!(s.node("shared").unwrap().description, "theirs says that");
    let err = s.proposal(id.as_str()).unwrap_err().to_string();
    assert!(err.contains("it was decided"), "{err}");
    assert!(s.pending().unwrap().pending.is_empty());
    s.undo().unwrap();
    assert_eq!(s.node("shared").unwrap().description, "ours says this");
    assert_eq!(s.pending().unwrap().pending.len(), 1, "back in the queue");
}

#[test]
fn a_conflict_row_deleted_or_forged_outside_graphex_is_caught() {
    let (_d, ours, _bd, theirs, base) = forked();
    describe(&ours, "shared", "ours");
    describe(&theirs, "shared", "theirs");
    merge(&ours, &theirs, &base).unwrap();
    let c = rusqlite::Connection::open(db(&ours)).unwrap();
    c.execute("UPDATE merge_conflicts SET branch = 'trusted-release'", [])
        .unwrap();
    let err = open_at(&ours, Level::Master).pending().unwrap_err().to_string();
    assert!(err.contains("merge conflict row"), "{err}");
    c.execute("DELETE FROM merge_conflicts", []).unwrap();
    drop(c);
    let err = open_at(&ours, Level::Master).pending().unwrap_err().to_string();
    assert!(err.contains("deleted outside Graphex"), "{err}");
}

#[test]
fn a_file_claiming_to_be_a_merge_proposal_is_quarantined() {
    let (_d, root) = new_store();
    let s = open_at(&root, Level::Master);
    let forged = crate::proposal::StoredProposal {
        format: 1,
        created: crate::model::Timestamp::now(),
        source: crate::proposal::Source::Merge,
        edited_from: None,
        bases: Default::default(),
        submission: crate::proposal::Submission::from_json(
            br#"{"agent":"merge","trust":100,"changes":[{"op":"deprecate","name":"x"}]}"#,
        )
        .unwrap(),
    };
    let recipient = crate::proposal::master_recipient(&s.layout().keys()).unwrap();
    crate::proposal::pending::write(&s.layout().pending(), &forged.seal(&recipient).unwrap()).unwrap();
    let scan = s.pending().unwrap();
    assert!(scan.pending.is_empty());
    assert!(
        scan.quarantined[0].reason.contains("branch merge"),
        "{:?}",
        scan.quarantined
    );
}

#[test]
fn stores_created_apart_are_refused_with_the_way_to_join_them() {
    let (d, ours, _bd, theirs, _base) = forked();
    let empty = d.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let err = merge(&ours, &theirs, &empty).unwrap_err().to_string();
    assert!(
        err.contains("created separately") && err.contains("graphex import"),
        "{err}"
    );
}

#[test]
fn sql_code_written_into_an_index_is_refused_and_never_runs() {
    let (_d, ours, _bd, theirs, base) = forked();
    // A trigger added while a master session is open does nothing.
    let mut s = open_at(&ours, Level::Master);
    let c = rusqlite::Connection::open(db(&ours)).unwrap();
    c.execute_batch(
        "CREATE TABLE loot (x BLOB); CREATE TRIGGER steal AFTER UPDATE ON nodes BEGIN INSERT INTO loot VALUES (NEW.id); END;",
    )
    .unwrap();
    s.update_node(
        "shared",
        &NodePatch {
            description: Some("changed".into()),
            ..NodePatch::default()
        },
    )
    .unwrap();
    let n: i64 = c.query_row("SELECT COUNT(*) FROM loot", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 0, "the trigger never fired");
    drop(s);
    // The next open names it and refuses, before writing anything.
    let err = Store::open(&ours, &creds(Level::Master, &ours))
        .unwrap_err()
        .to_string();
    assert!(err.contains("trigger") && err.contains("steal"), "{err}");
    // A branch carrying one is refused by the merge.
    c.execute_batch("DROP TRIGGER steal; DROP TABLE loot;").unwrap();
    drop(c);
    let t = rusqlite::Connection::open(db(&theirs)).unwrap();
    t.execute_batch("CREATE VIEW peek AS SELECT id FROM nodes;").unwrap();
    drop(t);
    let err = merge(&ours, &theirs, &base).unwrap_err().to_string();
    assert!(err.contains("the other branch") && err.contains("view"), "{err}");
}

#[test]
fn an_older_copy_of_the_index_committed_on_a_branch_is_refused() {
    let (dir, root) = new_store();
    open_at(&root, Level::Master)
        .add_node(node("shared", Tier::AgentReadable, "v1"))
        .unwrap();
    let old = dir.path().join("old.db");
    std::fs::copy(db(&root), &old).unwrap();
    describe(&root, "shared", "v2: what the ancestor says");
    let base = save_base(&root, &dir);
    let (_bd, theirs) = branch(&root);
    // The other branch puts the older (genuinely sealed) index back.
    std::fs::copy(&old, db(&theirs)).unwrap();
    open_at(&root, Level::Master)
        .add_node(node("alpha", Tier::Public, "ours"))
        .unwrap();
    let before = std::fs::read(db(&root)).unwrap();
    let err = merge(&root, &theirs, &base).unwrap_err().to_string();
    assert!(err.contains("did not grow from the common ancestor"), "{err}");
    assert_eq!(std::fs::read(db(&root)).unwrap(), before);
    assert_eq!(
        open_at(&root, Level::Master).node("shared").unwrap().description,
        "v2: what the ancestor says"
    );
}

#[test]
fn a_merge_proposal_brings_only_what_the_other_branch_changed() {
    let (_d, ours, _bd, theirs, base) = forked();
    describe(&ours, "shared", "ours rewrote the description");
    let mut patch = NodePatch::default();
    patch.properties.insert("owner".into(), "team-b".into());
    open_at(&theirs, Level::Master).update_node("shared", &patch).unwrap();
    merge(&ours, &theirs, &base).unwrap();
    let mut s = open_at(&ours, Level::Master);
    let p = s.pending().unwrap().pending.remove(0);
    match p.proposal.submission.changes.as_slice() {
        [crate::proposal::Change::UpdateNode { set, .. }] => {
            assert_eq!(set.description, None, "ours' description is not reverted");
            assert_eq!(set.properties.get("owner").map(String::as_str), Some("team-b"));
        }
        other => panic!("{other:?}"),
    }
    s.accept(&p.id, &p.proposal, &crate::proposal::AcceptOptions::default())
        .unwrap();
    let n = s.node("shared").unwrap();
    assert_eq!(
        (n.description.as_str(), n.properties.get("owner").map(String::as_str)),
        ("ours rewrote the description", Some("team-b"))
    );
}

#[test]
fn a_name_both_branches_added_keeps_ours_and_holds_back_theirs_edges() {
    let (_d, ours, _bd, theirs, base) = forked();
    open_at(&ours, Level::Master)
        .add_node(node("gamma", Tier::AgentReadable, "ours"))
        .unwrap();
    {
        let mut s = open_at(&theirs, Level::Master);
        s.add_node(node("gamma", Tier::AgentReadable, "theirs")).unwrap();
        s.link(edge("gamma", "uses", "shared")).unwrap();
    }
    let report = merge(&ours, &theirs, &base).unwrap();
    assert_eq!((report.conflicts, report.edges_added), (1, 0), "{report:?}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("kept apart as a merge proposal")),
        "{report:?}"
    );
    let s = open_at(&ours, Level::Master);
    assert_eq!(s.node("gamma").unwrap().description, "ours");
    let (cards, _) = crate::proposal::cards(&s, s.pending().unwrap().pending);
    assert!(cards[0].proposal.submission.rationale.contains("same name"));
    assert!(
        cards[0]
            .merge
            .as_ref()
            .is_some_and(|m| m.base.is_none() && m.theirs.description == "theirs")
    );
}

#[test]
fn doctor_tells_retired_snapshots_from_planted_files_only_by_the_masters_list() {
    let (_d, ours, _bd, theirs, base) = forked();
    for root in [&ours, &theirs] {
        let mut s = open_at(root, Level::Master);
        for i in 0..300 {
            s.add_node(node(
                &format!("n{i}-{}", root.display().to_string().len()),
                Tier::Public,
                "x",
            ))
            .unwrap();
        }
        s.refresh_snapshots(true).unwrap();
    }
    merge(&ours, &theirs, &base).unwrap();
    let orphans = |root: &Path| {
        let opts = crate::doctor::Options {
            weak_kdf_expected: true,
            ..crate::doctor::Options::default()
        };
        let r = crate::doctor::examine(root, &creds(Level::Master, root), opts).unwrap();
        let c = r.checks.into_iter().find(|c| c.name == "orphan blobs").unwrap();
        (c.outcome, c.detail)
    };
    let (outcome, detail) = orphans(&ours);
    assert_eq!(outcome, crate::doctor::Outcome::Ok, "{detail}");
    assert!(detail.contains("a git merge retired"), "{detail}");
    // A file planted in objects/ and added to the list outside Graphex.
    let planted = "ab".repeat(32);
    std::fs::write(ours.join(".gpp/objects").join(&planted), b"smuggled").unwrap();
    rusqlite::Connection::open(db(&ours))
        .unwrap()
        .execute(
            "UPDATE meta SET value = value || ' ' || ?1 WHERE key = 'retired_snapshots'",
            [&planted],
        )
        .unwrap();
    let (outcome, detail) = orphans(&ours);
    assert_eq!(outcome, crate::doctor::Outcome::Finding, "{detail}");
}

#[test]
fn a_branch_merged_again_later_merges_its_new_work_once() {
    let (d, ours, _bd, theirs, base) = forked();
    open_at(&theirs, Level::Master)
        .add_node(node("beta", Tier::Public, "b"))
        .unwrap();
    open_at(&ours, Level::Master)
        .add_node(node("alpha", Tier::Public, "a"))
        .unwrap();
    merge(&ours, &theirs, &base).unwrap();
    // The other branch goes on; its tip at the first merge is the next ancestor.
    let base2 = d.path().join("base2.db");
    std::fs::copy(db(&theirs), &base2).unwrap();
    open_at(&theirs, Level::Master)
        .add_node(node("gamma", Tier::Public, "c"))
        .unwrap();
    open_at(&ours, Level::Master)
        .add_node(node("delta", Tier::Public, "d"))
        .unwrap();
    let report = merge(&ours, &theirs, &base2).unwrap();
    assert_eq!((report.nodes_added, report.conflicts), (1, 0), "{report:?}");
    let s = open_at(&ours, Level::Master);
    for name in ["alpha", "beta", "gamma", "delta"] {
        assert!(s.catalog().by_name(name).is_some(), "{name}");
    }
    // beta's add was brought once, by the first merge.
    let beta = s.catalog().by_name("beta").unwrap().id;
    let adds: i64 = s
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM timeline WHERE node_id = ?1 AND action = 'add'",
            [beta.as_bytes().as_slice()],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(adds, 1);
    s.check_history().unwrap();
}

#[test]
fn a_branch_whose_timeline_was_cut_or_added_to_is_refused() {
    for statement in [
        "DELETE FROM timeline WHERE seq = (SELECT MAX(seq) FROM timeline)",
        "INSERT INTO timeline (at, actor, action, node_id, commit_seq, mac) \
         SELECT at, actor, action, node_id, commit_seq, mac FROM timeline WHERE seq = 1",
    ] {
        let (_d, ours, _bd, theirs, base) = forked();
        open_at(&theirs, Level::Master)
            .add_node(node("beta", Tier::Public, "b"))
            .unwrap();
        rusqlite::Connection::open(db(&theirs))
            .unwrap()
            .execute(statement, [])
            .unwrap();
        let err = merge(&ours, &theirs, &base).unwrap_err().to_string();
        assert!(
            err.contains("the other branch") && err.contains("nothing was merged"),
            "{statement}: {err}"
        );
    }
}

#[test]
fn a_restore_on_the_other_branch_comes_as_a_restore_change() {
    let (_d, ours, _bd, theirs, base) = forked();
    for root in [&ours, &theirs] {
        open_at(root, Level::Master)
            .set_status("shared", Status::Deprecated, Some("old"))
            .unwrap();
    }
    // Both deprecated it (the ancestor); then theirs restored it and ours edited it.
    let base_dir = tempfile::tempdir().unwrap();
    let base2 = base_dir.path().join("base.db");
    std::fs::copy(db(&theirs), &base2).unwrap();
    open_at(&theirs, Level::Master)
        .set_status("shared", Status::Active, Some("needed after all"))
        .unwrap();
    describe(&ours, "shared", "ours edited it while deprecated");
    drop(base);
    merge(&ours, &theirs, &base2).unwrap();
    let mut s = open_at(&ours, Level::Master);
    let p = s.pending().unwrap().pending.remove(0);
    assert!(
        p.proposal
            .submission
            .changes
            .iter()
            .any(|c| matches!(c, crate::proposal::Change::Restore { .. })),
        "{:?}",
        p.proposal.submission.changes
    );
    s.accept(&p.id, &p.proposal, &crate::proposal::AcceptOptions::default())
        .unwrap();
    let n = s.node("shared").unwrap();
    assert_eq!(
        (n.status, n.description.as_str()),
        (Status::Active, "ours edited it while deprecated")
    );
}
