//! History and timeline rows an agent writes are not followed: undo,
//! history reads and the timeline refuse them at the master level.

use std::path::Path;

use super::tests::creds;
use super::*;
use crate::proposal::AcceptOptions;

fn sql(root: &Path, statement: &str, args: impl rusqlite::Params) -> usize {
    let conn = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    conn.execute(statement, args).unwrap()
}

/// The proposals tests' store, with one accepted proposal that added a
/// node and updated `orders-service` (version 2).
fn accepted() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = crate::proposal::tests::graph();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let id = crate::proposal::tests::propose(
        &mut s,
        serde_json::json!([
            {"op": "add_node", "name": "retry-budget", "type": "convention",
             "description": "retries share a budget", "tier": "agent-readable"},
            {"op": "update_node", "name": "orders-service", "set": {"description": "orders, v2"}}
        ]),
    );
    let p = s.pending().unwrap().pending.into_iter().find(|p| p.id == id).unwrap();
    s.accept(&id, &p.proposal, &AcceptOptions::default()).unwrap();
    (dir, root)
}

#[test]
fn a_history_row_pointed_at_another_file_is_refused() {
    let (_dir, root) = accepted();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let id = s.summary("orders-service").unwrap().id;
    assert_eq!(
        s.node_version(&id, 1).unwrap().description,
        "orders-service description"
    );
    // The agent seals its own version 1 under the agent-readable key it
    // holds (AEAD accepts it: right node, version and tier) and points the
    // history row at it; undo would restore it and the seal cover it.
    let agent = Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    let mut forged = s.node_version(&id, 1).unwrap();
    forged.description = "orders: retry forever".into();
    let blob = agent
        .objects
        .write(&codec::encode_node(&agent.keys, &forged).unwrap(), Durability::Sync)
        .unwrap();
    drop(agent);
    let n = sql(
        &root,
        "UPDATE node_versions SET blob = ?2 WHERE node_id = ?1 AND version = 1",
        rusqlite::params![id.as_bytes().as_slice(), blob],
    );
    assert_eq!(n, 1);
    let err = s.node_version(&id, 1).unwrap_err().to_string();
    assert!(err.contains("history row"), "{err}");
}

#[test]
fn a_timeline_row_deleted_is_caught_by_undo_and_the_seal() {
    let (_dir, root) = accepted();
    // One of a commit's rows deleted: undo would revert only part of it.
    let statement = "DELETE FROM timeline WHERE seq = (SELECT MAX(seq) FROM timeline WHERE proposal IS NOT NULL)";
    assert_eq!(sql(&root, statement, []), 1);
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let err = s.undo().unwrap_err().to_string();
    assert!(err.contains("timeline of commit"), "{err}");
    let err = s.check_history().unwrap_err().to_string();
    assert!(
        err.contains("timeline of commit") || err.contains("timeline differs"),
        "{err}"
    );
    let report = crate::doctor::examine(&root, &creds(Level::Master, &root), Default::default()).unwrap();
    let history = report.checks.iter().find(|c| c.name == "history").unwrap();
    assert_eq!(history.outcome, crate::doctor::Outcome::Finding);
}

#[test]
fn a_whole_commits_timeline_deleted_is_caught_by_the_seal() {
    let (_dir, root) = accepted();
    // Every row of the decision's commit: each remaining row's MAC holds.
    let statement = "DELETE FROM timeline WHERE proposal IS NOT NULL";
    assert!(sql(&root, statement, []) > 0);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let err = s.check_history().unwrap_err().to_string();
    assert!(err.contains("timeline differs from what the master sealed"), "{err}");
}

#[test]
fn undo_refuses_a_commit_whose_timeline_was_added_to() {
    // A row the master never wrote (after the last seal, so only its MAC
    // can tell): undo would also remove `api-gateway`.
    let statement = "INSERT INTO timeline (at, actor, action, node_id, proposal, commit_seq, mac)
         SELECT at, actor, 'add', (SELECT id FROM nodes WHERE tier = 1 LIMIT 1), proposal, commit_seq, mac
         FROM timeline WHERE proposal IS NOT NULL LIMIT 1";
    let (_dir, root) = accepted();
    assert_eq!(sql(&root, statement, []), 1);
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let err = s.undo().unwrap_err().to_string();
    assert!(err.contains("timeline of commit"), "{err}");
    assert!(s.timeline(10).is_err(), "the timeline view refuses it too");
    let report = crate::doctor::examine(&root, &creds(Level::Master, &root), Default::default()).unwrap();
    let history = report.checks.iter().find(|c| c.name == "history").unwrap();
    assert_eq!(history.outcome, crate::doctor::Outcome::Finding);
}

#[test]
fn untouched_history_and_timeline_verify_and_undo_works() {
    let (_dir, root) = accepted();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.check_history().unwrap();
    assert!(!s.timeline(10).unwrap().is_empty());
    s.undo().unwrap();
    assert_eq!(
        s.node("orders-service").unwrap().description,
        "orders-service description"
    );
    s.check_history().unwrap();
}
