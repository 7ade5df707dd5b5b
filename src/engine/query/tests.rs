//! Parser and semantics tests on small hand-built catalogs.

use super::*;
use crate::model::Tier;
use crate::store::Catalog;
use crate::testkit::{sample, visible};

fn paths(c: &Catalog, q: &str) -> Vec<String> {
    let out = run(c, q).unwrap_or_else(|e| panic!("{}", e.render(q)));
    out.to_json().results.into_iter().map(|r| r.path.join(" ")).collect()
}

fn err(c: &Catalog, q: &str) -> QueryError {
    run(c, q).expect_err(q)
}

/// The query with every span zeroed: equal shape, wherever it was written.
fn without_spans(mut q: Query) -> Query {
    let zero = Span::new(0, 0);
    q.start.span = zero;
    for h in &mut q.hops {
        h.relation.span = zero;
        h.node.span = zero;
    }
    if let Some(t) = &mut q.flags.node_type {
        t.span = zero;
    }
    q
}

#[test]
fn spacing_does_not_matter() {
    for (a, b) in [
        ("a->b->c", "a -> b -> c"),
        ("x<->*<->y --depth 2", "x  <->  *  <->  y   --depth   2"),
        ("orders-* -> * -> *", "orders-*->*->*"),
    ] {
        assert_eq!(
            without_spans(parse(a).unwrap()),
            without_spans(parse(b).unwrap()),
            "{a} vs {b}"
        );
    }
}

#[test]
fn parse_errors_have_kinds_and_spans() {
    let cases: &[(&str, QueryErrorKind, (usize, usize))] = &[
        ("", QueryErrorKind::Empty, (0, 0)),
        (
            "a -> b ->",
            QueryErrorKind::UnexpectedEnd {
                expected: "a node name, id, glob or `*`",
            },
            (9, 9),
        ),
        ("a -> b <-> c", QueryErrorKind::MixedArrows, (7, 10)),
        ("a --deep 2", QueryErrorKind::UnknownFlag("--deep".into()), (2, 8)),
        (
            "a --depth 2 --depth 3",
            QueryErrorKind::DuplicateFlag("--depth".into()),
            (12, 19),
        ),
        (
            "a -> r -> b -> s -> c --depth 2",
            QueryErrorKind::DepthOnChain,
            (22, 29),
        ),
        (
            "a b",
            QueryErrorKind::Unexpected {
                found: "b".into(),
                expected: "an arrow or a --flag",
            },
            (2, 3),
        ),
    ];
    for (q, kind, (s, e)) in cases {
        let got = parse(q).expect_err(q);
        assert_eq!((&got.kind, got.span), (kind, Span::new(*s, *e)), "{q}");
    }
    let unknown = parse("a --deep 2").unwrap_err();
    assert_eq!(unknown.candidates[0], "--depth");
    for (q, needle) in [
        ("a --depth 0", "from 1 to 10"),
        ("a --depth x", "from 1 to 10"),
        ("a --tier secret", "expected one of"),
        ("a --since yesterday", "RFC 3339"),
        ("a --confidence 2", "from 0 to 1"),
        ("a --status gone", "any"),
        ("a --limit 0", "from 1"),
        ("Orders -> * -> *", "lowercase"),
        ("a -> Depends -> b", "lowercase"),
        ("a -> * -> B*", "globs use"),
    ] {
        let e = parse(q).expect_err(q);
        assert!(e.to_string().contains(needle), "{q}: {e}");
    }
}

#[test]
fn chains_are_capped() {
    let long = std::iter::repeat_n("a", MAX_HOPS + 2)
        .collect::<Vec<_>>()
        .join(" -> r -> ");
    assert!(matches!(parse(&long).unwrap_err().kind, QueryErrorKind::TooManyHops(_)));
    let ok = std::iter::repeat_n("a", MAX_HOPS + 1)
        .collect::<Vec<_>>()
        .join(" -> r -> ");
    assert!(parse(&ok).is_ok());
}

#[test]
fn flags_parse() {
    let q = parse("* -> * -> * --depth 3 --type service --tier agent-readable --since 2026-01-01 --confidence 0.8 --status any --limit 5").unwrap();
    let f = q.flags;
    assert_eq!(
        (f.depth, f.tier, f.confidence, f.status, f.limit),
        (3, Some(Tier::AgentReadable), Some(0.8), StatusFilter::Any, 5)
    );
    assert_eq!(f.node_type.unwrap().value, "service");
    assert!(f.since.is_some());
}

#[test]
fn exact_wildcard_and_glob_positions() {
    let c = sample();
    assert_eq!(
        paths(&c, "orders-service -> depends-on -> *"),
        [
            "orders-service depends-on currency-utils",
            "orders-service depends-on postgresql"
        ]
    );
    assert_eq!(
        paths(&c, "* -> owned-by -> orders-team"),
        ["orders-service owned-by orders-team"]
    );
    assert_eq!(
        paths(&c, "*-service -> depends-on -> currency-utils"),
        [
            "billing-service depends-on currency-utils",
            "orders-service depends-on currency-utils"
        ]
    );
    assert_eq!(paths(&c, "orders-*"), ["orders-service", "orders-team"]);
    assert_eq!(paths(&c, "orders-service -> * -> *").len(), 3);
    assert_eq!(
        paths(&c, "orders-service -> owned-by"),
        ["orders-service owned-by orders-team"],
        "implicit object"
    );
}

#[test]
fn either_way_and_chains() {
    let c = sample();
    assert!(
        paths(&c, "currency-utils -> depends-on -> *")
            .iter()
            .all(|p| p.starts_with("currency-utils"))
    );
    let both = paths(&c, "currency-utils <-> depends-on <-> *");
    assert_eq!(
        both,
        [
            "currency-utils depends-on billing-service",
            "currency-utils depends-on money-core",
            "currency-utils depends-on orders-service"
        ]
    );
    assert_eq!(
        paths(&c, "orders-service -> depends-on -> currency-utils -> depends-on -> *"),
        ["orders-service depends-on currency-utils depends-on money-core"]
    );
    assert_eq!(
        paths(&c, "orders-service -> depends-on -> * -> depends-on"),
        ["orders-service depends-on currency-utils depends-on money-core"]
    );
}

#[test]
fn depth_follows_the_relation_repeatedly() {
    let c = sample();
    assert_eq!(
        paths(&c, "orders-service -> depends-on -> * --depth 2"),
        [
            "orders-service depends-on currency-utils",
            "orders-service depends-on currency-utils depends-on money-core",
            "orders-service depends-on postgresql",
        ]
    );
    assert_eq!(
        paths(&c, "orders-service -> depends-on -> money-core --depth 2").len(),
        1
    );
    assert_eq!(paths(&c, "orders-service -> depends-on -> money-core").len(), 0);
}

#[test]
fn filters() {
    let c = sample();
    assert_eq!(
        paths(&c, "orders-service -> * -> * --type database"),
        ["orders-service depends-on postgresql"]
    );
    assert_eq!(paths(&c, "orders-service -> * -> * --tier public").len(), 2);
    assert_eq!(
        paths(&c, "orders-service -> * -> * --confidence 0.9").len(),
        2,
        "the 0.5 owned-by edge is out"
    );
    assert!(paths(&c, "orders-service -> * -> * --since 2026-06-01").is_empty());
    assert_eq!(paths(&c, "orders-service -> * -> * --since 2025-06-01").len(), 3);
    assert_eq!(
        paths(&c, "currency-utils -> supersedes -> *"),
        ["currency-utils supersedes old-money"],
        "deprecated is visible by default (flagged), as the spec says"
    );
    let out = run(&c, "currency-utils -> supersedes -> *").unwrap();
    assert!(
        out.to_text().contains("old-money (module, deprecated)"),
        "{}",
        out.to_text()
    );
    let json = serde_json::to_value(out.to_json()).unwrap();
    assert_eq!(json["results"][0]["nodes"]["old-money"]["status"], "deprecated");
    assert!(json["results"][0]["nodes"]["currency-utils"].get("status").is_none());
    assert!(paths(&c, "currency-utils -> supersedes -> * --status active").is_empty());
    assert_eq!(
        paths(&c, "currency-utils -> supersedes -> * --status any"),
        ["currency-utils supersedes old-money"]
    );
    assert_eq!(paths(&c, "old-money --status deprecated"), ["old-money"]);
    let limited = run(&c, "* -> * -> * --limit 2").unwrap();
    assert_eq!(
        (limited.paths.len(), limited.total_results, limited.truncated),
        (2, 6, true)
    );
}

#[test]
fn hidden_tiers_do_not_exist_for_the_query() {
    let public = visible(Tier::Public);
    assert_eq!(
        paths(&public, "orders-service -> depends-on -> *"),
        ["orders-service depends-on currency-utils"]
    );
    let e = err(&public, "postgresql -> * -> *");
    assert_eq!(e.kind, QueryErrorKind::UnknownNode("postgresql".into()));
    assert!(
        e.candidates.is_empty(),
        "no hint of the hidden name: {:?}",
        e.candidates
    );
    let out = run(&public, "* -> * -> * --status any").unwrap().to_json();
    let text = serde_json::to_string(&out).unwrap();
    assert!(!text.contains("postgresql") && !text.contains("money-core"), "{text}");
    let agent = visible(Tier::AgentReadable);
    assert_eq!(
        paths(&agent, "currency-utils -> depends-on -> *"),
        ["currency-utils depends-on money-core"]
    );
}

#[test]
fn unknown_names_relations_and_types_suggest() {
    let c = sample();
    let e = err(&c, "ordrs-service -> * -> *");
    assert_eq!(
        (e.kind.clone(), e.span),
        (QueryErrorKind::UnknownNode("ordrs-service".into()), Span::new(0, 13))
    );
    assert_eq!(e.candidates[0], "orders-service");
    let e = err(&c, "orders-service -> depend-on -> *");
    assert_eq!(e.kind, QueryErrorKind::UnknownRelation("depend-on".into()));
    assert_eq!(e.candidates[0], "depends-on");
    let e = err(&c, "* --type servce");
    assert_eq!(e.kind, QueryErrorKind::UnknownType("servce".into()));
    assert_eq!(e.candidates[0], "service");
    assert!(e.render("* --type servce").contains("         ^^^^^^"));
    assert!(
        run(&c, "* -> related-to -> *").unwrap().paths.is_empty(),
        "known relation, no edges: no error"
    );
    assert!(
        run(&c, "* -> zzqx-mirrors -> *").unwrap().paths.is_empty(),
        "a relation no edge uses and nothing resembles: an empty result, not an error"
    );
}

#[test]
fn json_has_the_spec_shape() {
    let c = sample();
    let v = serde_json::to_value(
        run(&c, "orders-service -> depends-on -> currency-utils")
            .unwrap()
            .to_json(),
    )
    .unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["query", "results", "total_results", "truncated"]);
    let r = &v["results"][0];
    assert_eq!(
        r["path"],
        serde_json::json!(["orders-service", "depends-on", "currency-utils"])
    );
    assert_eq!(
        r["nodes"]["orders-service"],
        serde_json::json!({"type": "service", "description": "orders-service description", "confidence": 1.0})
    );
    assert_eq!(r["edge"]["relation"], "depends-on");
    assert_eq!(r["edge"]["created_at"], "2026-01-01T00:00:00Z");
    assert!(r.get("edges").is_none(), "single hop: the spec's shape exactly");
    assert_eq!(
        (v["total_results"].as_u64(), v["truncated"].as_bool()),
        (Some(1), Some(false))
    );
}

#[test]
fn mermaid_and_dot_draw_each_node_and_edge_once() {
    let c = sample();
    let out = run(&c, "* -> depends-on -> currency-utils").unwrap();
    let m = out.to_mermaid();
    assert!(m.starts_with("graph LR\n"));
    assert_eq!(m.matches("n_currency_hutils[").count(), 1);
    assert_eq!(m.matches("-->|depends-on|").count(), 2);
    let d = out.to_dot();
    assert!(d.starts_with("digraph graphex {") && d.trim_end().ends_with('}'));
    assert!(d.contains("\"orders-service\" -> \"currency-utils\" [label=\"depends-on\"];"));
    assert!(
        out.to_text()
            .contains("orders-service (service) -[depends-on]-> currency-utils (module)")
    );
}

mod never_panics {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn any_text(s in "\\PC{0,60}") {
            let c = sample();
            let _ = run(&c, &s);
        }

        #[test]
        fn query_shaped_text(s in "[a-z*<>\\- ]{0,40}( --(depth|type|tier|limit|status) [a-z0-9.-]{0,8}){0,3}") {
            let c = sample();
            if let Err(e) = run(&c, &s) {
                let _ = e.render(&s);
                prop_assert!(e.span.start <= e.span.end);
            }
        }
    }
}

#[test]
fn completion_ranks_what_the_level_reads() {
    use super::complete::{Slot, candidates, context};
    let now = crate::model::Timestamp::parse("2026-11-24").unwrap();
    let texts = |c: &Catalog, src: &str| -> Vec<String> {
        candidates(c, &context(src, src.len()), now, 10)
            .into_iter()
            .map(|c| c.text)
            .collect()
    };
    let all = sample();
    // Names: the best fuzzy match first; `*` is offered only when it fits.
    assert_eq!(texts(&all, "ordsrv")[0], "orders-service");
    assert_eq!(texts(&all, "")[0], "*");
    // A hidden node is never offered.
    let public = visible(Tier::Public);
    assert!(texts(&all, "postg").contains(&"postgresql".to_owned()));
    assert!(!texts(&public, "postg").contains(&"postgresql".to_owned()));
    // Relations in use come with their counts, the most used first.
    let rels = candidates(&all, &context("orders-service -> ", 18), now, 20);
    assert_eq!(rels[0].text, "depends-on", "{rels:?}");
    assert!(rels[0].detail.ends_with("edges"), "{rels:?}");
    assert!(
        rels.iter().any(|c| c.text == "contradicts" && c.detail == "0 edges"),
        "{rels:?}"
    );
    // Flags, their values, and what follows a node.
    assert_eq!(
        texts(&all, "* -> * -> * --ti"),
        ["--tier", "--since"].map(String::from)[..1]
    );
    assert_eq!(texts(&all, "* --tier ag"), ["agent-readable", "agent-restricted"]);
    assert_eq!(texts(&all, "* --since ")[0], "2026-11-24");
    assert_eq!(texts(&all, "orders-service ")[0], "->");
    assert_eq!(context("* --type ", 9).slot, Slot::Value("--type".into()));
    assert_eq!(texts(&all, "* --type serv"), ["service"]);
}
