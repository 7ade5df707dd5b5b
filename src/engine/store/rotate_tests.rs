//! Key rotation: everything stays readable under the new key, the old key
//! (and what it sealed) is refused, and a crash at any step loses nothing.

use std::path::Path;

use age::secrecy::SecretString;

use super::tests::{creds, open_at};
use super::*;
use crate::audit::Kind;
use crate::keys::KdfCost;
use crate::keys::rotation;
use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Tier};
use crate::proposal::ProposalId;
use crate::proposal::Undone;
use crate::rotate::Rotated;

const HUMAN: &str = "human only phrase";

fn human() -> SecretString {
    SecretString::from(HUMAN)
}

fn cheap() -> KdfCost {
    KdfCost(Some(4))
}

/// A store with a node of every tier (one with two versions), edges in
/// three tiers, a rejected proposal (a decision) and audit records sealed
/// at three levels. Returns the rejected proposal's id too.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf, ProposalId) {
    let (dir, root) = crate::proposal::tests::graph();
    let mut s = open_at(&root, Level::Human);
    for (name, tier) in [
        ("docs-site", Tier::Public),
        ("style-guide", Tier::Public),
        ("billing-db", Tier::AgentRestricted),
    ] {
        s.add_node(NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("service").unwrap(),
            format!("{name} description"),
            tier,
        ))
        .unwrap();
    }
    let patch = NodePatch {
        description: Some("orders, second version".into()),
        ..NodePatch::default()
    };
    s.update_node("orders-service", &patch).unwrap();
    for (from, to) in [
        ("orders-service", "api-gateway"),
        ("payroll", "billing-db"),
        ("docs-site", "api-gateway"),
        ("docs-site", "style-guide"),
        ("billing-db", "docs-site"),
    ] {
        s.link(NewEdge::new(
            Name::new(from).unwrap(),
            Relation::new("depends-on").unwrap(),
            Name::new(to).unwrap(),
        ))
        .unwrap();
    }
    drop(s);
    let id = crate::proposal::tests::propose(&mut open_at(&root, Level::Agent), crate::proposal::tests::retry_queue());
    open_at(&root, Level::Master).reject(&id, "not needed").unwrap();
    for level in [Level::Agent, Level::Master, Level::Human] {
        let r = crate::audit::tests::record(Kind::Projection, "a", Tier::Public, level.to_string().as_str());
        open_at(&root, level).audit_append(&r).unwrap();
    }
    (dir, root, id)
}

/// Everything a human-level session reads: each node in full with its
/// history, each edge, the decision and the audit records.
fn everything(root: &Path, id: &ProposalId) -> String {
    let s = open_at(root, Level::Human);
    let mut out = Vec::new();
    let mut names: Vec<_> = s.catalog().nodes().map(|n| n.name.to_string()).collect();
    names.sort();
    for name in &names {
        let node = s.node(name).unwrap();
        out.push(format!("{name} {:?} {} {}", node.tier, node.version, node.description));
        for v in 1..=node.version {
            out.push(format!("  v{v} {}", s.node_version(&node.id, v).unwrap().description));
        }
    }
    let mut edges: Vec<_> = s.catalog().edges().map(|e| s.describe_edge(e)).collect();
    edges.sort();
    out.extend(edges);
    out.push(format!("{:?}", s.decision(id).unwrap().unwrap().outcome));
    let verification = s.audit_verify().unwrap();
    assert!(verification.ok, "{verification:?}");
    for e in s.audit_list(None, None, 100).unwrap() {
        assert!(!e.corrupt, "audit record {} unreadable", e.seq);
        out.push(format!("audit {} {}", e.seq, e.record.unwrap().projection_hash));
    }
    out.join("\n")
}

fn rotate(root: &Path, tier: Tier) -> Rotated {
    let mut s = open_at(root, Level::Human);
    s.rotate_key(tier, Some(&human()), cheap()).unwrap()
}

fn blob_names(root: &Path) -> std::collections::BTreeSet<String> {
    crate::store::Objects::new(Layout::new(root).objects())
        .list()
        .unwrap()
        .into_iter()
        .map(|e| match e {
            Ok((hash, _)) => hash,
            Err(path) => path.display().to_string(),
        })
        .collect()
}

/// The blob files the index names for `tier`, current and past versions.
fn tier_blobs(root: &Path, tier: Tier) -> std::collections::BTreeSet<String> {
    let s = open_at(root, Level::Master);
    let mut stmt = s
        .conn()
        .prepare(&format!(
            "SELECT {b} FROM node_versions WHERE tier = ?1 UNION SELECT {b} FROM nodes WHERE tier = ?1",
            b = super::blob_name::BLOB_NAME
        ))
        .unwrap();
    stmt.query_map([tier.code()], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
fn every_tier_rotates_and_everything_stays_readable() {
    let (_d, root, id) = fixture();
    let before = everything(&root, &id);
    let paths = Layout::new(&root).keys();
    for tier in Tier::ALL {
        let old_file = std::fs::read(paths.tier(tier)).unwrap();
        let old_blobs = tier_blobs(&root, tier);
        let done = rotate(&root, tier);
        assert_eq!(done.key_version, 2, "{tier}");
        assert!(done.summaries >= 1 && done.edges >= 1, "{tier}: {done:?}");
        assert_eq!(done.decisions > 0, tier == Tier::AgentReadable, "{tier}");
        assert_ne!(std::fs::read(paths.tier(tier)).unwrap(), old_file, "{tier}");
        assert!(rotation::staged_files(&paths).is_empty());
        assert_eq!(everything(&root, &id), before, "after rotating {tier}");
        // Every blob the old key wrapped is gone from the store.
        assert_eq!(old_blobs.len() as u64, done.blobs, "{tier}");
        let now = blob_names(&root);
        assert!(
            old_blobs.iter().all(|b| !now.contains(b)),
            "{tier}: old blob files left"
        );
        let s = open_at(&root, Level::Master);
        // The count of sealings under the new key starts again.
        let counted = sealings(s.conn()).unwrap().unwrap()[tier.code() as usize];
        assert!(
            counted >= done.blobs + done.summaries && counted < 40,
            "{tier}: {counted}"
        );
    }
    // Agents still read their tiers, and the outcome of their proposal.
    let agent = open_at(&root, Level::Agent);
    assert!(agent.node("orders-service").unwrap().description.contains("second"));
    assert!(agent.decision(&id).unwrap().is_some());
    // Locked sessions still read public content.
    assert!(open_at(&root, Level::Locked).node("docs-site").is_ok());
    // A decision from before the rotations is still undone, and the
    // rotations are on the timeline.
    let mut s = open_at(&root, Level::Master);
    assert!(matches!(s.undo().unwrap(), Undone::Decision { proposal, .. } if proposal == id.to_string()));
    assert!(s.decision(&id).unwrap().is_none());
    let rotations = s
        .timeline(100)
        .unwrap()
        .iter()
        .flat_map(|e| &e.changes)
        .filter(|c| c.action.starts_with("rotate-key"))
        .count();
    assert_eq!(rotations, 4);
}

#[test]
fn the_old_key_and_its_blobs_are_refused_after_rotation() {
    let (_d, root, _) = fixture();
    let paths = Layout::new(&root).keys();
    let old_key = std::fs::read(paths.tier(Tier::AgentReadable)).unwrap();
    let old_auth = std::fs::read(paths.auth()).unwrap();
    let gateway = open_at(&root, Level::Master).summary("api-gateway").unwrap().id;
    let blob_of = |root: &Path| -> String {
        open_at(root, Level::Master)
            .conn()
            .query_row(
                &format!("SELECT {} FROM nodes WHERE id = ?1", super::blob_name::BLOB_NAME),
                [gateway.as_bytes().as_slice()],
                |r| r.get(0),
            )
            .unwrap()
    };
    let old_blob_name = blob_of(&root);
    let old_blob = std::fs::read(Layout::new(&root).blob(&old_blob_name)).unwrap();
    rotate(&root, Tier::AgentReadable);
    let new_key = std::fs::read(paths.tier(Tier::AgentReadable)).unwrap();
    let new_auth = std::fs::read(paths.auth()).unwrap();
    assert!(
        !Layout::new(&root).blob(&old_blob_name).exists(),
        "the blob the old key wrapped stays in the store"
    );

    // The old key file alone: the keyring does not commit to it.
    std::fs::write(paths.tier(Tier::AgentReadable), &old_key).unwrap();
    for level in [Level::Master, Level::Agent] {
        let e = Store::open(&root, &creds(level, &root)).unwrap_err();
        assert!(matches!(e, Error::KeyringForged { .. }), "{level}: {e}");
    }
    // With the old keyring file too: the index names the key retired.
    std::fs::write(paths.auth(), &old_auth).unwrap();
    for level in [Level::Master, Level::Agent] {
        let e = Store::open(&root, &creds(level, &root)).unwrap_err();
        assert!(
            matches!(
                e,
                Error::KeyRetired {
                    tier: Tier::AgentReadable,
                    current: 2,
                    ..
                }
            ),
            "{level}: {e}"
        );
        assert!(e.to_string().contains("retired"), "{e}");
    }
    std::fs::write(paths.tier(Tier::AgentReadable), &new_key).unwrap();
    std::fs::write(paths.auth(), &new_auth).unwrap();

    // The old blob put back and named by the index: refused on read, and
    // at the next open.
    std::fs::write(Layout::new(&root).blob(&old_blob_name), &old_blob).unwrap();
    let s = open_at(&root, Level::Master);
    s.conn()
        .execute(
            "UPDATE nodes SET blob = ?1 WHERE id = ?2",
            rusqlite::params![old_blob_name, gateway.as_bytes().as_slice()],
        )
        .unwrap();
    let e = s.node("api-gateway").unwrap_err();
    assert!(matches!(e, Error::Integrity { .. }), "{e}");
    drop(s);
    let e = Store::open(&root, &creds(Level::Master, &root)).unwrap_err();
    assert!(e.to_string().contains("master's seal"), "{e}");
}

#[test]
fn a_crash_after_the_commit_is_finished_by_whoever_opens_next() {
    let (_d, root, id) = fixture();
    let before = everything(&root, &id);
    let paths = Layout::new(&root).keys();
    let mut s = open_at(&root, Level::Master);
    s.inject_fault("rotate-after-commit");
    let e = s.rotate_key(Tier::AgentReadable, None, cheap()).unwrap_err();
    assert!(matches!(e, Error::InjectedFault(_)), "{e}");
    drop(s);
    assert_eq!(rotation::staged_files(&paths).len(), 2, "both files staged");
    // An agent opens first: it moves the files into place and reads.
    let agent = open_at(&root, Level::Agent);
    assert!(agent.node("orders-service").is_ok());
    assert!(rotation::staged_files(&paths).is_empty());
    drop(agent);
    let master = open_at(&root, Level::Master);
    assert!(
        rotate::marker(master.conn()).unwrap().is_none(),
        "the marker is cleared"
    );
    drop(master);
    assert_eq!(everything(&root, &id), before);
}

#[test]
fn a_crash_before_the_commit_leaves_the_old_key_in_force() {
    let (_d, root, id) = fixture();
    let before = everything(&root, &id);
    let paths = Layout::new(&root).keys();
    let key = std::fs::read(paths.tier(Tier::AgentRestricted)).unwrap();
    let blobs = blob_names(&root);
    for fault in ["rotate-after-blobs", "rotate-before-commit"] {
        let mut s = open_at(&root, Level::Master);
        s.inject_fault(fault);
        let e = s.rotate_key(Tier::AgentRestricted, None, cheap()).unwrap_err();
        assert!(matches!(e, Error::InjectedFault(_)), "{fault}: {e}");
        // The session still holds the old key and reads with it.
        assert!(s.node("billing-db").is_ok(), "{fault}");
        drop(s);
        assert_eq!(
            std::fs::read(paths.tier(Tier::AgentRestricted)).unwrap(),
            key,
            "{fault}"
        );
        assert_eq!(blob_names(&root), blobs, "{fault}: the new blobs are removed");
        assert!(rotation::staged_files(&paths).is_empty(), "{fault}");
        assert_eq!(everything(&root, &id), before, "{fault}");
    }
    // A crash that left staged files: they are never used, and the next
    // rotation removes them.
    std::fs::write(paths.staged(Tier::AgentRestricted), b"left by a crash").unwrap();
    std::fs::write(paths.auth_staged(), b"left by a crash").unwrap();
    assert_eq!(everything(&root, &id), before);
    let done = open_at(&root, Level::Master)
        .rotate_key(Tier::AgentRestricted, None, cheap())
        .unwrap();
    assert_eq!(done.stale_files_removed, 2);
    assert_eq!(everything(&root, &id), before);
}

#[test]
fn lost_staged_files_are_named_not_guessed_at() {
    let (_d, root, _) = fixture();
    let paths = Layout::new(&root).keys();
    let mut s = open_at(&root, Level::Master);
    s.inject_fault("rotate-after-commit");
    s.rotate_key(Tier::AgentRestricted, None, cheap()).unwrap_err();
    drop(s);
    for p in rotation::staged_files(&paths) {
        std::fs::remove_file(p).unwrap();
    }
    let e = Store::open(&root, &creds(Level::Master, &root)).unwrap_err();
    assert!(matches!(e, Error::Rotation(_)), "{e}");
    assert!(e.to_string().contains("agent-restricted.age.next"), "{e}");
}

#[test]
fn other_sessions_learn_of_the_rotation_and_write_nothing_under_the_old_key() {
    let (_d, root, _) = fixture();
    let mut other = open_at(&root, Level::Master);
    rotate(&root, Tier::AgentReadable);
    assert!(matches!(other.refresh(), Err(Error::KeyRotated(Tier::AgentReadable))));
    let patch = NodePatch {
        description: Some("written with the old key".into()),
        ..NodePatch::default()
    };
    let e = other.retrying(|s| s.update_node("api-gateway", &patch)).unwrap_err();
    assert!(matches!(e, Error::KeyRotated(Tier::AgentReadable)), "{e}");
    // Nor an audit record under the old key.
    let mut agent = open_at(&root, Level::Agent);
    rotate(&root, Tier::AgentReadable);
    let r = crate::audit::tests::record(Kind::Projection, "a", Tier::Public, "late");
    assert!(matches!(agent.audit_append(&r), Err(Error::KeyRotated(_))));
    let s = open_at(&root, Level::Master);
    assert_eq!(s.node("api-gateway").unwrap().version, 1);
}

#[test]
fn rotation_needs_the_right_level_and_one_rotation_at_a_time() {
    let (_d, root, _) = fixture();
    let e = open_at(&root, Level::Agent)
        .rotate_key(Tier::Public, None, cheap())
        .unwrap_err();
    assert!(matches!(e, Error::Locked { .. }), "{e}");
    let e = open_at(&root, Level::Master)
        .rotate_key(Tier::HumanOnly, Some(&human()), cheap())
        .unwrap_err();
    assert!(matches!(e, Error::Locked { .. }), "{e}");
    let e = open_at(&root, Level::Human)
        .rotate_key(Tier::HumanOnly, None, cheap())
        .unwrap_err();
    assert!(matches!(e, Error::MissingSecret(_)), "{e}");
    let paths = Layout::new(&root).keys();
    let held = rotation::lock(&paths, false).unwrap();
    let e = open_at(&root, Level::Master)
        .rotate_key(Tier::Public, None, cheap())
        .unwrap_err();
    assert!(e.to_string().contains("another key rotation"), "{e}");
    drop(held);
    open_at(&root, Level::Master)
        .rotate_key(Tier::Public, None, cheap())
        .unwrap();
}

#[test]
fn a_tampered_store_is_not_rotated_into_a_fresh_manifest() {
    let (_d, root, _) = fixture();
    let s = open_at(&root, Level::Master);
    let mut rotating = open_at(&root, Level::Master);
    // A row deleted outside Graphex, after both sessions verified it.
    s.conn()
        .execute(
            "DELETE FROM edges WHERE id = (SELECT id FROM edges WHERE tier = ?1 LIMIT 1)",
            [Tier::AgentReadable.code()],
        )
        .unwrap();
    let e = rotating.rotate_key(Tier::AgentReadable, None, cheap()).unwrap_err();
    assert!(e.to_string().contains("manifest"), "{e}");
    assert!(rotation::staged_files(&Layout::new(&root).keys()).is_empty());
}

#[test]
fn a_failure_after_the_commit_keeps_the_new_key_files() {
    let (_d, root, id) = fixture();
    let before = everything(&root, &id);
    let paths = Layout::new(&root).keys();
    let mut s = open_at(&root, Level::Master);
    s.inject_fault("rotate-after-tx");
    let e = s.rotate_key(Tier::AgentReadable, None, cheap()).unwrap_err();
    assert!(matches!(e, Error::InjectedFault(_)), "{e}");
    drop(s);
    assert_eq!(rotation::staged_files(&paths).len(), 2, "the new key files are kept");
    // Half moved into place (the tier file only), as a crash between the
    // two renames leaves it: the next open moves the rest.
    std::fs::rename(paths.staged(Tier::AgentReadable), paths.tier(Tier::AgentReadable)).unwrap();
    assert_eq!(everything(&root, &id), before);
    assert!(rotation::staged_files(&paths).is_empty());
}

#[test]
fn a_rotation_builds_on_the_keyring_as_it_is_not_as_it_was_opened() {
    let (_d, root, id) = fixture();
    let before = everything(&root, &id);
    // Opened before another process rotates a tier this session cannot
    // even read; its own rotation must keep that tier's new commitment.
    let mut master = open_at(&root, Level::Master);
    rotate(&root, Tier::HumanOnly);
    master.rotate_key(Tier::Public, None, cheap()).unwrap();
    drop(master);
    assert_eq!(everything(&root, &id), before);
    // A tier it holds, rotated meanwhile: refused, not rotated from a stale view.
    let mut master = open_at(&root, Level::Master);
    rotate(&root, Tier::AgentRestricted);
    let e = master.rotate_key(Tier::Public, None, cheap()).unwrap_err();
    assert!(matches!(e, Error::KeyRotated(Tier::AgentRestricted)), "{e}");
    drop(master);
    assert_eq!(everything(&root, &id), before);
}

#[test]
fn re_chaining_the_audit_log_checks_the_chain_it_rewrites() {
    use crate::crypto::SymmetricKey;
    let (_d, root, _) = fixture();
    let s = open_at(&root, Level::Human);
    let new = crate::keys::TierCiphers::from_key(&SymmetricKey::from_bytes([7; 32]));
    let old = s.keys().tier(Tier::AgentReadable).unwrap();
    // Altered after the rotation's first check (a record's time moved).
    s.conn()
        .execute("UPDATE audit SET at = at + 1 WHERE seq = 2", [])
        .unwrap();
    // As in a rotation: inside a transaction, rolled back on the error.
    let rekey = || {
        let tx = s.conn().unchecked_transaction().unwrap();
        super::audit_chain::rekey(&tx, old, &new, Tier::AgentReadable).unwrap_err()
    };
    let e = rekey();
    assert!(e.to_string().contains("altered"), "{e}");
    s.conn()
        .execute("UPDATE audit SET at = at - 1 WHERE seq = 2", [])
        .unwrap();
    // The newest record removed.
    s.conn()
        .execute("DELETE FROM audit WHERE seq = (SELECT MAX(seq) FROM audit)", [])
        .unwrap();
    let e = rekey();
    assert!(e.to_string().contains("removed"), "{e}");
}
