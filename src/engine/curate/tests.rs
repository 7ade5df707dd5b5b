//! Curator lists on hand-built catalogs, then on stores opened at two
//! levels (nothing human-only reaches the master level's lists).

use std::time::Duration;

use super::*;
use crate::codec::Snapshot;
use crate::model::{Status, Tier, Timestamp};
use crate::store::Catalog;
use crate::testkit::{edge, node};

fn ts(day: &str) -> Timestamp {
    Timestamp::parse(day).unwrap()
}

/// Conventions and glossary terms around one service; `max` is the most
/// secret tier the session reads.
fn catalog(max: Tier) -> Catalog {
    let mut nodes = vec![
        node("orders-service", "service", Tier::Public, Status::Active),
        node("currency-utils", "module", Tier::Public, Status::Active),
        node("monetary-values-in-cents", "convention", Tier::Public, Status::Active),
        node("monetary-value-in-cents", "convention", Tier::Public, Status::Active),
        node("utc-timestamps", "convention", Tier::Public, Status::Active),
        node("retry-policy", "convention", Tier::Public, Status::Active),
        node("order-batch", "glossary", Tier::Public, Status::Active),
        node("batch-cycle", "glossary", Tier::Public, Status::Active),
        node("old-ledger", "module", Tier::Public, Status::Archived),
        node("vault-notes", "module", Tier::HumanOnly, Status::Active),
    ];
    nodes[4].properties.insert("scope".into(), "global".into());
    nodes[5].properties.insert("scope".into(), "services".into());
    nodes[4].updated = ts("2026-05-20");
    nodes[5].updated = ts("2026-04-01");
    nodes[0].description = "Takes orders in an Order Batch".into();
    nodes[7].description = "One run of the processor that closes an order   batch.".into();
    nodes[8].description = "order batch totals".into();
    nodes[9].description = "Keys behind each order_batch".into();
    let mut edges = vec![
        edge(&nodes, "currency-utils", "uses", "monetary-values-in-cents"),
        edge(&nodes, "orders-service", "uses", "order-batch"),
        edge(&nodes, "retry-policy", "related-to", "orders-service"),
        edge(&nodes, "monetary-value-in-cents", "related-to", "currency-utils"),
        edge(&nodes, "vault-notes", "uses", "utc-timestamps"),
        edge(&nodes, "vault-notes", "uses", "monetary-values-in-cents"),
    ];
    edges[2].bidirectional = true;
    let nodes = nodes.into_iter().filter(|n| n.tier <= max).collect();
    let edges = edges.into_iter().filter(|e| e.tier <= max).collect();
    Catalog::build(Vec::new(), Snapshot::new(nodes, edges))
}

fn spec(types: &[&str]) -> ListSpec {
    let types = types.iter().map(|t| t.parse().unwrap()).collect();
    ListSpec::new(types, ts("2026-06-01"))
}

fn row<'a>(list: &'a CuratorList, name: &str) -> &'a CuratorRow {
    list.rows.iter().find(|r| r.name.as_str() == name).unwrap()
}

#[test]
fn rows_carry_links_scope_and_flags() {
    let mut s = spec(&["convention"]);
    s.stale_after = Some(Duration::from_secs(90 * 86_400));
    let list = curator_list(&catalog(Tier::HumanOnly), &s);
    let names: Vec<&str> = list.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "monetary-value-in-cents",
            "monetary-values-in-cents",
            "retry-policy",
            "utc-timestamps"
        ]
    );
    let cents = row(&list, "monetary-values-in-cents");
    assert_eq!((cents.links, cents.flags.orphan, cents.flags.stale), (2, false, true));
    assert_eq!(
        cents.flags.near_duplicate_of.as_ref().map(|n| n.as_str()),
        Some("monetary-value-in-cents")
    );
    let single = row(&list, "monetary-value-in-cents");
    assert!(single.flags.orphan, "an edge leaving it does not make it linked to");
    assert_eq!(single.links, 1);
    let retry = row(&list, "retry-policy");
    assert!(!retry.flags.orphan, "a bidirectional edge arrives at both ends");
    assert!(!retry.flags.stale, "changed within the threshold");
    assert_eq!(retry.flags.near_duplicate_of, None);
    let utc = row(&list, "utc-timestamps");
    assert_eq!(utc.scope.as_deref(), Some("global"));
    assert_eq!(
        (utc.links, utc.flags.orphan),
        (1, false),
        "the human-only link counts at the human level"
    );
    assert!(list.mentions.is_empty(), "no glossary term listed");
    let mut none = spec(&["convention"]);
    none.stale_after = None;
    assert!(
        curator_list(&catalog(Tier::HumanOnly), &none)
            .rows
            .iter()
            .all(|r| !r.flags.stale)
    );
}

#[test]
fn unlinked_mentions_of_glossary_terms_are_suggested() {
    let list = curator_list(&catalog(Tier::HumanOnly), &spec(&["glossary"]));
    let pairs: Vec<(&str, &str)> = list
        .mentions
        .iter()
        .map(|m| (m.term.as_str(), m.mentioned_by.as_str()))
        .collect();
    // orders-service mentions it but is linked; old-ledger is archived;
    // the term's own description does not count.
    assert_eq!(pairs, [("order-batch", "batch-cycle"), ("order-batch", "vault-notes")]);
    assert_eq!(row(&list, "order-batch").flags.unlinked_mentions, 2);
    assert_eq!(row(&list, "batch-cycle").flags.unlinked_mentions, 0);
}

#[test]
fn nothing_above_the_level_reaches_rows_counts_or_suggestions() {
    let mut s = spec(&[]);
    s.stale_after = Some(Duration::from_secs(1));
    let human = curator_list(&catalog(Tier::HumanOnly), &s);
    let master = curator_list(&catalog(Tier::AgentRestricted), &s);
    assert!(human.rows.iter().any(|r| r.name.as_str() == "vault-notes"));
    assert!(master.rows.iter().all(|r| r.name.as_str() != "vault-notes"));
    assert_eq!(master.rows.len(), human.rows.len() - 1);
    let utc = row(&master, "utc-timestamps");
    assert_eq!((utc.links, utc.flags.orphan), (0, true));
    assert_eq!(row(&master, "monetary-values-in-cents").links, 1);
    assert!(master.mentions.iter().all(|m| m.mentioned_by.as_str() != "vault-notes"));
    assert_eq!(row(&master, "order-batch").flags.unlinked_mentions, 1);
    let text = serde_json::to_string(&master).unwrap();
    assert!(!text.contains("vault"), "{text}");
}

#[test]
fn sorting_by_each_key_both_ways() {
    let c = catalog(Tier::HumanOnly);
    let order = |by: SortBy, descending: bool| {
        let mut s = spec(&["convention"]);
        (s.sort, s.descending) = (by, descending);
        curator_list(&c, &s)
            .rows
            .into_iter()
            .map(|r| r.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        order(SortBy::Links, true),
        [
            "monetary-values-in-cents",
            "monetary-value-in-cents",
            "retry-policy",
            "utc-timestamps"
        ],
        "two links first, then ties by name"
    );
    assert_eq!(
        order(SortBy::Scope, false),
        [
            "utc-timestamps",
            "retry-policy",
            "monetary-value-in-cents",
            "monetary-values-in-cents"
        ],
        "global < services, no scope last"
    );
    assert_eq!(order(SortBy::LastChange, true)[..2], ["utc-timestamps", "retry-policy"]);
    assert_eq!(order(SortBy::Name, true)[0], "utc-timestamps");
    let mut rows = curator_list(&c, &spec(&["convention"])).rows;
    sort_rows(&mut rows, SortBy::LastChange, false);
    assert_eq!(rows[3].name.as_str(), "utc-timestamps");
}

/// A synthetic store of a few thousand nodes, every tier: the master
/// level's list is the human level's less what is human-only, and no count
/// it shows includes a human-only node or edge.
#[test]
fn synthetic_store_lists_match_between_levels() {
    use crate::Level;
    use crate::store::tests::{new_store, open_at};
    use crate::synth::{SynthSpec, generate};
    let (_dir, root) = new_store();
    let batch = generate(SynthSpec {
        nodes: 3000,
        edges: 9000,
        seed: 11,
    });
    open_at(&root, Level::Human)
        .apply_batch(batch, crate::store::Durability::Deferred)
        .unwrap();
    let (human, master) = (open_at(&root, Level::Human), open_at(&root, Level::Master));
    let mut s = spec(&[]);
    s.now = ts("2100-01-01");
    s.stale_after = Some(Duration::from_secs(86_400));
    let started = std::time::Instant::now();
    let all = curator_list(master.catalog(), &s);
    eprintln!("curator list of {} nodes: {:?}", all.rows.len(), started.elapsed());
    let full = curator_list(human.catalog(), &s);
    assert_eq!(all.rows.len(), master.catalog().node_count());
    assert!(full.rows.iter().any(|r| r.tier == Tier::HumanOnly));
    assert!(all.rows.iter().all(|r| r.tier <= Tier::AgentRestricted));
    let hidden_links = |name: &str| {
        let id = human.catalog().by_name(name).unwrap().id;
        let c = human.catalog();
        c.outgoing(&id)
            .chain(c.incoming(&id))
            .filter(|e| e.tier == Tier::HumanOnly)
            .count()
    };
    for r in &all.rows {
        let h = row(&full, r.name.as_str());
        assert_eq!(r.links + hidden_links(r.name.as_str()), h.links, "{}", r.name);
        assert!(r.flags.stale, "written long before the given now");
    }
    let started = std::time::Instant::now();
    let conventions = curator_list(master.catalog(), &spec(&["convention"]));
    eprintln!("conventions only ({}): {:?}", conventions.rows.len(), started.elapsed());
    assert!(!conventions.rows.is_empty());
    assert!(conventions.rows.iter().all(|r| r.node_type.as_str() == "convention"));
}
