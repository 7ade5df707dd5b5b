//! Audit log: append, list per level, preview dedup, and tamper detection.

use super::*;
use crate::keys::Level;
use crate::store::Layout;

pub(crate) fn record(kind: Kind, agent: &str, tier: Tier, hash: &str) -> AuditRecord {
    AuditRecord {
        kind,
        at: Timestamp::now(),
        agent: agent.into(),
        trust: Some(94.2),
        local: false,
        tier,
        center: "orders-service -> * -> *".into(),
        budget: 500,
        tokens: 120,
        emitted: vec![NodeRef {
            id: crate::model::NodeId::generate(),
            version: 3,
            tier: Tier::Public,
        }],
        cut: Vec::new(),
        projection_hash: hash.into(),
        cost: None,
        activity: None,
    }
}

/// A store with five records; returns its root.
fn logged() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = crate::store::tests::new_store();
    let tiers = [
        Tier::Public,
        Tier::AgentReadable,
        Tier::AgentRestricted,
        Tier::Public,
        Tier::AgentReadable,
    ];
    for (i, tier) in tiers.iter().enumerate() {
        // Records are sealed at the writer's level: public for a locked writer.
        let level = if *tier == Tier::Public {
            Level::Locked
        } else {
            Level::Master
        };
        let mut s = crate::store::tests::open_at(&root, level);
        let agent = if i % 2 == 0 { "claude-code" } else { "other" };
        let seq = s
            .audit_append(&record(Kind::Projection, agent, *tier, &format!("h{i}")))
            .unwrap();
        assert_eq!(seq, Some(i as u64 + 1));
    }
    (dir, root)
}

fn sql(root: &std::path::Path, stmt: &str) {
    rusqlite::Connection::open(Layout::new(root).db())
        .unwrap()
        .execute_batch(stmt)
        .unwrap();
}

#[test]
fn an_intact_log_verifies_and_lists_per_level() {
    let (_d, root) = logged();
    let s = crate::store::tests::open_at(&root, Level::Locked);
    assert_eq!(
        s.audit_verify().unwrap(),
        Verification {
            records: 5,
            ok: true,
            problems: vec![]
        }
    );
    let all = s.audit_list(None, None, 100).unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(
        all.iter().filter(|e| e.record.is_some()).count(),
        2,
        "a locked session reads only public records"
    );
    let master = crate::store::tests::open_at(&root, Level::Master);
    let mine = master.audit_list(Some("claude-code"), None, 100).unwrap();
    assert_eq!(mine.iter().map(|e| e.seq).collect::<Vec<_>>(), [5, 3, 1]);
    assert_eq!(master.audit_list(None, None, 2).unwrap().len(), 2);
}

#[test]
fn previews_do_not_flood_the_log() {
    let (_d, root) = crate::store::tests::new_store();
    let mut s = crate::store::tests::open_at(&root, Level::Master);
    let p = record(Kind::Preview, "human", Tier::AgentReadable, "same");
    assert_eq!(s.audit_append(&p).unwrap(), Some(1));
    assert_eq!(
        s.audit_append(&p).unwrap(),
        None,
        "the same preview again is not recorded"
    );
    assert_eq!(
        s.audit_append(&record(Kind::Preview, "human", Tier::AgentReadable, "changed"))
            .unwrap(),
        Some(2)
    );
    assert_eq!(
        s.audit_append(&record(Kind::Projection, "human", Tier::AgentReadable, "changed"))
            .unwrap(),
        Some(3)
    );
    // Side-by-side previews of several tiers do not flood the log either.
    assert_eq!(
        s.audit_append(&record(Kind::Preview, "human", Tier::Public, "p"))
            .unwrap(),
        Some(4)
    );
    assert_eq!(
        s.audit_append(&record(Kind::Preview, "human", Tier::AgentReadable, "changed"))
            .unwrap(),
        None
    );
    assert_eq!(
        s.audit_append(&record(Kind::Preview, "human", Tier::Public, "p"))
            .unwrap(),
        None
    );
}

#[test]
fn edits_deletions_reorders_and_truncation_are_detected() {
    let cases = [
        (
            "UPDATE audit SET sealed = CAST(sealed || x'00' AS BLOB) WHERE seq = 2",
            "altered",
        ),
        ("UPDATE audit SET at = at + 1 WHERE seq = 3", "altered"),
        ("DELETE FROM audit WHERE seq = 3", "missing"),
        (
            "UPDATE audit SET seq = 10 WHERE seq = 2; UPDATE audit SET seq = 2 WHERE seq = 4; UPDATE audit SET seq = 4 WHERE seq = 10;",
            "does not follow",
        ),
        ("DELETE FROM audit WHERE seq = 5", "newest records removed"),
        ("UPDATE audit SET kind = 'projectionX' WHERE seq = 2", "altered"),
    ];
    for (stmt, needle) in cases {
        let (_d, root) = logged();
        sql(&root, stmt);
        let v = crate::store::tests::open_at(&root, Level::Locked)
            .audit_verify()
            .unwrap();
        assert!(!v.ok, "{stmt}");
        assert!(
            v.problems.iter().any(|p| p.contains(needle)),
            "{stmt}: {:?}",
            v.problems
        );
    }
}

#[test]
fn records_are_sealed_at_the_writers_level() {
    let (_d, root) = crate::store::tests::new_store();
    let mut agent = crate::store::tests::open_at(&root, Level::Agent);
    let mut r = record(Kind::Projection, "a", Tier::Public, "x");
    r.center = "secret-name -> * -> *".into();
    assert!(agent.audit_append(&r).unwrap().is_some());
    let locked = crate::store::tests::open_at(&root, Level::Locked)
        .audit_list(None, None, 10)
        .unwrap();
    assert_eq!(locked[0].sealed_at, Tier::AgentReadable);
    assert!(locked[0].record.is_none(), "a public projection's query stays sealed");
    let master = crate::store::tests::open_at(&root, Level::Master)
        .audit_list(None, None, 10)
        .unwrap();
    assert_eq!(master[0].record.as_ref().unwrap().center, "secret-name -> * -> *");
}

#[test]
fn replay_rebuilds_the_text_from_the_versions_of_that_time() {
    use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation};
    use crate::project::{Access, Center, Request, Settings, project};
    let (_d, root) = crate::store::tests::new_store();
    let mut s = crate::store::tests::open_at(&root, Level::Master);
    let add = |s: &mut crate::Store, n: &str, t: &str, d: &str| {
        s.add_node(NewNode::new(
            Name::new(n).unwrap(),
            NodeType::new(t).unwrap(),
            d,
            Tier::Public,
        ))
        .unwrap();
    };
    add(&mut s, "orders-service", "service", "Core orders engine");
    add(&mut s, "cents", "convention", "Money in integer cents");
    s.link(NewEdge::new(
        Name::new("orders-service").unwrap(),
        Relation::new("uses").unwrap(),
        Name::new("cents").unwrap(),
    ))
    .unwrap();
    let settings = Settings::default();
    let req = Request {
        center: Center::Node {
            name: "orders-service".into(),
            depth: 1,
        },
        agent: "claude-code".into(),
        access: Access::Tier(Tier::Public),
        budget: 500,
        at: None,
    };
    let p = project(s.catalog(), &req, &settings).unwrap();
    let refs = |names: &[String]| {
        names
            .iter()
            .map(|n| {
                let x = s.catalog().by_name(n).unwrap();
                NodeRef {
                    id: x.id,
                    version: x.version,
                    tier: x.tier,
                }
            })
            .collect::<Vec<_>>()
    };
    let mut r = record(Kind::Projection, "claude-code", Tier::Public, &p.hash);
    r.center = "node:orders-service:1".into();
    r.emitted = refs(&p.included);
    r.budget = 500;
    s.audit_append(&r).unwrap();
    // The graph moves on: the replay still uses the versions of that time.
    s.update_node(
        "cents",
        &NodePatch {
            description: Some("Money in floats".into()),
            ..NodePatch::default()
        },
    )
    .unwrap();
    // A later tier raise re-seals old versions; replay uses the tier of that time.
    s.update_node(
        "cents",
        &NodePatch {
            tier: Some(Tier::AgentReadable),
            ..NodePatch::default()
        },
    )
    .unwrap();
    let replay = s.audit_replay(&p.hash[..12], &settings).unwrap();
    assert!(replay.matches, "{}\nvs\n{}", replay.text, p.text);
    assert_eq!(replay.text, p.text);
    assert!(s.audit_replay("nothex!!", &settings).is_err());
    assert!(matches!(
        s.audit_replay("00000000", &settings),
        Err(crate::Error::NotFound(_))
    ));
    // A record whose hash does not match what its versions produce is reported.
    let mut forged = r.clone();
    forged.projection_hash = format!("ffffffff{}", &p.hash[8..]);
    s.audit_append(&forged).unwrap();
    assert!(!s.audit_replay("ffffffff", &settings).unwrap().matches);
}
