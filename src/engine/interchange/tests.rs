//! The mapping of each format, the import plan against a store (added,
//! changed, unchanged, refused; tiers never lowered) and the export's tier cap.

use super::*;
use crate::interchange::ImportOptions;
use crate::keys::Level;
use crate::model::{Name, NewEdge, NewNode, NodeType, Relation};
use crate::store::Store;
use crate::store::tests::{new_store, open_at};

fn parse_one(format: ImportFormat, text: &str) -> Mapped {
    parse(
        format,
        &[Source {
            file: "in.json",
            bytes: text.as_bytes(),
        }],
    )
    .unwrap()
}

fn opts(tier: Option<Tier>) -> ImportOptions {
    ImportOptions {
        tier,
        file: "in.json".into(),
        actor: "import test".into(),
        provenance: Provenance::Inferred {
            source: "import test".into(),
        },
    }
}

#[test]
fn names_types_and_relations_are_normalised_or_refused() {
    assert_eq!(normalise_name("POST /v1/charges").unwrap().as_str(), "post-v1-charges");
    assert_eq!(normalise_name("charge.succeeded").unwrap().as_str(), "charge.succeeded");
    assert_eq!(normalise_name("  Café  au lait ").unwrap().as_str(), "caf-au-lait");
    assert!(normalise_name("///").unwrap_err().contains("no letter or digit"));
    assert!(normalise_name(&"x".repeat(200)).unwrap_err().contains("at most 128"));
    assert_eq!(normalise_type("APIObject").unwrap().as_str(), "api-object");
    assert_eq!(normalise_type("Document").unwrap().as_str(), "document");
    assert_eq!(normalise_type("external_system").unwrap().as_str(), "external-system");
    assert!(normalise_type("9lives").is_err());
    assert_eq!(normalise_relation("STATED_BY").unwrap().as_str(), "stated-by");
    assert_eq!(normalise_relation("belongs_to").unwrap().as_str(), "belongs-to");
}

#[test]
fn node_link_maps_fields_and_keeps_the_rest_as_properties() {
    let m = parse_one(
        ImportFormat::NodeLink,
        r#"{"directed":true,"multigraph":false,"graph":{},
            "nodes":[{"id":"Charge","type":"APIObject","description":"A payment","source_file":"charges.md","rank":3},
                     {"id":7,"label":"Seven"}],
            "links":[{"source":"Charge","target":7,"edge_type":"requires","weight":0.25,"source_file":"x.md"}]}"#,
    );
    assert!(m.refused.is_empty(), "{:?}", m.refused);
    let charge = &m.nodes[0];
    assert_eq!(charge.name.as_str(), "charge");
    assert_eq!(charge.node_type.as_str(), "api-object");
    assert_eq!(charge.description, "A payment");
    assert_eq!(charge.properties["source_file"], "charges.md");
    assert_eq!(charge.properties["rank"], "3");
    assert_eq!(charge.properties["import.name"], "Charge");
    let seven = &m.nodes[1];
    assert_eq!(
        (
            seven.name.as_str(),
            seven.node_type.as_str(),
            seven.description.as_str()
        ),
        ("7", "concept", "Seven")
    );
    let e = &m.edges[0];
    assert_eq!(
        (e.from.as_str(), e.relation.as_str(), e.to.as_str()),
        ("charge", "requires", "7")
    );
    assert_eq!(e.weight, Some(0.25));
}

#[test]
fn kgraph_extractor_output_and_bad_items_are_named() {
    let m = parse_one(
        ImportFormat::Kgraph,
        r#"{"nodes":[{"name":"Customer","type":"APIObject","description":"who pays"},
                     {"name":"customer","type":"APIObject"},
                     {"name":"!!!"},
                     {"name":"Weird","type":"Not A Type!"}],
            "edges":[{"source":"Customer","target":"Nowhere","edge_type":"belongs_to"},
                     {"source":"Customer","target":"Customer","edge_type":"references","weight":-1}]}"#,
    );
    assert_eq!(
        m.nodes.len(),
        1,
        "the duplicate is refused and dropped, never also added"
    );
    let problems: Vec<String> = m.refused.iter().map(ToString::to_string).collect();
    let all = problems.join("\n");
    assert!(
        all.contains("in.json: node 1 (customer): the name customer is also node 0 (Customer)'s"),
        "{all}"
    );
    assert!(
        all.contains("in.json: node 2: the name \"!!!\" has no letter or digit"),
        "{all}"
    );
    assert!(all.contains("node 3 (Weird)") && all.contains("type"), "{all}");
    assert!(all.contains("link 1: weight -1"), "{all}");
    assert_eq!(m.edges.len(), 1, "the edge to Nowhere is left to the store to check");
}

#[test]
fn ash_collections_and_edges_map_by_file_and_id() {
    let people = "{\"id\":\"p1\",\"name\":\"Alice Smith\",\"aliases\":[\"Al\"]}\n\n";
    let memories = "{\"id\":\"m1\",\"content\":\"Alice likes tea\",\"sensitivity\":\"PERSONAL\",\"created_at\":\"2025-01-01\"}\nnot json\n";
    let edges = "{\"id\":\"e1\",\"edge_type\":\"ABOUT\",\"source_type\":\"memory\",\"source_id\":\"m1\",\"target_type\":\"person\",\"target_id\":\"p1\",\"weight\":1.0}\n\
                 {\"id\":\"e2\",\"edge_type\":\"IS_PERSON\",\"source_type\":\"user\",\"source_id\":\"u9\",\"target_type\":\"person\",\"target_id\":\"p1\"}\n";
    let m = parse(
        ImportFormat::AshJsonl,
        &[
            Source {
                file: "people.jsonl",
                bytes: people.as_bytes(),
            },
            Source {
                file: "memories.jsonl",
                bytes: memories.as_bytes(),
            },
            Source {
                file: "edges.jsonl",
                bytes: edges.as_bytes(),
            },
        ],
    )
    .unwrap();
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["person-alice-smith", "memory-m1"]);
    assert_eq!(m.nodes[0].node_type.as_str(), "person");
    assert_eq!(m.nodes[0].properties["aliases"], "[\"Al\"]");
    assert_eq!(m.nodes[1].description, "Alice likes tea");
    assert_eq!(m.nodes[1].properties["import.id"], "m1");
    assert_eq!(m.nodes[1].properties["sensitivity"], "PERSONAL");
    assert_eq!(m.refused.len(), 1);
    assert_eq!(m.refused[0].file, "memories.jsonl");
    assert_eq!(m.refused[0].item, "line 2");
    let e: Vec<String> = m
        .edges
        .iter()
        .map(|e| format!("{} {} {}", e.from, e.relation, e.to))
        .collect();
    assert_eq!(
        e,
        [
            "memory-m1 about person-alice-smith",
            "user-u9 is-person person-alice-smith"
        ]
    );
}

#[test]
fn a_long_text_keeps_its_first_line_and_moves_into_the_body() {
    let long = format!("First line\n{}", "y".repeat(5000));
    let doc = serde_json::json!({"nodes":[{"id":"a","content":long}],"links":[]}).to_string();
    let m = parse_one(ImportFormat::NodeLink, &doc);
    assert_eq!(m.nodes[0].description, "First line…");
    assert_eq!(m.nodes[0].body.as_deref(), Some(long.as_str()));
}

fn seed(store: &mut Store) {
    let mut a = NewNode::new(
        Name::new("a").unwrap(),
        NodeType::new("service").unwrap(),
        "A",
        Tier::Public,
    );
    a.properties.insert("owner".into(), "me".into());
    store.add_node(a).unwrap();
    let secret = NewNode::new(
        Name::new("s").unwrap(),
        NodeType::new("concept").unwrap(),
        "secret",
        Tier::AgentRestricted,
    );
    store.add_node(secret).unwrap();
    store
        .link(NewEdge::new(
            Name::new("a").unwrap(),
            Relation::new("uses").unwrap(),
            Name::new("s").unwrap(),
        ))
        .unwrap();
}

#[test]
fn plan_sorts_added_changed_unchanged_and_never_lowers_a_tier() {
    let (_d, root) = new_store();
    let mut store = open_at(&root, Level::Master);
    seed(&mut store);
    let m = parse_one(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"a","type":"service","description":"A"},
                     {"id":"s","type":"concept","description":"secret, now longer"},
                     {"id":"n","description":"new"}],
            "links":[{"source":"a","target":"s","relation":"uses"},{"source":"n","target":"a","relation":"uses"}]}"#,
    );
    let p = store.plan_import(&m, &opts(Some(Tier::Public))).unwrap();
    // `a` is public and the import asks public: same fields, its own property kept.
    assert_eq!(p.report.unchanged, ["a"]);
    assert_eq!(p.report.changed, ["s"]);
    assert_eq!(p.report.added, ["n"]);
    assert_eq!(p.report.tier_kept, ["s"]);
    assert_eq!(p.report.edges_added, ["n -> uses -> a"]);
    assert_eq!(p.report.edges_unchanged, 1);
    let seq = store.seen_seq();
    store.apply_import(p, "import test").unwrap();
    assert_eq!(store.seen_seq(), seq + 1, "one commit");
    let s = store.node("s").unwrap();
    assert_eq!(
        (s.version, s.tier, s.description.as_str()),
        (2, Tier::AgentRestricted, "secret, now longer")
    );
    assert_eq!(store.node("a").unwrap().properties["owner"], "me");
    // Again: nothing left to do.
    let again = store.plan_import(&m, &opts(Some(Tier::Public))).unwrap();
    assert!(
        again.is_empty() && again.report.unchanged.len() == 3,
        "{:?}",
        again.report
    );
}

#[test]
fn refusals_write_nothing_and_hidden_names_are_not_revealed() {
    let (_d, root) = new_store();
    let mut human = open_at(&root, Level::Human);
    human
        .add_node(NewNode::new(
            Name::new("h").unwrap(),
            NodeType::new("concept").unwrap(),
            "human only",
            Tier::HumanOnly,
        ))
        .unwrap();
    drop(human);
    let mut store = open_at(&root, Level::Master);
    let m = parse_one(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"h"},{"id":"ok"}],"links":[{"source":"ok","target":"ghost"}]}"#,
    );
    let p = store.plan_import(&m, &opts(None)).unwrap();
    let all: Vec<String> = p.report.refused.iter().map(ToString::to_string).collect();
    assert!(
        all[0].contains("node 0 (h)") && all[0].contains("cannot read"),
        "{all:?}"
    );
    assert!(
        all[1].contains("link 0") && all[1].contains("ghost is neither in the import nor in the store"),
        "{all:?}"
    );
    let seq = store.seen_seq();
    assert!(
        store
            .apply_import(p, "t")
            .unwrap_err()
            .to_string()
            .contains("nothing written")
    );
    assert_eq!(store.seen_seq(), seq);
    assert!(store.catalog().by_name("ok").is_none());
    // The human-only tier cannot be written at the master level.
    let p = store
        .plan_import(
            &parse_one(ImportFormat::NodeLink, r#"{"nodes":[{"id":"x"}]}"#),
            &opts(Some(Tier::HumanOnly)),
        )
        .unwrap();
    assert!(p.refused(), "{:?}", p.report);
}

#[test]
fn export_is_capped_by_level_and_tier_and_round_trips() {
    let (_d, root) = new_store();
    let mut store = open_at(&root, Level::Human);
    seed(&mut store);
    store
        .add_node(NewNode::new(
            Name::new("h").unwrap(),
            NodeType::new("concept").unwrap(),
            "human only",
            Tier::HumanOnly,
        ))
        .unwrap();
    let all = export(&store, &ExportOptions::default()).unwrap();
    assert_eq!(all.nodes.len(), 3);
    let capped = export(
        &store,
        &ExportOptions {
            tier: Some(Tier::AgentReadable),
            ..ExportOptions::default()
        },
    )
    .unwrap();
    let names: Vec<&str> = capped.nodes.iter().map(|n| n.current.name.as_str()).collect();
    assert_eq!(names, ["a"]);
    assert!(capped.edges.is_empty(), "the edge to a hidden node stays out");
    let master = open_at(&root, Level::Master);
    let m = export(&master, &ExportOptions::default()).unwrap();
    assert_eq!(m.tier_cap, Tier::AgentRestricted);
    assert!(m.nodes.iter().all(|n| n.current.tier < Tier::HumanOnly));
    // JSON and JSONL parse back to the same items.
    let json = serde_json::to_string(&m).unwrap();
    let a = parse_one(ImportFormat::Json, &json);
    let b = parse_one(ImportFormat::Json, &jsonl(&m).unwrap());
    assert!(a.refused.is_empty() && a.lossless);
    assert_eq!(a.nodes.len(), 2);
    assert_eq!(a.edges.len(), 1);
    assert_eq!(
        a.nodes
            .iter()
            .map(|n| (&n.name, &n.properties, n.tier))
            .collect::<Vec<_>>(),
        b.nodes
            .iter()
            .map(|n| (&n.name, &n.properties, n.tier))
            .collect::<Vec<_>>()
    );
    // Into a fresh store: same nodes, edges, tiers.
    let (_d2, root2) = new_store();
    let mut fresh = open_at(&root2, Level::Master);
    let p = fresh.plan_import(&a, &opts(None)).unwrap();
    fresh.apply_import(p, "t").unwrap();
    let again = export(&fresh, &ExportOptions::default()).unwrap();
    // Everything but provenance, which is the import's own.
    let strip = |v: serde_json::Value| {
        let mut v = v;
        for item in v.as_array_mut().unwrap() {
            let was = item.as_object_mut().unwrap().remove("provenance");
            assert!(was.is_some());
        }
        v
    };
    let nodes = |d: &ExportDoc| strip(serde_json::to_value(&d.nodes).unwrap());
    let edges = |d: &ExportDoc| strip(serde_json::to_value(&d.edges).unwrap());
    assert_eq!(nodes(&again), nodes(&m));
    assert_eq!(edges(&again), edges(&m));
    assert!(
        again
            .nodes
            .iter()
            .all(|n| n.current.provenance == opts(None).provenance)
    );
}

/// A file is not a witness: our own JSON may say a node was federated
/// from another project or proposed by a trusted agent, but what the
/// import writes is a local node the importing session wrote.
#[test]
fn an_import_sets_provenance_itself_never_from_the_file() {
    let (_d, root) = new_store();
    let mut store = open_at(&root, Level::Master);
    seed(&mut store);
    let mut doc = serde_json::to_value(export(&store, &ExportOptions::default()).unwrap()).unwrap();
    let federated = serde_json::json!({"kind": "federated", "project": "org", "subgraph": "glossary"});
    let agent = serde_json::json!({"kind": "agent", "id": "claude", "session": "s1", "trust": 99.0});
    for n in doc["nodes"].as_array_mut().unwrap() {
        n["provenance"] = federated.clone();
    }
    for e in doc["edges"].as_array_mut().unwrap() {
        e["provenance"] = agent.clone();
    }
    let m = parse_one(ImportFormat::Json, &doc.to_string());
    assert!(m.refused.is_empty(), "{:?}", m.refused);
    let (_d2, root2) = new_store();
    let mut fresh = open_at(&root2, Level::Master);
    let p = fresh.plan_import(&m, &opts(None)).unwrap();
    fresh.apply_import(p, "t").unwrap();
    let ours = opts(None).provenance;
    for name in ["a", "s"] {
        let n = fresh.node(name).unwrap();
        assert_eq!(n.provenance, ours, "{name}: {}", n.provenance);
    }
    let edges: Vec<_> = fresh.catalog().edges().collect();
    assert_eq!(edges.len(), 1);
    assert_eq!(*edges[0].provenance, ours);
    // A local node: writable as any other, and a changed one takes the
    // import's provenance too.
    fresh
        .update_node(
            "a",
            &crate::model::NodePatch {
                description: Some("edited".into()),
                ..Default::default()
            },
        )
        .unwrap();
    for n in doc["nodes"].as_array_mut().unwrap() {
        n["description"] = serde_json::json!("changed by the file");
    }
    let m = parse_one(ImportFormat::Json, &doc.to_string());
    let p = fresh.plan_import(&m, &opts(None)).unwrap();
    assert_eq!(p.report.changed, ["a", "s"]);
    fresh.apply_import(p, "t").unwrap();
    assert_eq!(fresh.node("s").unwrap().provenance, ours);
}

#[test]
fn graphml_escapes_every_text() {
    let (_d, root) = new_store();
    let mut store = open_at(&root, Level::Master);
    let mut n = NewNode::new(
        Name::new("x").unwrap(),
        NodeType::new("concept").unwrap(),
        "</data><evil a=\"1\">&'\u{1b}",
        Tier::Public,
    );
    n.properties.insert("k".into(), "<v>".into());
    store.add_node(n).unwrap();
    let g = graphml(&export(&store, &ExportOptions::default()).unwrap()).unwrap();
    assert!(
        g.contains("&lt;/data&gt;&lt;evil a=&quot;1&quot;&gt;&amp;&apos;\\u{1b}"),
        "{g}"
    );
    assert!(g.contains("&lt;v&gt;") && !g.contains('\u{1b}'), "{g}");
}

#[test]
fn ash_meanings_supersede_merge_sensitivity_and_portability() {
    let memories = [
        r#"{"id":"m1","content":"Tea at four","sensitivity":"PERSONAL"}"#,
        r#"{"id":"m2","content":"Tea at five"}"#,
        r#"{"id":"m3","content":"The safe code","sensitivity":"SENSITIVE","portable":false}"#,
        r#"{"id":"m4","content":"Likes tea"}"#,
        r#"{"id":"m5","content":"Tea lover"}"#,
        r#"{"id":"m6","content":"Drinks tea daily"}"#,
    ]
    .join("\n");
    let edges = [
        r#"{"edge_type":"SUPERSEDES","source_type":"memory","source_id":"m2","target_type":"memory","target_id":"m1"}"#,
        r#"{"edge_type":"MERGED_INTO","source_type":"memory","source_id":"m4","target_type":"memory","target_id":"m5"}"#,
        r#"{"edge_type":"RELATED","source_type":"memory","source_id":"m6","target_type":"memory","target_id":"m4"}"#,
    ]
    .join("\n");
    let m = parse(
        ImportFormat::AshJsonl,
        &[
            Source {
                file: "memories.jsonl",
                bytes: memories.as_bytes(),
            },
            Source {
                file: "edges.jsonl",
                bytes: edges.as_bytes(),
            },
        ],
    )
    .unwrap();
    let node = |name: &str| m.nodes.iter().find(|n| n.name.as_str() == name).unwrap();
    // SUPERSEDES: the old memory is deprecated, naming its successor.
    assert_eq!(node("memory-m1").status, Some(Status::Deprecated));
    assert_eq!(
        node("memory-m1").status_reason.as_deref(),
        Some("superseded by memory-m2")
    );
    assert_eq!(node("memory-m2").status, None);
    // MERGED_INTO: folded into the target, its edges moved there.
    assert_eq!(node("memory-m4").status, Some(Status::Deprecated));
    assert_eq!(
        node("memory-m4").status_reason.as_deref(),
        Some("merged into memory-m5")
    );
    let edges: Vec<String> = m
        .edges
        .iter()
        .map(|e| format!("{} {} {}", e.from, e.relation, e.to))
        .collect();
    assert!(
        edges.contains(&"memory-m5 supersedes memory-m4".to_owned()),
        "{edges:?}"
    );
    assert!(edges.contains(&"memory-m6 related memory-m5".to_owned()), "{edges:?}");
    assert!(
        !edges
            .iter()
            .any(|e| e.contains("merged-into") || e == "memory-m6 related memory-m4"),
        "{edges:?}"
    );
    // Sensitivity sets the least tier; portability is kept for federation.
    assert_eq!(node("memory-m1").tier, Some(Tier::AgentRestricted));
    assert_eq!(node("memory-m3").tier, Some(Tier::HumanOnly));
    assert_eq!(node("memory-m2").tier, None);
    assert_eq!(node("memory-m3").properties["portable"], "false");
    // A user's own mapping replaces the built-in one for the labels it
    // names, in any case; the others keep the built-in rule.
    let mut m = m;
    let map = std::collections::BTreeMap::from([("PERSONAL".to_owned(), Tier::HumanOnly)]);
    assert_eq!(super::ash_meaning::remap_sensitivity(&mut m, &map), 1);
    let node = |name: &str| m.nodes.iter().find(|n| n.name.as_str() == name).unwrap();
    assert_eq!(node("memory-m1").tier, Some(Tier::HumanOnly));
    assert_eq!(node("memory-m3").tier, Some(Tier::HumanOnly));
    assert_eq!(node("memory-m2").tier, None);
}
