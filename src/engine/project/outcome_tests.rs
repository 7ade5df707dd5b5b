//! What a projection says of itself: why it holds nothing, a deprecated
//! node named in a query, a status filter it cannot honour, and a node's own
//! importance in its scores.

use super::tests::{req, spec_graph};
use super::*;
use crate::codec::Snapshot;
use crate::model::{Status, Tier};
use crate::testkit::{edge, node};

#[test]
fn a_projection_that_holds_nothing_says_why_and_names_only_readable_nodes() {
    let c = spec_graph();
    let query = |q: &str, tier: Tier| {
        let r = Request {
            center: Center::Query(q.into()),
            ..req(Access::Tier(tier), 4000)
        };
        project(&c, &r, &Settings::default()).unwrap()
    };
    // orders-service only has outgoing edges: nothing points at it.
    let p = query("* -> owned-by -> orders-service", Tier::Public);
    assert!(p.included.is_empty());
    let why = p.empty_because.clone().expect("a reason");
    assert_eq!(
        why,
        "no path matches this query at the public tier; orders-service has 12 outgoing and 0 incoming edge(s) at \
         this tier: try `orders-service -> * -> *`"
    );
    assert!(p.text.contains(&format!("Nothing to project: {why}.")), "{}", p.text);
    // A name above the tier is refused as an absent one is, with its name
    // kept for the audit log's record of failed reads.
    let refused = |q: &str| {
        let r = Request {
            center: Center::Query(q.into()),
            ..req(Access::Tier(Tier::Public), 4000)
        };
        let e = project(&c, &r, &Settings::default()).unwrap_err();
        (e.missing_node().map(str::to_owned), e.to_string())
    };
    let (hidden_name, hidden) = refused("orders-service -> uses -> fraud-thresholds");
    let (absent_name, absent) = refused("orders-service -> uses -> fraud-thresholdz");
    assert_eq!(hidden_name.as_deref(), Some("fraud-thresholds"));
    assert_eq!(absent_name.as_deref(), Some("fraud-thresholdz"));
    assert_eq!(hidden, absent.replace("fraud-thresholdz", "fraud-thresholds"));
    // The query's own answer says the same.
    let out = crate::query::run_capped(&c, "* -> owned-by -> orders-service", Tier::Public).unwrap();
    assert_eq!(out.empty_because.as_deref(), Some(why.as_str()));
    assert!(out.to_text().starts_with(&format!("no results: {why}")));
    // A projection with items has no reason.
    assert!(
        query("orders-service -> uses -> *", Tier::Public)
            .empty_because
            .is_none()
    );
}

#[test]
fn a_deprecated_node_asked_for_in_a_query_comes_back_flagged_with_its_successor() {
    let nodes = vec![
        node("float-money", "convention", Tier::Public, Status::Deprecated),
        node("integer-money", "convention", Tier::Public, Status::Active),
        node("orders-service", "service", Tier::Public, Status::Active),
    ];
    let edges = vec![
        edge(&nodes, "integer-money", "supersedes", "float-money"),
        edge(&nodes, "orders-service", "uses", "integer-money"),
    ];
    let c = Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
    let run = |q: &str| {
        let r = Request {
            center: Center::Query(q.into()),
            ..req(Access::Tier(Tier::Public), 4000)
        };
        project(&c, &r, &Settings::default())
    };
    let e = run("float-money -> * -> *").unwrap_err().to_string();
    assert!(
        e.contains("\"float-money\" is deprecated") && e.contains("its successor is integer-money"),
        "{e}"
    );
    // A status filter a projection cannot honour is refused, named.
    for status in ["any", "deprecated", "archived"] {
        let e = run(&format!("orders-service -> * -> * --status {status}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("invalid status \"{status}\"")), "{e}");
        assert!(e.contains("active nodes only"), "{e}");
    }
    assert!(run("orders-service -> * -> * --status active").is_ok());
}

#[test]
fn a_node_s_own_importance_raises_it_and_is_in_its_scores() {
    let mut c = spec_graph();
    let score = |c: &Catalog, name: &str| {
        let p = project(c, &req(Access::Tier(Tier::Public), 4000), &Settings::default()).unwrap();
        p.items.into_iter().find(|i| i.name == name).unwrap()
    };
    let before = score(&c, "soc2");
    assert_eq!(before.importance, None);
    let mut nodes: Vec<_> = c.nodes().cloned().collect();
    let edges: Vec<_> = c.edges().cloned().collect();
    for n in &mut nodes {
        if n.name.as_str() == "soc2" {
            n.properties.insert("importance".into(), "0.5".into());
        }
        if n.name.as_str() == "pci-dss" {
            // Not a number from 0 to 1: ignored.
            n.properties.insert("importance".into(), "high".into());
        }
    }
    c = Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
    let after = score(&c, "soc2");
    assert_eq!(after.importance, Some(0.5));
    assert!(
        (after.relevance - before.relevance - 10.0).abs() < 1e-9,
        "{before:?} {after:?}"
    );
    assert_eq!(score(&c, "pci-dss").importance, None);
}

#[test]
fn a_node_untouched_for_recency_days_keeps_1_over_e_of_its_freshness_and_a_new_version_restores_it() {
    let base = spec_graph();
    let score = |c: &Catalog, name: &str| {
        let p = project(c, &req(Access::Tier(Tier::Public), 4000), &Settings::default()).unwrap();
        p.items.into_iter().find(|i| i.name == name).unwrap()
    };
    let with_updated = |shift_days: i64| {
        let mut nodes: Vec<_> = base.nodes().cloned().collect();
        for n in &mut nodes {
            if n.name.as_str() == "soc2" {
                n.updated = crate::model::Timestamp(n.updated.0 + shift_days * 86_400_000);
            }
        }
        Catalog::build(Vec::new(), Snapshot::new(nodes, base.edges().cloned().collect()))
    };
    let before = score(&base, "soc2");
    assert!(before.freshness > 0.0 && before.freshness <= 10.0, "{before:?}");
    // Untouched for another 180 days (recency_days): 1/e of it.
    let aged = score(&with_updated(-180), "soc2");
    assert!(
        (aged.freshness - before.freshness / std::f64::consts::E).abs() < 1e-9,
        "{before:?} {aged:?}"
    );
    assert!(
        (before.relevance - aged.relevance - (before.freshness - aged.freshness)).abs() < 1e-9,
        "only the recency term moved: {before:?} {aged:?}"
    );
    // A version newer than the projection's instant counts as today: the
    // bound is 10, never more.
    let touched = score(&with_updated(100_000), "soc2");
    assert!((touched.freshness - 10.0).abs() < 1e-9, "{touched:?}");
}
