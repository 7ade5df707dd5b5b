//! The search index against a scan of every node as `search_within` made
//! it before the index (each name, description and body in turn), and the
//! order it ranks in, pinned.

use super::Bodies;
use crate::Level;
use crate::lookup::matcher::{Matcher, holds_words, lower_words};
use crate::lookup::search::{SearchHit, ranked, scored};
use crate::model::{Name, NewNode, NodePatch, NodeType, Status, Tier};
use crate::store::Store;
use crate::store::tests::{new_store, open_at};

/// The hits as `(name, score, in_name, in_body)`.
fn seen(hits: Vec<SearchHit>) -> Vec<(String, i64, bool, bool)> {
    hits.into_iter()
        .map(|h| (h.node.name.to_string(), h.score, h.in_name, h.in_body))
        .collect()
}

/// Every readable node scored one by one, its body read from its blob.
fn scan(s: &Store, text: &str, limit: usize, cap: Tier) -> Vec<SearchHit> {
    let matcher = Matcher::new(text);
    if matcher.is_empty() {
        return Vec::new();
    }
    let words = lower_words(text);
    let mut lower = String::new();
    let hits = s
        .catalog()
        .nodes()
        .filter(|n| n.status != Status::Archived && n.tier <= cap)
        .filter_map(|n| {
            let body = s.node(n.name.as_str()).unwrap().body.unwrap_or_default();
            let in_body = !body.is_empty() && holds_words(&body, &words, &mut lower);
            let in_desc = holds_words(&n.description, &words, &mut lower);
            scored(n, matcher.score(n.name.as_str()), in_desc, in_body, words.len())
        })
        .collect();
    ranked(hits, limit)
}

const PARTS: &[&str] = &[
    "orders",
    "billing",
    "ledger",
    "auth",
    "straße",
    "queue",
    "ünïcode",
    "core",
    "srv",
];

/// Sixty nodes named, described and (two in three) with bodies from
/// [`PARTS`], in every tier, a few archived.
fn store() -> (tempfile::TempDir, Store) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    for i in 0..60usize {
        let part = |k: usize| PARTS[(i * k + k) % PARTS.len()];
        let name = format!("{}-{}-{i}", part(1), part(2))
            .replace('ß', "ss")
            .replace(['ü', 'ï'], "u");
        let mut n = NewNode::new(
            Name::new(&name).unwrap(),
            NodeType::new("service").unwrap(),
            format!("The {} of {} and {}", part(3), part(5), part(7).to_uppercase()),
            Tier::ALL[i % Tier::ALL.len()],
        );
        n.body = (i % 3 != 0).then(|| format!("Runbook: {} {} ROTATION-{}", part(4), part(6), i % 5));
        s.add_node(n).unwrap();
        if i % 11 == 0 {
            s.set_status(&name, Status::Deprecated, None).unwrap();
            s.set_status(&name, Status::Archived, None).unwrap();
        }
    }
    (dir, s)
}

#[test]
fn the_index_finds_what_a_scan_of_every_node_finds_in_the_same_order() {
    let (_d, s) = store();
    let queries = [
        "ord",
        "orders core",
        "srv ordr",
        "e",
        "o",
        "ledger",
        "LEDGER auth",
        "rotation",
        "rotation-3",
        "straße",
        "STRASSE",
        "ünï",
        "ÜNÏCODE",
        "runbook queue",
        "of and",
        "zzzz",
        "   ",
        "billing-auth-12",
        "-",
    ];
    for cap in [Tier::Public, Tier::AgentReadable, Tier::HumanOnly] {
        let mut index = Bodies::new();
        index.refresh(&s, cap);
        for q in queries {
            for limit in [1, 5, 100] {
                assert_eq!(
                    seen(index.search(q, limit)),
                    seen(scan(&s, q, limit, cap)),
                    "{q:?}, limit {limit}, {cap}"
                );
            }
        }
    }
}

#[test]
fn names_rank_above_descriptions_above_bodies() {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Master);
    for (name, description, body) in [
        ("rotation-policy", "how keys turn over", None),
        ("key-service", "serves keys; rotation weekly", Some("the rotation job")),
        ("vault", "secret storage", Some("Rotation of the master keys")),
        ("billing", "invoices", Some("nothing about it")),
    ] {
        let mut n = NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("service").unwrap(),
            description,
            Tier::Public,
        );
        n.body = body.map(str::to_owned);
        s.add_node(n).unwrap();
    }
    let mut index = Bodies::new();
    assert_eq!(index.refresh(&s, Tier::Public), 4);
    assert_eq!(
        seen(index.search("rotation", 10)),
        [
            ("rotation-policy".to_owned(), 20_000, true, false),
            ("key-service".to_owned(), 40, false, true),
            ("vault".to_owned(), 20, false, true),
        ]
    );
    // Another commit: only the changed body is read again.
    s.update_node(
        "billing",
        &NodePatch {
            body: Some(Some("rotation of invoices".into())),
            ..NodePatch::default()
        },
    )
    .unwrap();
    assert_eq!(index.refresh(&s, Tier::Public), 1);
    assert_eq!(index.refresh(&s, Tier::Public), 0, "nothing changed since");
    let names: Vec<String> = seen(index.search("rotation", 10)).into_iter().map(|h| h.0).collect();
    assert_eq!(
        names,
        ["rotation-policy", "key-service", "vault", "billing"],
        "equal scores: the shorter name first"
    );
    assert!(seen(index.search("nothing", 10)).is_empty(), "the old body is gone");
    drop(dir);
}

#[test]
fn an_index_made_a_slice_at_a_time_is_the_whole_index_and_the_old_one_answers_meanwhile() {
    let (_d, mut s) = store();
    let cap = Tier::HumanOnly;
    let mut whole = Bodies::new();
    let read_whole = whole.refresh(&s, cap);
    let mut sliced = Bodies::new();
    let (mut read, mut slices) = (0, 0);
    while !sliced.refresh_some(&s, cap, 7, &mut read) {
        slices += 1;
        assert!(
            sliced.search("rotation", 100).is_empty(),
            "nothing is answered before the first index"
        );
    }
    assert!(slices >= 3, "{slices} slices");
    assert_eq!(read, read_whole);
    assert!(sliced.is_current(&s, cap));
    for q in ["rotation", "runbook queue", "ord", "ledger"] {
        assert_eq!(seen(sliced.search(q, 100)), seen(whole.search(q, 100)), "{q:?}");
    }
    // After a commit the index before keeps answering until the new one is
    // made, and only the changed body is read again.
    let before = seen(sliced.search("rotation", 100));
    let changed = s
        .catalog()
        .nodes()
        .find(|n| n.tier == Tier::Public && n.status == Status::Active)
        .unwrap()
        .name
        .to_string();
    let patch = crate::model::NodePatch {
        body: Some(Some("freshly written runbook".into())),
        ..Default::default()
    };
    s.update_node(&changed, &patch).unwrap();
    assert!(!sliced.is_current(&s, cap));
    let mut read = 0;
    assert!(!sliced.refresh_some(&s, cap, 0, &mut read));
    assert_eq!(seen(sliced.search("rotation", 100)), before);
    while !sliced.refresh_some(&s, cap, 7, &mut read) {}
    assert_eq!(read, 1, "only the changed body");
    assert!(
        sliced
            .search("freshly", 10)
            .iter()
            .any(|h| h.node.name.as_str() == changed)
    );
}
