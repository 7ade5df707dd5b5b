//! `seal` on a store whose seal was deleted never blesses what an
//! attacker did before deleting it: every trap ends in a refusal naming
//! the difference, and nothing changes in force until a person restores
//! or accepts it.

use super::seal_tests::{decided, sql, store};
use super::tests::creds;
use super::*;

fn seal_refusal(root: &std::path::Path, accepted: &[DiffKind]) -> String {
    let mut s = Store::open_to_seal(root, &creds(Level::Master, root)).unwrap();
    let plan = s.seal_plan().unwrap();
    match s.seal(&plan.accepting(accepted)) {
        Err(e @ Error::Unexplained(_)) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn approved_low(root: &std::path::Path) -> f64 {
    let s = Store::open(root, &creds(Level::Master, root)).unwrap();
    s.config().unwrap().config.projection_settings().unwrap().policy.low
}

#[test]
fn deleted_settings_and_an_edited_config_are_not_approved_by_seal() {
    let (_dir, root) = store();
    let config = Layout::new(&root).gpp().join("config.toml");
    std::fs::write(&config, "[graphex.projection]\nlow = 80.0\nhigh = 95.0\n").unwrap();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let digest = s.config_approval().unwrap().digest;
    s.approve_config(&digest).unwrap();
    drop(s);
    let before = approved_low(&root);
    assert_eq!(before, 80.0);
    // No key at all: the approved settings and the seal deleted, the
    // thresholds in .gpp/config.toml lowered.
    sql(&root, "DELETE FROM meta WHERE key = 'policy'", []);
    sql(&root, "DELETE FROM seal", []);
    std::fs::write(&config, "[graphex.projection]\nlow = 0.0\nhigh = 0.0\n").unwrap();
    let msg = seal_refusal(&root, &[]);
    assert!(msg.contains("settings:") && msg.contains("--accept settings"), "{msg}");
    // Nothing changed in force: still unsealed, so still refused.
    assert!(Store::open(&root, &creds(Level::Master, &root)).is_err());
    // The plan shows the settings accepting would put in force: the file's.
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let plan = s.seal_plan().unwrap();
    assert!(plan.settings_from_file);
    assert_eq!(plan.settings.projection_settings().unwrap().policy.low, 0.0);
    // Named without its digest, or with another's: refused, nothing sealed.
    for digest in ["", "0123456789abcdef"] {
        let blind = [Acceptance {
            kind: DiffKind::Settings,
            digest: digest.into(),
        }];
        let err = s.seal(&blind).unwrap_err().to_string();
        assert!(err.contains("--accept"), "{err}");
        assert!(!super::seal::exists(s.conn()).unwrap());
    }
    // The file edited after it was shown: the digest shown no longer
    // names what the store would take.
    let shown = plan.accepting(&[DiffKind::Settings]);
    std::fs::write(&config, "[graphex.projection]\nlow = 1.0\nhigh = 2.0\n").unwrap();
    let err = s.seal(&shown).unwrap_err().to_string();
    assert!(err.contains("changed since it was shown"), "{err}");
    assert!(!super::seal::exists(s.conn()).unwrap());
    // Accepted deliberately, as shown: then, and only then, the file is approved.
    let plan = s.seal_plan().unwrap();
    assert!(s.seal(&plan.accepting(&[DiffKind::Settings])).unwrap());
    drop(s);
    assert_eq!(approved_low(&root), 1.0);
    assert_ne!(approved_low(&root), before);
}

#[test]
fn a_removed_decision_is_named_and_not_sealed() {
    let (_dir, root, _, rejected) = decided();
    sql(&root, "DELETE FROM decisions WHERE proposal = ?1", [&rejected]);
    sql(&root, "DELETE FROM seal", []);
    let msg = seal_refusal(&root, &[]);
    assert!(msg.contains("decisions:"), "{msg}");
    // Accepting another kind does not explain this one.
    let msg = seal_refusal(&root, &[DiffKind::Settings, DiffKind::Audit]);
    assert!(msg.contains("decisions:"), "{msg}");
}

#[test]
fn an_emptied_audit_log_is_named_and_not_sealed() {
    let (_dir, root) = store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    for i in 0..3 {
        let r = crate::audit::tests::record(crate::audit::Kind::Projection, "claude", Tier::Public, &format!("h{i}"));
        s.audit_append(&r).unwrap();
    }
    drop(s);
    sql(&root, "DELETE FROM audit", []);
    sql(&root, "DELETE FROM meta WHERE key = 'audit_head'", []);
    sql(&root, "DELETE FROM seal", []);
    let msg = seal_refusal(&root, &[]);
    assert!(msg.contains("audit:") && msg.contains("record 3"), "{msg}");
}

#[test]
fn forged_rows_beside_mac_carrying_ones_are_never_sealed() {
    let (_dir, root) = store();
    // A forged history row (no MAC: only the master can make one) beside
    // the master's own, and the seal gone.
    sql(
        &root,
        "INSERT INTO node_versions (node_id, version, tier, blob) SELECT node_id, version + 100, tier, blob \
         FROM node_versions LIMIT 1",
        [],
    );
    sql(&root, "DELETE FROM seal", []);
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let plan = s.seal_plan().unwrap();
    assert!(plan.mixed_macs.is_some(), "{plan:?}");
    let every = plan.accepting(&DiffKind::ALL);
    let err = s.seal(&every).unwrap_err().to_string();
    assert!(err.contains("no MAC") && err.contains("--restore"), "{err}");
}

#[test]
fn a_seal_deleted_alone_is_sealed_again_and_follows_the_trusted_one() {
    let (_dir, root) = store();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let before = seal_log::current_bytes(s.conn()).unwrap().unwrap();
    drop(s);
    sql(&root, "DELETE FROM seal", []);
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let plan = s.seal_plan().unwrap();
    assert!(matches!(plan.reference, Some(Reference::Record(_))), "{plan:?}");
    assert!(plan.differences.is_empty(), "{plan:?}");
    assert!(s.seal(&[]).unwrap());
    let now = seal_log::current_bytes(s.conn()).unwrap().unwrap();
    let id = seal_statement::statement_id(&before);
    assert!(seal_log::descends(s.conn(), &now, &id, 0).unwrap());
    drop(s);
    // And the freshness record still holds: the store is fresh.
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(s.rolled_back().is_none());
}

#[test]
fn with_no_trusted_seal_anywhere_sealing_needs_its_own_flag() {
    let (_dir, root) = store();
    let file = crate::freshness::RecordFile::for_store(&root, crate::freshness::Kind::Master).unwrap();
    std::fs::remove_file(file.path()).unwrap();
    sql(&root, "DELETE FROM seal", []);
    let msg = seal_refusal(&root, &[]);
    assert!(msg.contains("no-reference"), "{msg}");
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let plan = s.seal_plan().unwrap();
    assert!(s.seal(&plan.accepting(&[DiffKind::NoReference])).unwrap());
}

#[test]
fn restorable_kinds_come_back_from_the_trusted_copy_one_by_one() {
    let (dir, root, _, rejected) = decided();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let r = crate::audit::tests::record(crate::audit::Kind::Projection, "claude", Tier::Public, "h");
    s.audit_append(&r).unwrap();
    // The proposals' submissions and decisions, and the projection.
    let records = s.audit_verify().unwrap().records;
    assert!(records > 1, "{records}");
    drop(s);
    // The trusted copy: the index as this machine last saw it.
    let copy = dir.path().join("trusted.db");
    std::fs::copy(Layout::new(&root).db(), &copy).unwrap();
    // No key: a decision and the audit log deleted, and the seal.
    sql(&root, "DELETE FROM decisions WHERE proposal = ?1", [&rejected]);
    sql(&root, "DELETE FROM audit", []);
    sql(&root, "DELETE FROM seal", []);
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    // Without the copy, refused; with it, both come back and it seals.
    assert!(matches!(s.seal_restoring(&[], None), Err(Error::Unexplained(_))));
    assert!(s.seal_restoring(&[], Some(&copy)).unwrap());
    drop(s);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(
        s.decided().unwrap().contains(&rejected),
        "the rejected proposal stays decided"
    );
    assert_eq!(s.audit_verify().unwrap().records, records);
    assert!(s.rolled_back().is_none());
}

#[test]
fn a_copy_that_is_not_the_trusted_state_restores_nothing() {
    let (dir, root, _, rejected) = decided();
    let copy = dir.path().join("older.db");
    std::fs::copy(Layout::new(&root).db(), &copy).unwrap();
    // The store moves on: the copy is no longer the trusted state.
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(crate::model::NewNode::new(
        crate::model::Name::new("later").unwrap(),
        crate::model::NodeType::new("convention").unwrap(),
        "later",
        Tier::Public,
    ))
    .unwrap();
    drop(s);
    sql(&root, "DELETE FROM decisions WHERE proposal = ?1", [&rejected]);
    sql(&root, "DELETE FROM seal", []);
    let mut s = Store::open_to_seal(&root, &creds(Level::Master, &root)).unwrap();
    let err = s.seal_restoring(&[], Some(&copy)).unwrap_err().to_string();
    assert!(err.contains("not the one the comparison trusted"), "{err}");
    assert!(!super::seal::exists(s.conn()).unwrap());
}
