//! Exposure report and leak lints on a small store.

use crate::keys::Level;
use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Tier};
use crate::store::tests::{new_store, open_at};

fn add(s: &mut crate::Store, name: &str, tier: Tier, description: &str) {
    s.add_node(NewNode::new(
        Name::new(name).unwrap(),
        NodeType::new("service").unwrap(),
        description,
        tier,
    ))
    .unwrap();
}

#[test]
fn tiers_counts_and_leaks() {
    let (_d, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    add(
        &mut s,
        "orders-service",
        Tier::Public,
        "Talks to fraud-engine for every order",
    );
    add(&mut s, "fraud-engine", Tier::AgentRestricted, "Scores orders");
    add(&mut s, "billing", Tier::AgentReadable, "Bills");
    add(&mut s, "fraud-engine-dashboard", Tier::Public, "Charts");
    s.link(NewEdge::new(
        Name::new("orders-service").unwrap(),
        Relation::new("uses").unwrap(),
        Name::new("billing").unwrap(),
    ))
    .unwrap();
    add(&mut s, "was-secret", Tier::AgentRestricted, "x");
    s.update_node(
        "was-secret",
        &NodePatch {
            tier: Some(Tier::Public),
            ..NodePatch::default()
        },
    )
    .unwrap();

    let r = s.exposure().unwrap();
    assert_eq!(r.covers_up_to, Tier::AgentRestricted);
    assert_eq!(r.tiers.len(), 3, "a master session does not judge human-only");
    assert_eq!(
        r.tiers[0].adds,
        ["fraud-engine-dashboard", "orders-service", "was-secret"]
    );
    assert_eq!(r.tiers[2].by_type.get("service"), Some(&1));
    let lints: Vec<String> = r
        .findings
        .iter()
        .map(|f| serde_json::to_value(f).unwrap()["lint"].as_str().unwrap().to_owned())
        .collect();
    assert!(lints.contains(&"mentions-higher".to_owned()), "{:?}", r.findings);
    assert!(lints.contains(&"public-edge-to-higher".to_owned()));
    assert!(lints.contains(&"lowered-tier".to_owned()));
    assert!(
        r.findings
            .iter()
            .any(|f| matches!(f, super::Finding::MentionsHigher { mentions, .. } if mentions == "fraud-engine"))
    );

    // The most severe kind first, then by node; each finding's lint is
    // its kind's.
    let order: Vec<(super::FindingKind, &str)> = r.findings.iter().map(|f| (f.kind(), f.node())).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    assert_eq!(
        r.findings[0].kind(),
        super::FindingKind::LoweredTier,
        "{:?}",
        r.findings
    );
    for (f, lint) in r.findings.iter().zip(&lints) {
        assert_eq!(f.kind().lint(), lint);
        assert!(f.to_string().starts_with(&format!("{lint}: ")), "{f}");
    }

    let locked = open_at(&root, Level::Locked).exposure().unwrap();
    assert_eq!(locked.tiers.len(), 1);
    assert!(
        locked
            .findings
            .iter()
            .all(|f| !matches!(f, super::Finding::MentionsHigher { .. })),
        "no names it cannot read"
    );
}

#[test]
fn what_if_lists_the_projections_a_tier_change_would_alter() {
    use crate::project::Settings;
    let (_d, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    add(&mut s, "orders-service", Tier::Public, "Core orders engine");
    add(&mut s, "pricing", Tier::Public, "Prices orders");
    s.link(NewEdge::new(
        Name::new("orders-service").unwrap(),
        Relation::new("uses").unwrap(),
        Name::new("pricing").unwrap(),
    ))
    .unwrap();
    let settings = Settings::default();
    let changes = super::what_if(s.catalog(), "pricing", Tier::AgentRestricted, None, 1, &settings).unwrap();
    let public: Vec<_> = changes.iter().filter(|c| c.tier == Tier::Public).collect();
    assert!(
        public
            .iter()
            .any(|c| c.center == "orders-service" && c.tokens_after < c.tokens_before),
        "{changes:?}"
    );
    assert!(
        changes.iter().all(|c| c.tier != Tier::AgentRestricted),
        "unchanged where it stays visible"
    );
    let q = super::what_if(
        s.catalog(),
        "pricing",
        Tier::AgentReadable,
        Some("orders-service -> * -> *"),
        1,
        &settings,
    )
    .unwrap();
    assert_eq!(q.iter().map(|c| c.tier).collect::<Vec<_>>(), [Tier::Public]);
    assert!(
        s.catalog().by_name("pricing").unwrap().tier == Tier::Public,
        "the store itself is untouched"
    );
    assert!(super::what_if(s.catalog(), "nope", Tier::Public, None, 1, &settings).is_err());
    let bad = super::what_if(
        s.catalog(),
        "pricing",
        Tier::AgentReadable,
        Some("nothing -> * -> *"),
        1,
        &settings,
    );
    assert!(bad.is_err(), "a bad query is an error, not \"no change\"");
}

/// The severity order: a lowered tier (a whole once-secret text handed
/// down) before a mention (a secret name in lower text) before a public
/// edge (that a higher node exists); the list and the type's order agree.
#[test]
fn finding_kinds_are_ordered_most_severe_first() {
    use super::FindingKind as K;
    assert_eq!(
        K::BY_SEVERITY,
        [K::LoweredTier, K::MentionsHigher, K::PublicEdgeToHigher]
    );
    assert!(K::BY_SEVERITY.windows(2).all(|w| w[0] < w[1]), "Ord follows severity");
    for k in K::BY_SEVERITY {
        assert_eq!(serde_json::to_value(k).unwrap(), k.lint());
    }
}
