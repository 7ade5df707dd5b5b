//! Search, glossary and conventions on a small catalog.

use super::*;
use crate::codec::Snapshot;
use crate::model::{Status, Tier};
use crate::store::Catalog;
use crate::testkit::{edge, node};

fn catalog() -> Catalog {
    let mut nodes = vec![
        node("orders-service", "service", Tier::Public, Status::Active),
        node("currency-utils", "module", Tier::Public, Status::Active),
        node("monetary-values-in-cents", "convention", Tier::Public, Status::Active),
        node("error-code-format", "convention", Tier::Public, Status::Active),
        node("utc-timestamps", "convention", Tier::Public, Status::Active),
        node("old-rounding", "convention", Tier::Public, Status::Deprecated),
        node("order-batch", "glossary", Tier::Public, Status::Active),
        node("batch-cycle", "glossary", Tier::Public, Status::Active),
        node("idempotency-key", "glossary", Tier::Public, Status::Active),
        node("legacy-batch", "glossary", Tier::Public, Status::Archived),
    ];
    nodes[0].properties.insert("repo".into(), "services/orders".into());
    nodes[1]
        .properties
        .insert("path".into(), "services/orders/src/currency".into());
    nodes[4].properties.insert("scope".into(), "global".into());
    nodes[6].description = "Group of transactions processed together in one cycle".into();
    nodes[7].description = "One run of the processor that closes an order batch".into();
    let edges = vec![
        edge(&nodes, "orders-service", "contains", "currency-utils"),
        edge(&nodes, "currency-utils", "uses", "monetary-values-in-cents"),
        edge(&nodes, "orders-service", "uses", "error-code-format"),
        edge(&nodes, "orders-service", "uses", "old-rounding"),
    ];
    Catalog::build(Vec::new(), Snapshot::new(nodes, edges))
}

#[test]
fn search_ranks_names_above_descriptions_and_skips_archived() {
    let c = catalog();
    let hits = search(&c, "batch", 10);
    let names: Vec<&str> = hits.iter().map(|h| h.node.name.as_str()).collect();
    assert_eq!(names[..2], ["batch-cycle", "order-batch"]);
    assert!(!names.contains(&"legacy-batch"), "archived");
    assert!(hits[0].in_name && hits[0].score >= hits[hits.len() - 1].score);
    assert_eq!(
        search(&c, "ordr srv", 1)[0].node.name.as_str(),
        "orders-service",
        "fuzzy"
    );
    assert_eq!(
        search(&c, "srv ordr", 1)[0].node.name.as_str(),
        "orders-service",
        "words in any order"
    );
    // The one ranking: exact, then prefix, then a segment's start.
    assert_eq!(search(&c, "Order-Batch", 1)[0].node.name.as_str(), "order-batch");
    let ord = search(&c, "ord", 4);
    let kinds: Vec<Kind> = ord.iter().map(|h| matcher::kind_of(h.score)).collect();
    assert_eq!(kinds[..3], [Kind::Prefix, Kind::Prefix, Kind::Fuzzy], "{ord:?}");
    assert!(kinds.windows(2).all(|k| k[0] >= k[1]));
    assert!(search(&c, "zzzz", 10).is_empty() && search(&c, "  ", 10).is_empty());
    assert_eq!(search(&c, "e", 3).len(), 3, "limit");
    let by_words = search(&c, "TRANSACTIONS cycle", 5);
    assert_eq!(
        by_words[0].node.name.as_str(),
        "order-batch",
        "every word, any case, in the description"
    );
    assert!(!by_words[0].in_name);
}

#[test]
fn glossary_exact_then_partial_then_definitions() {
    let c = catalog();
    let names = |t: &str| {
        glossary(&c, t)
            .into_iter()
            .map(|n| n.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names("Order batch"),
        ["order-batch", "batch-cycle"],
        "exact, then the definition that mentions it"
    );
    assert_eq!(names("batch"), ["batch-cycle", "order-batch"]);
    assert_eq!(names("transactions"), ["order-batch"], "found through its definition");
    assert!(names("legacy-batch").is_empty(), "archived terms are not served");
    assert_eq!(normalize_term("  Idempotency   Key "), "idempotency-key");
}

#[test]
fn conventions_follow_paths_containment_and_global_scope() {
    let c = catalog();
    let names = |t: &str| {
        conventions_for(&c, t)
            .into_iter()
            .map(|a| a.convention.name.to_string())
            .collect::<Vec<_>>()
    };
    let file = names("services/orders/src/currency/round.rs");
    assert_eq!(
        file,
        ["error-code-format", "monetary-values-in-cents", "utc-timestamps"]
    );
    assert_eq!(
        names("services/orders/README.md"),
        ["error-code-format", "utc-timestamps"]
    );
    assert_eq!(names("orders-service"), ["error-code-format", "utc-timestamps"]);
    assert_eq!(
        names("services/ordersX/a.rs"),
        ["utc-timestamps"],
        "a prefix must end at a path separator"
    );
    let why = conventions_for(&c, "services/orders/src/currency/x.rs");
    let cents = why
        .iter()
        .find(|a| a.convention.name.as_str() == "monetary-values-in-cents")
        .unwrap();
    assert_eq!(cents.through.as_deref(), Some("currency-utils"));
}

#[test]
fn conventions_within_a_tier_ignore_edges_and_nodes_above_it() {
    let mut nodes = vec![
        node("orders-service", "service", Tier::Public, Status::Active),
        node("currency-utils", "module", Tier::Public, Status::Active),
        node("monetary-values-in-cents", "convention", Tier::Public, Status::Active),
        node("secret-rule", "convention", Tier::AgentRestricted, Status::Active),
    ];
    nodes[1].properties.insert("path".into(), "src/currency".into());
    let mut edges = vec![
        edge(&nodes, "orders-service", "contains", "currency-utils"),
        edge(&nodes, "orders-service", "uses", "monetary-values-in-cents"),
        edge(&nodes, "currency-utils", "uses", "secret-rule"),
    ];
    // A link between two public nodes that is itself sealed higher.
    edges[0].tier = Tier::AgentReadable;
    let c = Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
    let names = |max: Tier| {
        conventions_within(&c, "src/currency/x.rs", max)
            .into_iter()
            .map(|a| a.convention.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(Tier::Public),
        Vec::<String>::new(),
        "the contains edge is above public"
    );
    assert_eq!(names(Tier::AgentReadable), ["monetary-values-in-cents"]);
    assert_eq!(
        names(Tier::AgentRestricted),
        ["monetary-values-in-cents", "secret-rule"]
    );
}
