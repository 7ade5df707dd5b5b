//! Two states of one store compared: a copy taken, then changed the ways a
//! branch changes a graph; what a master-level reader is shown, counted,
//! warned of, and what each agent tier gains and loses.

use std::path::Path;

use super::{NodeChangeKind, compare};
use crate::Level;
use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Status, Tier};
use crate::proposal::tests::graph;
use crate::store::tests::open_at;

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn node(name: &str, description: &str, tier: Tier) -> NewNode {
    NewNode::new(
        Name::new(name).unwrap(),
        NodeType::new("service").unwrap(),
        description.to_owned(),
        tier,
    )
}

#[test]
fn a_branch_is_shown_counted_and_flagged_at_the_readers_level() {
    let (_dir, before) = graph();
    let after_dir = tempfile::tempdir().unwrap();
    let after = after_dir.path().join("after");
    copy(&before, &after);
    {
        let mut h = open_at(&after, Level::Human);
        h.add_node(node(
            "public-doc",
            "How to call orders-service from outside",
            Tier::Public,
        ))
        .unwrap();
        h.add_node(node(
            "deploy-notes",
            "deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
            Tier::AgentReadable,
        ))
        .unwrap();
        h.add_node(node("payroll-two", "more payroll", Tier::HumanOnly))
            .unwrap();
        h.update_node(
            "api-gateway",
            &NodePatch {
                tier: Some(Tier::Public),
                description: Some("The gateway, now public".into()),
                ..NodePatch::default()
            },
        )
        .unwrap();
        h.set_status("orders-service", Status::Deprecated, Some("replaced"))
            .unwrap();
        h.link(NewEdge::new(
            Name::new("public-doc").unwrap(),
            Relation::new("documents").unwrap(),
            Name::new("api-gateway").unwrap(),
        ))
        .unwrap();
    }
    let (a, b) = (open_at(&before, Level::Master), open_at(&after, Level::Master));
    let settings = b.config().unwrap().config.projection_settings().unwrap();
    let c = compare(&a, &b, &settings).unwrap();
    let kinds: Vec<(&str, NodeChangeKind)> = c.nodes.iter().map(|n| (n.name.as_str(), n.change)).collect();
    assert_eq!(
        kinds,
        [
            ("api-gateway", NodeChangeKind::Changed),
            ("deploy-notes", NodeChangeKind::Added),
            ("orders-service", NodeChangeKind::Deprecated),
            ("public-doc", NodeChangeKind::Added),
        ],
        "the human-only node is not shown"
    );
    let names: Vec<String> = kinds.iter().map(|(n, _)| (*n).to_owned()).collect();
    assert_eq!(
        super::changed_names(a.catalog(), b.catalog()),
        names,
        "the names alone, as a range lists them"
    );
    let gateway = &c.nodes[0];
    assert_eq!(
        (gateway.tier_before, gateway.tier_after),
        (Some(Tier::AgentReadable), Some(Tier::Public))
    );
    assert!(
        gateway.fields.iter().any(|f| f.field == "description"),
        "{:?}",
        gateway.fields
    );
    // Counted, never shown: the human-only tier grew by one node.
    let human = c.sealed.iter().find(|s| s.tier == Tier::HumanOnly).unwrap();
    assert_eq!(human.nodes, (1, 2));
    assert_eq!(c.edges.len(), 1);
    assert!(c.edges[0].added && c.edges[0].relation == "documents");
    let codes: Vec<(&str, &str)> = c.findings.iter().map(|f| (f.code, f.node.as_str())).collect();
    assert_eq!(
        codes,
        [
            ("credential", "deploy-notes"),
            ("mentions-higher", "public-doc"),
            ("tier-lowered", "api-gateway"),
        ]
    );
    // Public gains the gateway and the doc, and the relation between them;
    // agent-readable loses the deprecated orders-service.
    let public = &c.exposure[0];
    assert_eq!(public.tier, Tier::Public);
    assert_eq!(public.nodes_gained, ["api-gateway", "public-doc"]);
    assert_eq!(public.relations_gained, 1);
    assert!(public.tokens_after > public.tokens_before, "{public:?}");
    let readable = &c.exposure[1];
    assert_eq!(readable.nodes_lost, ["orders-service"]);
    assert!(readable.nodes_gained.contains(&"deploy-notes".to_owned()));
    // Locked, the same two states: public content only, the rest counted.
    let (la, lb) = (open_at(&before, Level::Locked), open_at(&after, Level::Locked));
    let locked = compare(&la, &lb, &settings).unwrap();
    let names: Vec<&str> = locked.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        ["api-gateway", "public-doc"],
        "an agent-readable node moved down shows as added"
    );
    let readable = locked.sealed.iter().find(|s| s.tier == Tier::AgentReadable).unwrap();
    assert_eq!(
        readable.nodes,
        (2, 2),
        "orders-service and deploy-notes in, api-gateway out"
    );
    // The same state twice: nothing.
    assert!(compare(&b, &b, &settings).unwrap().is_empty());
    assert!(super::changed_names(b.catalog(), b.catalog()).is_empty());
}

/// A past state opened with no blob of its own: the tier snapshots it
/// loads and the nodes it reads come from the store's directory, checked.
#[test]
fn a_snapshot_reads_the_blobs_it_lacks_from_the_store() {
    let (_dir, root) = graph();
    open_at(&root, Level::Master).refresh_snapshots(true).unwrap();
    let copy_dir = tempfile::tempdir().unwrap();
    let past_root = copy_dir.path().join("past");
    copy(&root, &past_root);
    let objects = crate::store::Layout::new(&past_root).objects();
    std::fs::remove_dir_all(&objects).unwrap();
    std::fs::create_dir_all(&objects).unwrap();
    let creds = crate::store::tests::creds(Level::Master, &root);
    let own = crate::store::Layout::new(&root).objects();
    let past = crate::Store::open_snapshot(&past_root, &creds, Some(&own)).unwrap();
    assert_eq!(
        past.node("orders-service").unwrap().description,
        "orders-service description"
    );
    assert!(
        crate::Store::open_snapshot(&past_root, &creds, None)
            .and_then(|s| s.node("orders-service"))
            .is_err(),
        "without the store's blobs nothing can be read"
    );
    assert!(std::fs::read_dir(&objects).unwrap().next().is_none(), "nothing written");
}
