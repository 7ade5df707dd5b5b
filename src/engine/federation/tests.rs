//! Federation: settings validation, bundle signing and verification
//! (tamper, wrong key), what a publish includes, and what a pull does
//! (read-only nodes, tiers never lowered, replay refused, tombstones,
//! conflicts with local names).

use super::config::{base64_of, parse_key};
use super::*;
use crate::config::Config;
use crate::keys::Level;
use crate::model::{NodePatch, Status, Tier};
use crate::store::Store;
use crate::store::tests::{edge, new_store, node, open_at};

const KEY: &str = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";

fn parse(text: &str) -> crate::Result<Config> {
    Config::parse("config.toml", text)
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

fn source(key: &str) -> String {
    format!(
        "[graphex.federation]\nsources = [{{ project = \"org\", subgraph = \"glossary\", access = \"read-only\", path = \"b.bundle\", key = \"{key}\" }}]\n"
    )
}

#[test]
fn the_federation_section_is_parsed_and_validated_strictly() {
    let ok = parse(&format!(
        "{}project = \"webapp\"\npublish = [{{ subgraph = \"orders\", nodes = [\"orders-*\", \"billing-?\"] }}]\n",
        source(KEY)
    ))
    .unwrap();
    let f = &ok.federation;
    assert_eq!(f.sources[0].label(), "org/glossary");
    assert!(f.publish[0].includes("orders-api") && f.publish[0].includes("billing-x"));
    assert!(!f.publish[0].includes("billing-xy") && !f.publish[0].includes("auth"));
    assert_eq!(f.source("glossary").unwrap().project, "org");
    assert!(f.source("nope").unwrap_err().to_string().contains("org/glossary"));
    assert_eq!(f.sources[0].location(), Location::Path("b.bundle".into()));
    let git = parse(&source(KEY).replace("path = \"b.bundle\"", "git = \"https://example.com/org.git\"")).unwrap();
    assert_eq!(
        git.federation.sources[0].location(),
        Location::Git {
            remote: "https://example.com/org.git".into(),
            reference: "refs/graphex/federation/glossary".into()
        },
        "the default ref"
    );
    let pinned = parse(&source(KEY).replace(
        "path = \"b.bundle\"",
        "git = \"origin\", ref = \"refs/graphex/mirror/g\"",
    ));
    assert!(matches!(
        pinned.unwrap().federation.sources[0].location(),
        Location::Git { reference, .. } if reference == "refs/graphex/mirror/g"
    ));

    let cases = [
        (source(KEY).replace("read-only", "read-write"), "only \"read-only\""),
        (source(KEY).replace("glossary", ""), "subgraph name is empty"),
        (source(KEY).replace("\"org\"", "\"Org\""), "not allowed in a project name"),
        (source(KEY).replace("b.bundle", " "), "give the path"),
        (source("abc"), "not an Ed25519 public key"),
        (source(&"0".repeat(64)), "not an Ed25519 public key"),
        (source(KEY).replace(", key = ", ", colour = \"red\", key = "), "unknown field `colour`"),
        (source(KEY).replace(", key = \"", ", x = \"").replace("x = \"3d", "key2 = \"3d"), "unknown field"),
        (
            source(KEY).replace(" }]", &format!(" }}, {{ project = \"org\", subgraph = \"glossary\", access = \"read-only\", path = \"c\", key = \"{KEY}\" }}]")),
            "listed twice",
        ),
        (
            "[graphex.federation]\nproject = \"w\"\npublish = [{ subgraph = \"a\", nodes = [\"x\"] }, { subgraph = \"a\", nodes = [\"y\"] }]\n".into(),
            "published twice",
        ),
        (
            "[graphex.federation]\nproject = \"w\"\npublish = [{ subgraph = \"a\", nodes = [\"Orders *\"] }]\n".into(),
            "can never match a node name",
        ),
        (
            "[graphex.federation]\nproject = \"w\"\npublish = [{ subgraph = \"a\", nodes = [] }]\n".into(),
            "at least one node name pattern",
        ),
        (
            "[graphex.federation]\nproject = \"w\"\npublish = [{ subgraph = \"a\", nodes = [\"\"] }]\n".into(),
            "empty pattern",
        ),
        (
            "[graphex.federation]\npublish = [{ subgraph = \"a\", nodes = [\"x\"] }]\n".into(),
            "publishing needs this project's name",
        ),
        (
            "[graphex.federation]\nsources = [{ project = \"org\", subgraph = \"g\", access = \"read-only\" }]\n".into(),
            "missing field",
        ),
        (source(KEY).replace("path = \"b.bundle\"", "path = \"b\", git = \"origin\""), "both `path` and `git`"),
        (source(KEY).replace("path = \"b.bundle\", ", ""), "no `path` nor `git`"),
        (source(KEY).replace("path = \"b.bundle\"", "git = \"--upload-pack=x\""), "as an option"),
        (source(KEY).replace("path = \"b.bundle\"", "path = \"b\", ref = \"refs/x\""), "only for a `git` source"),
        (source(KEY).replace("path = \"b.bundle\"", "git = \"o\", ref = \"heads/x\""), "starting with refs/"),
        (source(KEY).replace("path = \"b.bundle\"", "git = \"o\", ref = \"refs/a/../b\""), "not a valid ref name"),
        (source(KEY).replace("path = \"b.bundle\"", "git = \"o\", ref = \"refs/a b\""), "not allowed"),
    ];
    for (text, want) in cases {
        let e = err(&text);
        assert!(e.contains(want), "{text}\n=> {e}");
        assert!(e.contains("[graphex.federation]"), "{e}");
    }
}

#[test]
fn keys_are_read_as_hex_or_base64_and_an_empty_section_keeps_old_digests() {
    let key = parse_key(KEY).unwrap();
    let b64 = base64_of(&key.to_bytes());
    assert_eq!(b64.len(), 44);
    assert_eq!(parse_key(&b64), Some(key.clone()));
    assert_eq!(parse_key(b64.trim_end_matches('=')), Some(key));
    assert_eq!(parse_key(&b64.replace('=', "A")), None);
    // Settings approved before federation existed keep their digest.
    let plain = Config::default().canonical().unwrap();
    assert!(!plain.contains("federation"), "{plain}");
    let with = parse(&source(KEY)).unwrap();
    assert_ne!(with.digest().unwrap(), Config::default().digest().unwrap());
    assert_eq!(Config::from_canonical(&with.canonical().unwrap()).unwrap(), with);
    let diff = Config::default().differences(&with);
    assert!(
        diff.iter().any(|d| d.starts_with("federation.sources: (none) ->")),
        "{diff:?}"
    );
}

/// A publisher with one node per tier matching `orders-*`, one that does
/// not match, and edges among them.
fn publisher() -> (tempfile::TempDir, std::path::PathBuf, FederationConfig) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    for (name, tier) in [
        ("orders-api", Tier::Public),
        ("orders-db", Tier::AgentReadable),
        ("orders-keys", Tier::AgentRestricted),
        ("orders-secret", Tier::HumanOnly),
        ("billing", Tier::Public),
    ] {
        s.add_node(node(name, tier, &format!("{name} text"))).unwrap();
    }
    s.link(edge("orders-api", "depends-on", "orders-db")).unwrap();
    s.link(edge("orders-api", "depends-on", "billing")).unwrap();
    s.link(edge("orders-db", "related-to", "orders-secret")).unwrap();
    s.link(edge("orders-db", "related-to", "orders-keys")).unwrap();
    let fed = FederationConfig {
        project: Some("shop".into()),
        publish: vec![PublishConfig {
            subgraph: "orders".into(),
            nodes: vec!["orders-*".into()],
            // Sealed to this very store, the consumer of the tests that open it.
            to: vec![recipient(&root)],
        }],
        ..FederationConfig::default()
    };
    (dir, root, fed)
}

/// A store's age recipient (what `graphex federation key` prints).
fn recipient(root: &std::path::Path) -> String {
    crate::proposal::master_recipient(&crate::store::Layout::new(root).keys())
        .unwrap()
        .to_string()
}

fn names(b: &Bundle) -> Vec<&str> {
    b.nodes.iter().map(|n| n.name.as_str()).collect()
}

#[test]
fn a_bundle_holds_the_matching_nodes_with_their_tiers_and_only_edges_among_them() {
    let (_d, root, fed) = publisher();
    // Even a session that reads human-only nodes never publishes one.
    let s = open_at(&root, Level::Human);
    let p = plan_publish(&s, &fed, "orders").unwrap();
    let b = &p.bundle;
    assert_eq!(names(b), ["orders-api", "orders-db", "orders-keys"]);
    assert_eq!(
        b.nodes.iter().map(|n| n.tier).collect::<Vec<_>>(),
        [Tier::Public, Tier::AgentReadable, Tier::AgentRestricted]
    );
    let edges: Vec<String> = b.edges.iter().map(|e| format!("{}>{}", e.from, e.to)).collect();
    assert_eq!(edges, ["orders-api>orders-db", "orders-db>orders-keys"]);
    assert!(!p.text.contains("orders-secret") && !p.text.contains("billing"));
    assert_eq!((b.sequence, b.project.as_str()), (1, "shop"));
    assert!(plan_publish(&s, &fed, "nope").is_err());
    assert!(plan_publish(&open_at(&root, Level::Agent), &fed, "orders").is_err());
}

#[test]
fn a_bundle_opens_only_with_the_pinned_key_and_unaltered() {
    let (_d, root, fed) = publisher();
    let s = open_at(&root, Level::Master);
    let p = plan_publish(&s, &fed, "orders").unwrap();
    let key = publisher_key(&s).unwrap();
    let me = s.keys().master().unwrap();
    assert_eq!(Bundle::open("b", p.text.as_bytes(), &key, Some(me)).unwrap(), p.bundle);
    assert!(
        p.sealed && !p.text.contains("orders-keys"),
        "sealed: no name in the clear"
    );
    // The publisher key is not the seal's key, and is stable.
    assert_ne!(key, s.keys().seal().unwrap().verifier());
    assert_eq!(publisher_key(&open_at(&root, Level::Master)).unwrap(), key);

    let (_d2, other_root, other_fed) = publisher();
    let other = plan_publish(&open_at(&other_root, Level::Master), &other_fed, "orders").unwrap();
    let wrong = Bundle::open("b", other.text.as_bytes(), &key, Some(me))
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("not the pinned key"), "{wrong}");
    // The other publisher's text with our key in the envelope: the signature fails.
    let their_key = other.text.lines().find(|l| l.contains("\"key\"")).unwrap().to_owned();
    let forged = other
        .text
        .replace(&their_key, &format!("  \"key\": \"{}\",", key.to_hex()));
    let e = Bundle::open("b", forged.as_bytes(), &key, Some(me))
        .unwrap_err()
        .to_string();
    assert!(e.contains("signature does not verify"), "{e}");

    let flip = p.text.find("\"payload\": \"").unwrap() + 20;
    let mut tampered = p.text.clone();
    tampered.replace_range(flip..flip + 1, if &p.text[flip..flip + 1] == "0" { "1" } else { "0" });
    assert_ne!(tampered, p.text);
    let e = Bundle::open("b", tampered.as_bytes(), &key, Some(me))
        .unwrap_err()
        .to_string();
    assert!(e.contains("signature does not verify"), "{e}");
    let e = Bundle::open("b", b"{}", &key, Some(me)).unwrap_err().to_string();
    assert!(e.contains("not a Graphex federation bundle"), "{e}");
}

/// Publishes `orders` from `publisher_root` and returns the signed bundle.
fn publish(root: &std::path::Path, fed: &FederationConfig) -> (Bundle, String) {
    let s = open_at(root, Level::Master);
    let p = plan_publish(&s, fed, "orders").unwrap();
    record_publish(&s, &p).unwrap();
    (p.bundle, publisher_key(&s).unwrap().to_hex())
}

fn source_for(key: &str) -> SourceConfig {
    SourceConfig {
        project: "shop".into(),
        subgraph: "orders".into(),
        access: "read-only".into(),
        path: Some("orders.bundle".into()),
        git: None,
        git_ref: None,
        key: key.into(),
    }
}

#[test]
fn a_pull_adds_read_only_tagged_nodes_and_refuses_local_edits() {
    let (_d, proot, fed) = publisher();
    let (bundle, key) = publish(&proot, &fed);
    let (_c, croot) = new_store();
    let mut c = open_at(&croot, Level::Master);
    c.add_node(node("local", Tier::Public, "ours")).unwrap();
    let src = source_for(&key);
    let r = pull(&mut c, &src, &bundle, true).unwrap();
    assert!(r.dry_run && r.import.added.len() == 3);
    assert!(c.catalog().by_name("orders-api").is_none(), "a dry run writes nothing");
    let r = pull(&mut c, &src, &bundle, false).unwrap();
    assert_eq!(r.import.added, ["orders-api", "orders-db", "orders-keys"]);
    assert_eq!(r.import.edges_added.len(), 2);
    let n = c.node("orders-keys").unwrap();
    assert_eq!(n.tier, Tier::AgentRestricted);
    assert_eq!(n.properties[FEDERATED_FROM], "shop/orders");
    assert_eq!(n.provenance.to_string(), "federated from shop/orders");

    let refused = |e: crate::Error| {
        let t = e.to_string();
        assert!(t.contains("federated from shop/orders: read-only"), "{t}");
    };
    let patch = NodePatch {
        description: Some("edited".into()),
        ..NodePatch::default()
    };
    refused(c.update_node("orders-api", &patch).unwrap_err());
    refused(c.set_status("orders-api", Status::Deprecated, None).unwrap_err());
    refused(c.unlink("orders-api", "depends-on", "orders-db").unwrap_err());
    refused(c.link(edge("orders-api", "uses", "local")).unwrap_err());
    refused(c.supersede("orders-api", "local", None).unwrap_err());
    // A local node may point at a federated one.
    c.link(edge("local", "uses", "orders-api")).unwrap();
    // Nobody but a pull sets the marker.
    let mut fake = node("fake", Tier::Public, "x");
    fake.properties.insert(FEDERATED_FROM.into(), "shop/orders".into());
    assert!(c.add_node(fake).unwrap_err().to_string().contains("reserved"));
    let mut mark = NodePatch::default();
    mark.properties.insert(FEDERATED_FROM.into(), "x/y".into());
    assert!(
        c.update_node("local", &mark)
            .unwrap_err()
            .to_string()
            .contains("reserved")
    );

    // Undo takes back the local link, then refuses to change the pulled nodes.
    c.undo().unwrap();
    refused(c.undo().unwrap_err());
    assert_eq!(c.node("orders-api").unwrap().properties[FEDERATED_FROM], "shop/orders");

    // Pulling the same bundle again changes nothing.
    let again = pull(&mut c, &src, &bundle, false).unwrap();
    assert!(
        again.import.added.is_empty() && again.import.changed.is_empty(),
        "{again:?}"
    );
}

#[test]
fn updates_tombstones_and_removed_edges_flow_one_way_and_replays_are_refused() {
    let (_d, proot, fed) = publisher();
    let (first, key) = publish(&proot, &fed);
    let src = source_for(&key);
    let (_c, croot) = new_store();
    let mut c = open_at(&croot, Level::Master);
    pull(&mut c, &src, &first, false).unwrap();
    let state_after_first = crate::store::meta(c.conn(), "federation").unwrap().unwrap();

    let mut p = open_at(&proot, Level::Master);
    let lower = NodePatch {
        tier: Some(Tier::AgentReadable),
        description: Some("new words".into()),
        ..NodePatch::default()
    };
    p.update_node("orders-keys", &lower).unwrap();
    p.unlink("orders-api", "depends-on", "orders-db").unwrap();
    let rename = NodePatch {
        node_type: Some(crate::model::NodeType::new("database").unwrap()),
        ..NodePatch::default()
    };
    p.update_node("orders-db", &rename).unwrap();
    let (second, _) = {
        let mut f = fed.clone();
        f.publish[0].nodes = vec!["orders-api".into(), "orders-keys".into()];
        publish(&proot, &f)
    };
    assert_eq!(second.sequence, 2);
    assert_eq!(
        second.tombstones.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        ["orders-db"]
    );

    let r = pull(&mut c, &src, &second, false).unwrap();
    assert_eq!(r.archived, ["orders-db"]);
    // Unlinked at the source, and gone with the withdrawn node.
    assert_eq!(
        r.edges_removed,
        [
            "orders-api -> depends-on -> orders-db",
            "orders-db -> related-to -> orders-keys"
        ]
    );
    assert_eq!(r.import.changed, ["orders-keys"]);
    let keys = c.node("orders-keys").unwrap();
    assert_eq!(keys.description, "new words");
    assert_eq!(keys.tier, Tier::AgentRestricted, "a tier is never lowered by a pull");
    assert_eq!(r.import.tier_kept, ["orders-keys"]);
    let db = c.node("orders-db").unwrap();
    assert_eq!(db.status, Status::Archived);
    assert!(
        db.status_reason
            .unwrap()
            .contains("withdrawn by shop/orders (bundle #2)")
    );

    let e = pull(&mut c, &src, &first, false).unwrap_err().to_string();
    assert!(e.contains("#1, older than #2 already pulled"), "{e}");
    assert_eq!(c.node("orders-db").unwrap().status, Status::Archived, "nothing written");
    // The state put back as it was after the first pull: the timeline still knows.
    c.conn()
        .execute(
            "UPDATE meta SET value = ?1 WHERE key = 'federation'",
            [&state_after_first],
        )
        .unwrap();
    let e = pull(&mut c, &src, &first, false).unwrap_err().to_string();
    assert!(e.contains("#1, older than #2 already pulled"), "{e}");
    // The state and the timeline's pull rows both deleted (repository
    // write only): the timeline's seal catches it before anything is
    // applied, and this machine's record still holds the mark.
    assert_eq!(c.federation_high_water("shop/orders"), Some(2));
    drop(c);
    let conn = rusqlite::Connection::open(crate::store::Layout::new(&croot).db()).unwrap();
    conn.execute("DELETE FROM meta WHERE key = 'federation'", []).unwrap();
    conn.execute("DELETE FROM timeline WHERE actor LIKE 'federation pull %'", [])
        .unwrap();
    drop(conn);
    let mut c = open_at(&croot, Level::Master);
    let e = pull(&mut c, &src, &first, false).unwrap_err().to_string();
    assert!(e.contains("timeline"), "{e}");
    assert_eq!(c.node("orders-db").unwrap().status, Status::Archived, "nothing written");

    let mut other = source_for(&key);
    other.subgraph = "glossary".into();
    let e = pull(&mut c, &other, &second, false).unwrap_err().to_string();
    assert!(e.contains("publishes shop/orders, not shop/glossary"), "{e}");
}

#[test]
fn a_local_node_with_a_federated_name_is_kept_and_reported() {
    let (_d, proot, fed) = publisher();
    let (bundle, key) = publish(&proot, &fed);
    let (_c, croot) = new_store();
    let mut c = open_at(&croot, Level::Master);
    c.add_node(node("orders-db", Tier::Public, "our own")).unwrap();
    let r = pull(&mut c, &source_for(&key), &bundle, false).unwrap();
    assert_eq!(r.conflicts.len(), 1, "{r:?}");
    assert!(r.conflicts[0].starts_with("orders-db: a local node has this name"));
    assert_eq!(r.import.added, ["orders-api", "orders-keys"]);
    assert!(r.import.edges_added.is_empty(), "edges to the kept node are not pulled");
    let ours = c.node("orders-db").unwrap();
    assert_eq!(ours.description, "our own");
    assert!(!ours.properties.contains_key(FEDERATED_FROM));
    assert_eq!(c.federated_origin("orders-api").as_deref(), Some("shop/orders"));
    assert_eq!(c.federated_origin("orders-db"), None);
}

#[test]
fn a_store_reopened_keeps_the_federation_state_sealed() {
    let (_d, proot, fed) = publisher();
    publish(&proot, &fed);
    let s = open_at(&proot, Level::Master);
    let raw = crate::store::meta(s.conn(), "federation").unwrap().unwrap();
    assert!(!raw.contains("orders"), "no name in the clear");
    s.conn()
        .execute(
            "UPDATE meta SET value = ?1 WHERE key = 'federation'",
            [format!("00{raw}")],
        )
        .unwrap();
    let e = plan_publish(&s, &fed, "orders").unwrap_err().to_string();
    assert!(e.contains("federation state"), "{e}");
    let _ = Store::open;
}

#[test]
fn agent_restricted_nodes_leave_only_sealed_to_the_consumers() {
    let (_d, root, mut fed) = publisher();
    let s = open_at(&root, Level::Master);
    let key = publisher_key(&s).unwrap();
    // Sealed to another project: this one cannot open it.
    let (_d2, other_root, _) = publisher();
    fed.publish[0].to = vec![recipient(&other_root)];
    let p = plan_publish(&s, &fed, "orders").unwrap();
    let e = Bundle::open("b", p.text.as_bytes(), &key, Some(s.keys().master().unwrap()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not sealed to this project"), "{e}");
    let e = Bundle::open("b", p.text.as_bytes(), &key, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs the master identity"), "{e}");
    let theirs = open_at(&other_root, Level::Master);
    let opened = Bundle::open("b", p.text.as_bytes(), &key, Some(theirs.keys().master().unwrap())).unwrap();
    assert!(names(&opened).contains(&"orders-keys"));
    // Without recipients: plain text, public only; the others stay home.
    fed.publish[0].to.clear();
    assert_eq!(fed.publish[0].ceiling(), Tier::Public);
    let plain = plan_publish(&s, &fed, "orders").unwrap();
    assert!(!plain.sealed);
    assert_eq!(names(&plain.bundle), ["orders-api"]);
    assert_eq!(plain.kept_home, ["orders-db", "orders-keys"]);
    assert!(plain.bundle.edges.is_empty(), "{:?}", plain.bundle.edges);
    assert!(!plain.text.contains("orders-db") && !plain.text.contains("orders-keys"));
    assert_eq!(
        Bundle::open("b", plain.text.as_bytes(), &key, None).unwrap(),
        plain.bundle
    );
    // A plain-text bundle that carries one anyway (an older or altered
    // publisher) is refused even with a good signature.
    let leaky = p.bundle.sign(s.keys().seal().unwrap(), &[]).unwrap();
    let e = Bundle::open("b", leaky.as_bytes(), &key, None).unwrap_err().to_string();
    assert!(e.contains("in plain text"), "{e}");
    // Agent-readable is not public: refused in plain text too, node or edge.
    let mut readable = p.bundle.clone();
    readable.nodes.retain(|n| n.tier <= Tier::AgentReadable);
    readable.edges.retain(|e| e.tier <= Tier::AgentReadable);
    let leaky = readable.sign(s.keys().seal().unwrap(), &[]).unwrap();
    let e = Bundle::open("b", leaky.as_bytes(), &key, None).unwrap_err().to_string();
    assert!(e.contains("agent-readable node orders-db in plain text"), "{e}");
    let mut edge_only = readable.clone();
    for n in &mut edge_only.nodes {
        n.tier = Tier::Public;
    }
    let leaky = edge_only.sign(s.keys().seal().unwrap(), &[]).unwrap();
    let e = Bundle::open("b", leaky.as_bytes(), &key, None).unwrap_err().to_string();
    assert!(
        e.contains("agent-readable edge orders-api -> depends-on -> orders-db in plain text"),
        "{e}"
    );
    // A recipient that is not one is a setting error.
    fed.publish[0].to = vec!["age1nope".into()];
    assert!(fed.validate().unwrap_err().to_string().contains("not an age recipient"));
}

#[test]
fn a_plain_bundle_names_no_node_that_only_ever_left_sealed() {
    let (_d, root, mut fed) = publisher();
    let mut s = open_at(&root, Level::Master);
    let key = publisher_key(&s).unwrap();
    let tombs = |p: &Publication| -> Vec<String> { p.bundle.tombstones.iter().map(ToString::to_string).collect() };
    // #1 sealed: the agent-readable and restricted nodes leave sealed.
    let sealed = plan_publish(&s, &fed, "orders").unwrap();
    assert_eq!(names(&sealed.bundle), ["orders-api", "orders-db", "orders-keys"]);
    record_publish(&s, &sealed).unwrap();
    // `to` removed and the pattern narrowed: #2 is plain text.
    s.add_node(node("orders-gone", Tier::Public, "soon gone")).unwrap();
    fed.publish[0].to.clear();
    fed.publish[0].nodes = vec!["orders-api".into(), "orders-gone".into()];
    let plain = plan_publish(&s, &fed, "orders").unwrap();
    assert!(!plain.sealed);
    assert!(tombs(&plain).is_empty(), "{:?}", tombs(&plain));
    for secret in ["orders-keys", "orders-db"] {
        assert!(!plain.text.contains(secret), "{secret} in the clear: {}", plain.text);
    }
    assert_eq!(
        Bundle::open("b", plain.text.as_bytes(), &key, None).unwrap(),
        plain.bundle
    );
    record_publish(&s, &plain).unwrap();
    // A name that left in plain text is tombstoned in plain text.
    fed.publish[0].nodes = vec!["orders-api".into()];
    let third = plan_publish(&s, &fed, "orders").unwrap();
    assert_eq!(tombs(&third), ["orders-gone"]);
    record_publish(&s, &third).unwrap();
    // One that is above public now is not, though it left in plain text.
    let raise = NodePatch {
        tier: Some(Tier::AgentReadable),
        ..NodePatch::default()
    };
    s.update_node("orders-api", &raise).unwrap();
    let fourth = plan_publish(&s, &fed, "orders").unwrap();
    assert_eq!(fourth.kept_home, ["orders-api"]);
    assert_eq!(tombs(&fourth), ["orders-gone"]);
    assert!(!fourth.text.contains("orders-api"), "{}", fourth.text);
    // A sealed bundle keeps every tombstone.
    fed.publish[0].to = vec![recipient(&root)];
    fed.publish[0].nodes = vec!["orders-api".into()];
    let resealed = plan_publish(&s, &fed, "orders").unwrap();
    assert_eq!(tombs(&resealed), ["orders-db", "orders-gone", "orders-keys"]);
    // A state written before the field existed still loads.
    let old = serde_json::json!({"published": {"orders": {"sequence": 3, "names": ["a"]}}, "pulled": {}});
    let st: state::State = serde_json::from_value(old).unwrap();
    assert!(st.published["orders"].sealed_only.is_empty());
}

#[test]
fn an_import_never_sets_the_federated_marker_nor_touches_a_pulled_node() {
    use crate::interchange::ImportOptions;
    use crate::interchange::{ExportOptions, ImportFormat, Source, export, parse};
    let (_d, proot, fed) = publisher();
    let (bundle, key) = publish(&proot, &fed);
    let (_c, croot) = new_store();
    let mut c = open_at(&croot, Level::Master);
    pull(&mut c, &source_for(&key), &bundle, false).unwrap();
    let opts = ImportOptions {
        tier: None,
        file: "in.json".into(),
        actor: "import test".into(),
        provenance: crate::model::Provenance::Inferred { source: "t".into() },
    };
    let mapped = |format, text: &str| {
        parse(
            format,
            &[Source {
                file: "in.json",
                bytes: text.as_bytes(),
            }],
        )
        .unwrap()
    };
    let refusals = |s: &Store, m: &crate::interchange::Mapped| -> Vec<String> {
        let p = s.plan_import(m, &opts).unwrap();
        p.report.refused.iter().map(ToString::to_string).collect()
    };
    // Our own export of a store holding pulled nodes, into a fresh store.
    let doc = serde_json::to_string(&export(&c, &ExportOptions::default()).unwrap()).unwrap();
    let own = mapped(ImportFormat::Json, &doc);
    let (_f, froot) = new_store();
    let mut fresh = open_at(&froot, Level::Master);
    let r = refusals(&fresh, &own);
    assert_eq!(r.len(), 5, "three nodes, and the two edges among them: {r:?}");
    assert!(
        r[0].contains("node 0 (orders-api)") && r[0].contains("sets the property federated-from, reserved"),
        "{r:?}"
    );
    assert!(r[..3].iter().all(|t| t.contains("federated-from")), "{r:?}");
    let p = fresh.plan_import(&own, &opts).unwrap();
    assert!(fresh.apply_import(p, "t").is_err());
    assert!(fresh.catalog().by_name("orders-api").is_none(), "nothing written");
    // A foreign format with the property as a field.
    let foreign = mapped(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"fake","federated-from":"shop/orders"}],"links":[]}"#,
    );
    let r = refusals(&fresh, &foreign);
    assert!(
        r.len() == 1 && r[0].contains("node 0 (fake)") && r[0].contains("federated-from"),
        "{r:?}"
    );
    // Into the consumer itself: a pulled node is read-only, marker or not,
    // and no edge leaves it.
    let unmarked = mapped(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"orders-api","description":"mine"},{"id":"mine"}],
            "links":[{"source":"orders-db","target":"mine","relation":"uses"}]}"#,
    );
    let r = refusals(&c, &unmarked);
    assert!(
        r.len() == 2
            && r[0].contains("orders-api is federated from shop/orders: read-only")
            && r[1].contains("orders-db is federated from shop/orders: read-only"),
        "{r:?}"
    );
    assert_eq!(c.node("orders-api").unwrap().description, "orders-api text");
    // A pull's own import still sets it.
    let again = pull(&mut c, &source_for(&key), &bundle, false).unwrap();
    assert!(again.import.refused.is_empty(), "{again:?}");
}

#[test]
fn a_node_marked_not_portable_stays_home() {
    let (_d, root, fed) = publisher();
    let mut s = open_at(&root, Level::Master);
    let mut patch = crate::model::NodePatch::default();
    patch.properties.insert("portable".into(), "false".into());
    s.update_node("orders-api", &patch).unwrap();
    let p = plan_publish(&s, &fed, "orders").unwrap();
    assert!(!names(&p.bundle).contains(&"orders-api"), "{:?}", names(&p.bundle));
    assert!(p.kept_home.contains(&"orders-api".to_owned()), "{:?}", p.kept_home);
    assert!(names(&p.bundle).contains(&"orders-db"));
}
