//! What an agent's reads may say, at the engine level: search (names,
//! descriptions, bodies), shortest paths and the timeline within a tier
//! never name what is above it; a cost report attaches only to the
//! reporting agent's own projection and is checked.

use crate::Level;
use crate::audit::{Kind, TokenCost};
use crate::lookup::{Bodies, search_within};
use crate::model::{Name, NewEdge, NewNode, NodeType, Relation, Tier};
use crate::store::tests::{new_store, open_at};
use crate::traverse::shortest_path_within;

/// `orders-service` (agent-readable) → `vault-keys` (agent-restricted) →
/// `billing` (agent-readable), and `orders-service` → `api-gateway`
/// (agent-readable) → `billing`; bodies mention `rotation` in
/// `api-gateway` and `vault-keys`.
fn tiered() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    for (name, tier, body) in [
        ("orders-service", Tier::AgentReadable, None),
        ("api-gateway", Tier::AgentReadable, Some("key rotation happens here")),
        ("vault-keys", Tier::AgentRestricted, Some("rotation of the master keys")),
        ("billing", Tier::AgentReadable, None),
    ] {
        let mut n = NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("service").unwrap(),
            format!("{name} description"),
            tier,
        );
        n.body = body.map(str::to_owned);
        s.add_node(n).unwrap();
    }
    for (from, to) in [
        ("orders-service", "vault-keys"),
        ("vault-keys", "billing"),
        ("orders-service", "api-gateway"),
        ("api-gateway", "billing"),
    ] {
        s.link(NewEdge::new(
            Name::new(from).unwrap(),
            Relation::new("uses").unwrap(),
            Name::new(to).unwrap(),
        ))
        .unwrap();
    }
    (dir, root)
}

#[test]
fn search_within_a_tier_covers_bodies_and_names_nothing_above() {
    let (_d, root) = tiered();
    let s = open_at(&root, Level::Master);
    let mut bodies = Bodies::new();
    let read = bodies.refresh(&s, Tier::AgentReadable);
    assert_eq!(read, 3, "the three agent-readable nodes");
    assert_eq!(
        bodies.refresh(&s, Tier::AgentReadable),
        0,
        "nothing changed: nothing read again"
    );
    let names = |hits: Vec<crate::lookup::SearchHit>| -> Vec<String> {
        hits.into_iter().map(|h| h.node.name.to_string()).collect()
    };
    assert_eq!(names(bodies.search("rotation", 10)), ["api-gateway"]);
    assert!(
        names(search_within(s.catalog(), "rotation", 10, Tier::AgentReadable)).is_empty(),
        "bodies only through the index"
    );
    assert!(names(bodies.search("vault", 10)).is_empty());
    assert_eq!(
        search_within(s.catalog(), "vault", 10, Tier::AgentRestricted)[0]
            .node
            .name
            .as_str(),
        "vault-keys"
    );
}

#[test]
fn a_path_within_a_tier_goes_around_what_is_above_it() {
    let (_d, root) = tiered();
    let s = open_at(&root, Level::Master);
    let path = shortest_path_within(s.catalog(), "orders-service", "billing", false, Tier::AgentReadable)
        .unwrap()
        .unwrap();
    let names: Vec<&str> = path.iter().map(|p| p.node.name.as_str()).collect();
    assert_eq!(names, ["orders-service", "api-gateway", "billing"]);
    // An end above the tier is refused exactly as an absent one.
    let hidden = shortest_path_within(s.catalog(), "orders-service", "vault-keys", false, Tier::AgentReadable)
        .unwrap_err()
        .to_string();
    let absent = shortest_path_within(s.catalog(), "orders-service", "no-such", false, Tier::AgentReadable)
        .unwrap_err()
        .to_string();
    assert_eq!(hidden.replace("vault-keys", "X"), absent.replace("no-such", "X"));
}

#[test]
fn the_timeline_within_a_tier_leaves_out_what_touches_above_it() {
    let (_d, root) = tiered();
    let s = open_at(&root, Level::Master);
    let all = s.timeline(100).unwrap();
    let cut = s.timeline_within(100, Tier::AgentReadable, usize::MAX).unwrap();
    let text = |v: &[crate::store::TimelineEntry]| format!("{v:?}");
    assert!(text(&all).contains("vault-keys"));
    assert!(!text(&cut).contains("vault-keys"), "{}", text(&cut));
    // 4 nodes and 4 edges were added; 1 node and 2 edges touch vault-keys.
    assert_eq!(all.len() - cut.len(), 3, "{}", text(&cut));
    assert_eq!(s.timeline_within(2, Tier::AgentReadable, usize::MAX).unwrap().len(), 2);
    // A commit of several changes: one named per entry, the others counted.
    let mut m = open_at(&root, Level::Master);
    let id = crate::proposal::tests::propose(&mut m, crate::proposal::tests::retry_queue());
    let (_, p) = m.proposal(id.as_str()).unwrap();
    m.accept(&id, &p, &crate::proposal::AcceptOptions::default()).unwrap();
    let s = open_at(&root, Level::Master);
    let cut = s.timeline_within(100, Tier::AgentReadable, usize::MAX).unwrap();
    assert!(cut[0].changes.len() >= 3, "{:?}", cut[0]);
    let capped = s.timeline_within(100, Tier::AgentReadable, 1).unwrap();
    assert_eq!(capped.len(), cut.len());
    for (c, full) in capped.iter().zip(&cut) {
        assert_eq!(c.changes.len(), 1);
        assert_eq!(
            c.changes[0].action,
            full.changes[full.changes.len() - 1].action,
            "the newest named"
        );
        assert_eq!(c.more, usize::from(full.changes.len() > 1));
    }
}

#[test]
fn a_cost_report_names_the_agents_own_projection() {
    let (_d, root) = tiered();
    let mut s = open_at(&root, Level::Master);
    for (agent, hash) in [("claude-code", "aaaaaaaa11"), ("other", "bbbbbbbb22")] {
        s.audit_append(&crate::audit::tests::record(
            Kind::Projection,
            agent,
            Tier::AgentReadable,
            hash,
        ))
        .unwrap();
    }
    let cost = |input, output, cached| TokenCost { input, output, cached };
    let r = s.audit_cost("claude-code", None, cost(900, 40, 100)).unwrap();
    assert_eq!(r.projection_hash, "aaaaaaaa11", "the agent's newest");
    assert!(
        s.audit_cost("claude-code", Some("bbbbbbbb"), cost(1, 1, 0)).is_err(),
        "another agent's"
    );
    let e = s
        .audit_cost("claude-code", None, cost(10, 1, 20))
        .unwrap_err()
        .to_string();
    assert!(e.contains("cached tokens are part of the input"), "{e}");
    assert!(
        s.audit_verify().unwrap().problems.is_empty(),
        "the chain holds the cost record"
    );
}
