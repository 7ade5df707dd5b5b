//! The matcher's ranking, words, positions and edges.

use super::*;

fn ranked<'a>(query: &str, texts: &[&'a str]) -> Vec<&'a str> {
    let m = Matcher::new(query);
    let mut scored: Vec<(i64, &str)> = texts.iter().filter_map(|t| Some((m.score(t)?, *t))).collect();
    scored.sort_by(|a, b| by_rank(*a, *b));
    scored.into_iter().map(|(_, t)| t).collect()
}

fn kind(query: &str, text: &str) -> Option<Kind> {
    Matcher::new(query).hit(text).map(|h| h.kind())
}

#[test]
fn exact_then_prefix_then_segment_then_fuzzy() {
    let texts = [
        "unlock",
        "order-log-lock",
        "lockfile-cleaner",
        "lock",
        "blocking-queue",
        "l-o-c-k",
    ];
    assert_eq!(
        ranked("lock", &texts),
        [
            "lock",
            "lockfile-cleaner",
            "order-log-lock",
            "l-o-c-k",
            "unlock",
            "blocking-queue"
        ]
    );
    assert_eq!(kind("LOCK", "lock"), Some(Kind::Exact), "case is ignored");
    assert_eq!(kind("lock", "Lockfile"), Some(Kind::Prefix));
    assert_eq!(
        kind("lock", "orderLock"),
        Some(Kind::Segment),
        "a camel-case step starts a segment"
    );
    assert_eq!(kind("v2", "api-v2"), Some(Kind::Segment));
    assert_eq!(
        kind("2", "api-v2"),
        Some(Kind::Segment),
        "digits after letters start one"
    );
    assert_eq!(kind("lock", "unlock"), Some(Kind::Fuzzy));
    assert_eq!(kind("lock", "luck"), None);
    // The kinds never mix: the best fuzzy match stays under the weakest prefix.
    let m = Matcher::new("orders-service-api");
    let fuzzy = m.score("orders-service-xapi").unwrap();
    let prefix = m.score("orders-service-api-gateway-and-a-long-tail").unwrap();
    assert!(fuzzy < prefix, "{fuzzy} < {prefix}");
}

#[test]
fn every_word_matches_in_any_order() {
    let texts = ["orders-service", "order-batch", "service-registry", "payments-service"];
    assert_eq!(ranked("ordr srv", &texts), ["orders-service"]);
    assert_eq!(ranked("srv ordr", &texts), ["orders-service"], "any order");
    assert_eq!(
        ranked("  ordr   srv ", &texts),
        ["orders-service"],
        "spaces are separators"
    );
    assert_eq!(
        kind("ord serv", "orders-service"),
        Some(Kind::Segment),
        "each word starts a segment"
    );
    assert_eq!(kind("orders service", "Orders Service"), Some(Kind::Exact));
    assert_eq!(kind("orders ser", "orders service"), Some(Kind::Prefix));
    assert_eq!(
        ranked("ser", &texts),
        ["service-registry", "orders-service", "payments-service"]
    );
    assert!(ranked("ordr zzz", &texts).is_empty(), "one word missing is no match");
}

#[test]
fn positions_are_the_characters_that_matched() {
    let hit = Matcher::new("ordr srv").hit("orders-service").unwrap();
    assert_eq!(hit.indices.len(), 7, "{:?}", hit.indices);
    let text: Vec<char> = "orders-service".chars().collect();
    let picked: String = hit.indices.iter().map(|i| text[*i]).collect();
    assert_eq!(picked, "ordrsrv");
    assert!(hit.indices.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    assert_eq!(
        Matcher::new("Serv").hit("orders-service").unwrap().indices,
        [7, 8, 9, 10]
    );
    assert_eq!(Matcher::new("ord").hit("ORDERS").unwrap().indices, [0, 1, 2]);
    assert_eq!(
        Matcher::new("ab ab").hit("ab-x").unwrap().indices,
        [0, 1],
        "overlaps once"
    );
    // `score` agrees with `hit` and copies no positions.
    let m = Matcher::new("ordr srv");
    assert_eq!(m.score("orders-service"), Some(hit.score));
}

#[test]
fn an_empty_query_matches_everything_without_positions() {
    for q in ["", "   ", "\t\n"] {
        let m = Matcher::new(q);
        assert!(m.is_empty());
        assert_eq!(
            m.hit("anything"),
            Some(Hit {
                score: 0,
                indices: Vec::new()
            })
        );
        assert_eq!(m.score(""), Some(0));
    }
    assert_eq!(Matcher::new("a").hit(""), None, "nothing to match in an empty text");
}

#[test]
fn case_is_ignored_in_every_script_and_positions_count_characters() {
    assert_eq!(kind("zürich", "ZÜRICH-gateway"), Some(Kind::Prefix));
    assert_eq!(kind("ÄRGER", "ärger"), Some(Kind::Exact));
    assert_eq!(kind("zurich", "zürich"), None, "ü is not u");
    let hit = Matcher::new("gw").hit("Zürich-Gateway").unwrap();
    let text: Vec<char> = "Zürich-Gateway".chars().collect();
    assert_eq!(hit.indices.iter().map(|i| text[*i]).collect::<String>(), "Gw");
    assert_eq!(Matcher::new("ga").hit("Zürich-Gateway").unwrap().indices, [7, 8]);
    assert_eq!(kind("café", "Le Café Noir"), Some(Kind::Segment));
    assert!(Matcher::new("日本").score("日本語").is_some());
    assert!(in_order("Zürich-gateway", "zürich") && !in_order("zurich", "zürich"));
}

#[test]
fn ties_go_to_the_shorter_then_the_alphabetical_text() {
    assert_eq!(
        ranked("api", &["api-gateway-b", "api-gateway-a", "api-gw"]),
        ["api-gw", "api-gateway-a", "api-gateway-b"]
    );
    assert_eq!(by_rank((5, "b"), (5, "a")), Ordering::Greater);
    assert_eq!(by_rank((6, "bbb"), (5, "a")), Ordering::Less);
}

#[test]
fn may_match_is_true_of_every_match() {
    let texts = [
        "orders-service",
        "ORDERS",
        "zürich",
        "Zürich-Gateway",
        "x",
        "",
        "a b c",
        "日本語",
    ];
    for q in ["ord", "o s", "ZÜ", "gw", "x", "abc", "c b", "本"] {
        let m = Matcher::new(q);
        for t in texts {
            if m.score(t).is_some() {
                assert!(m.may_match(t), "{q:?} in {t:?}");
            }
            if !m.may_match(t) {
                assert_eq!(m.hit(t), None, "{q:?} in {t:?}");
            }
        }
    }
}

#[test]
fn words_are_found_in_any_case_ascii_or_not() {
    let buf = &mut String::new();
    let holds = |text: &str, q: &str, buf: &mut String| holds_words(text, &lower_words(q), buf);
    assert!(holds("The Orders service number 42", "ORDERS 42", buf));
    assert!(holds("The Orders service number 42", "number", buf));
    assert!(!holds("The Orders service number 42", "orders 43", buf));
    assert!(!holds("ab", "abc", buf));
    assert!(holds("Straße am Fluss, ÄRGER inklusive", "ärger fluss", buf));
    assert!(!holds("plain ascii", "ärger", buf));
    assert!(holds("ends with it", "IT", buf));
}

#[test]
fn the_cheap_kinds_alone_give_the_first_hits_when_enough_of_them_match() {
    let texts: Vec<String> = (0..40)
        .map(|i| format!("orders-{i}"))
        .chain((0..40).map(|i| format!("xoxrxdxexrxs-{i}")))
        .collect();
    let first = |q: &str, limit: usize| {
        let m = Matcher::new(q);
        let mut v = m.matching(texts.iter(), |t| t.as_str(), limit);
        v.sort_by(|a, b| by_rank((a.0, a.1), (b.0, b.1)));
        v.truncate(limit);
        v.into_iter().map(|(_, t)| t.clone()).collect::<Vec<_>>()
    };
    let full = |q: &str, limit: usize| {
        let mut v: Vec<&str> = ranked(q, &texts.iter().map(String::as_str).collect::<Vec<_>>());
        v.truncate(limit);
        v
    };
    for (q, limit) in [
        ("orders", 10),
        ("orders", 40),
        ("orders", 41),
        ("orders", 100),
        ("ors", 5),
        ("", 3),
    ] {
        assert_eq!(first(q, limit), full(q, limit), "{q:?} {limit}");
    }
    let m = Matcher::new("orders");
    assert_eq!(
        m.matching(texts.iter(), |t| t.as_str(), 40).len(),
        40,
        "the fuzzy ones were not scored"
    );
    assert_eq!(m.matching(texts.iter(), |t| t.as_str(), 41).len(), 80);
    assert_eq!(m.score_from("xoxrxdxexrxs", Kind::Segment), None);
    assert_eq!(m.score_from("orders-1", Kind::Segment), m.score("orders-1"));
}
