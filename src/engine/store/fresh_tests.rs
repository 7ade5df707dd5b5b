//! Rollback of a whole store, outside git: a `graph.db` put back as it was
//! at an earlier commit (validly sealed) is caught at open, by the master
//! and by an agent, and nothing but a deliberate accept clears it.

use std::path::Path;

use super::tests::{creds, new_store};
use super::*;
use crate::freshness::{Kind, RecordFile, Verdict};
use crate::model::{Name, NewNode, NodeType};

fn add(root: &Path, name: &str) {
    let mut s = Store::open(root, &creds(Level::Master, root)).unwrap();
    s.add_node(NewNode::new(
        Name::new(name).unwrap(),
        NodeType::new("convention").unwrap(),
        format!("{name} as written"),
        Tier::AgentReadable,
    ))
    .unwrap();
}

/// A store at commit 1, its file saved, then moved on to commit 2.
fn moved_on() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let (dir, root) = new_store();
    let _ = creds(Level::Agent, &root);
    add(&root, "retry-policy");
    // The agent's session sees commit 1 too.
    let agent = Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    assert!(matches!(agent.freshness().unwrap().verdict, Verdict::First));
    drop(agent);
    let old = std::fs::read(Layout::new(&root).db()).unwrap();
    add(&root, "security-fix");
    let agent = Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    assert!(matches!(
        agent.freshness().unwrap().verdict,
        Verdict::Fresh { moved: true }
    ));
    (dir, root, old)
}

#[test]
fn a_store_put_back_opens_read_only_until_accepted() {
    let (_dir, root, old) = moved_on();
    std::fs::write(Layout::new(&root).db(), &old).unwrap();

    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let rb = s.rolled_back().expect("the rollback is caught").clone();
    assert_eq!(rb.seq, 1);
    assert!(rb.recorded.seq >= 2, "{rb:?}");
    assert!(!rb.git_forward);
    let text = rollback_text(&root, &rb);
    assert!(
        text.contains("graphex freshness restore") && text.contains("graphex freshness accept"),
        "{text}"
    );
    // Reads still work; every write is refused, naming the rollback.
    assert!(s.summary("retry-policy").is_ok());
    let err = s
        .add_node(NewNode::new(
            Name::new("x").unwrap(),
            NodeType::new("convention").unwrap(),
            "x",
            Tier::Public,
        ))
        .unwrap_err();
    assert!(matches!(err, Error::RolledBack { .. }), "{err}");
    // Opening again does not make it fresh: the record was not moved.
    drop(s);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(s.rolled_back().is_some());
    drop(s);
    // The agent's own record catches it as well.
    let agent = Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    assert!(agent.rolled_back().is_some());
    drop(agent);

    // Deliberately accepted: writable again, and fresh from then on.
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.accept_as_fresh().unwrap();
    assert!(s.rolled_back().is_none());
    drop(s);
    add(&root, "after-accept");
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(matches!(
        s.freshness().unwrap().verdict,
        Verdict::Fresh { moved: false }
    ));
}

#[test]
fn a_store_that_moved_forward_is_fresh_and_a_lost_record_only_loses_protection() {
    let (_dir, root, old) = moved_on();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(s.rolled_back().is_none());
    assert!(matches!(
        s.freshness().unwrap().verdict,
        Verdict::Fresh { moved: false }
    ));
    drop(s);
    // The record deleted: the older store opens (nothing is lost, the
    // protection is), and a new record starts from what it finds.
    let file = RecordFile::for_store(&root, Kind::Master).unwrap();
    std::fs::remove_file(file.path()).unwrap();
    std::fs::write(Layout::new(&root).db(), &old).unwrap();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(matches!(s.freshness().unwrap().verdict, Verdict::First));
    assert!(s.summary("retry-policy").is_ok());
}

#[test]
fn every_statement_follows_the_one_before() {
    let (_dir, root, _old) = moved_on();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let conn = s.conn();
    let head = super::seal_log::current_bytes(conn).unwrap().unwrap();
    let past: Vec<Vec<u8>> = conn
        .prepare("SELECT statement FROM seal_log")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(!past.is_empty());
    for p in &past {
        let id = super::seal_statement::statement_id(p);
        assert!(super::seal_log::descends(conn, &head, &id, 0).unwrap());
        // And never the other way round.
        let back = super::seal_statement::statement_id(&head);
        assert!(!super::seal_log::descends(conn, p, &back, 0).unwrap());
    }
}

#[test]
fn a_record_tampered_with_only_loses_protection() {
    let (_dir, root, _old) = moved_on();
    let file = RecordFile::for_store(&root, Kind::Master).unwrap();
    std::fs::write(file.path(), "{ garbage").unwrap();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let f = s.freshness().unwrap();
    assert!(matches!(f.verdict, Verdict::First), "{:?}", f.verdict);
    assert!(
        f.problem.as_deref().is_some_and(|p| p.contains("does not parse")),
        "{f:?}"
    );
    // Nothing is lost: the store reads and writes, and a new record starts.
    assert!(s.summary("security-fix").is_ok());
    s.add_node(NewNode::new(
        Name::new("later").unwrap(),
        NodeType::new("convention").unwrap(),
        "later",
        Tier::Public,
    ))
    .unwrap();
    assert!(file.load().unwrap().is_some());
}

#[test]
fn a_store_from_before_seals_is_sealed_in_one_step() {
    let (_dir, root) = new_store();
    add(&root, "old-node");
    // As an earlier version left it: no seal, no record, migrated from a
    // schema before seals (what `migrate` notes).
    let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    conn.execute_batch(
        "DELETE FROM seal; UPDATE node_versions SET mac = NULL; UPDATE timeline SET mac = NULL; \
         INSERT OR REPLACE INTO meta (key, value) VALUES ('migrated_from', '3')",
    )
    .unwrap();
    drop(conn);
    std::fs::remove_file(RecordFile::for_store(&root, Kind::Master).unwrap().path()).unwrap();
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let plan = s.seal_plan().unwrap();
    assert!(
        plan.migrated && plan.differences.is_empty() && plan.mixed_macs.is_none(),
        "{plan:?}"
    );
    assert!(s.seal(&[]).unwrap());
    drop(s);
    assert!(Store::open(&root, &creds(Level::Master, &root)).is_ok());
}

#[test]
fn a_write_that_leaves_the_commit_counter_alone_is_read_and_verified() {
    let (_dir, root) = new_store();
    add(&root, "retry-policy");
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(!s.refresh().unwrap(), "nothing changed");
    let id = s.summary("retry-policy").unwrap().id;
    let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    conn.execute(
        "UPDATE nodes SET version = version + 1 WHERE id = ?1",
        [id.as_bytes().as_slice()],
    )
    .unwrap();
    drop(conn);
    let err = s.refresh().unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
}

#[test]
fn a_long_lived_session_is_told_when_graph_db_is_replaced() {
    let (_dir, root, old) = moved_on();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    // A checkout writes a new file and renames it over graph.db.
    let db = Layout::new(&root).db();
    let tmp = db.with_extension("checkout");
    std::fs::write(&tmp, &old).unwrap();
    std::fs::rename(&tmp, &db).unwrap();
    assert!(matches!(s.refresh(), Err(Error::IndexReplaced)));
    // Opened again, it is what a fresh open finds: the older graph.
    let again = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(again.rolled_back().is_some());
}

#[test]
fn an_edit_in_place_before_a_sessions_idle_copy_never_becomes_the_backup() {
    let (_dir, root) = new_store();
    add(&root, "retry-policy");
    let state = crate::freshness::state_dir().unwrap();
    let backup = crate::freshness::backup_path(&state, &root);
    let node = |name: &str| {
        NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("convention").unwrap(),
            format!("{name} as written"),
            Tier::AgentReadable,
        )
    };
    // An unlock session on a store over the copy limit: its commits link
    // graph.db and leave the copy for when it is idle.
    crate::freshness::TEST_COPY_WITHIN.with(|c| c.set(Some(1)));
    let mut session = Store::open_tracking(&root, &creds(Level::Master, &root)).unwrap();
    session.add_node(node("security-fix")).unwrap();
    assert!(session.backup_copy_owed());
    session.copy_backup(&|| false);
    assert!(!session.backup_copy_owed(), "{:?}", session.freshness());
    let verified = std::fs::read(&backup).unwrap();
    // The next commit, then graph.db edited in place before the idle copy
    // (a process with write access and no key, as `sqlite3` would).
    session.add_node(node("audit-trail")).unwrap();
    assert!(session.backup_copy_owed());
    let raw = Connection::open(Layout::new(&root).db()).unwrap();
    let gone = raw
        .execute(
            "DELETE FROM nodes WHERE id = (SELECT id FROM nodes ORDER BY seq DESC, id DESC LIMIT 1)",
            [],
        )
        .unwrap();
    assert_eq!(gone, 1);
    drop(raw);
    session.copy_backup(&|| false);
    crate::freshness::TEST_COPY_WITHIN.with(|c| c.set(None));
    // The copy failed its check: the backup is the last verified one, a
    // copy is still owed, and the session says what happened.
    assert!(session.backup_copy_owed());
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        verified,
        "the verified copy is untouched"
    );
    let problem = session.freshness().unwrap().problem.clone().unwrap_or_default();
    assert!(
        problem.contains("graph.db changed after this process wrote seal") && problem.contains("thrown away"),
        "{problem}"
    );
}

#[test]
fn a_session_owes_no_copy_of_a_commit_another_process_has_gone_past() {
    let (_dir, root) = new_store();
    add(&root, "retry-policy");
    crate::freshness::TEST_COPY_WITHIN.with(|c| c.set(Some(1)));
    let mut session = Store::open_tracking(&root, &creds(Level::Master, &root)).unwrap();
    session
        .add_node(NewNode::new(
            Name::new("security-fix").unwrap(),
            NodeType::new("convention").unwrap(),
            "security-fix as written",
            Tier::AgentReadable,
        ))
        .unwrap();
    crate::freshness::TEST_COPY_WITHIN.with(|c| c.set(None));
    assert!(session.backup_copy_owed());
    // A process of its own commits after it (and copies its backup).
    add(&root, "audit-trail");
    assert!(!session.backup_copy_owed());
    session.copy_backup(&|| false);
    assert_eq!(session.freshness().unwrap().problem, None, "no false alarm");
}
