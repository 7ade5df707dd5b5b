//! A near-duplicate merged into the node it duplicates: the add_node
//! becomes an update of that node's differing fields, its edges the
//! existing node's, other changes renamed; accepted as the reviewer's
//! edit, nothing new is added and the tier never moves.

use serde_json::json;

use super::merged_into;
use crate::Level;
use crate::proposal::tests::{graph, propose};
use crate::proposal::{Change, edit_text};
use crate::store::tests::open_at;

#[test]
fn an_add_node_becomes_an_update_of_the_existing_node_and_accepts_as_an_edit() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    let id = propose(
        &mut s,
        json!([
            {"op": "add_node", "name": "orders-servce", "type": "service", "tier": "public",
             "description": "Takes and tracks orders", "properties": {"owner": "orders-team"},
             "suggested_edges": [["orders-servce", "depends-on", "api-gateway"]]},
            {"op": "add_edge", "from": "api-gateway", "relation": "uses", "to": "orders-servce"}
        ]),
    );
    let (pid, p) = s.proposal(id.as_str()).unwrap();
    let merged = merged_into(&s, &p.submission, 1, "orders-service").unwrap();
    let names: Vec<(&str, Vec<String>)> = merged
        .changes
        .iter()
        .map(|c| (c.op(), c.names().iter().map(|n| n.to_string()).collect()))
        .collect();
    assert_eq!(
        names,
        [
            ("update_node", vec!["orders-service".to_owned()]),
            ("add_edge", vec!["orders-service".to_owned(), "api-gateway".to_owned()]),
            ("add_edge", vec!["api-gateway".to_owned(), "orders-service".to_owned()]),
        ]
    );
    let Change::UpdateNode { set, .. } = &merged.changes[0] else {
        panic!()
    };
    assert_eq!(set.description.as_deref(), Some("Takes and tracks orders"));
    assert_eq!(set.properties.get("owner").map(String::as_str), Some("orders-team"));
    assert_eq!(set.tier, None, "a merge never moves the node between tiers");
    // Accepted as the reviewer's edit: no new node, the existing one updated.
    let text = edit_text(&crate::proposal::StoredProposal {
        submission: merged,
        ..p.clone()
    });
    s.accept_edit(&pid, &text, false).unwrap();
    assert!(s.node("orders-servce").is_err(), "no near-duplicate node was made");
    let n = s.node("orders-service").unwrap();
    assert_eq!(n.description, "Takes and tracks orders");
    assert_eq!(n.tier, crate::model::Tier::AgentReadable);
    // Merging again: the edges are there now, so they are left out.
    let again = merged_into(&s, &p.submission, 1, "orders-service").unwrap();
    assert!(
        again
            .changes
            .iter()
            .all(|c| c.op() == "add_edge" && c.names().iter().any(|n| n.as_str() == "api-gateway")),
        "{:?}",
        again.changes
    );
    assert!(
        again.changes.len() == 1,
        "only the add_edge the first merge did not know: {:?}",
        again.changes
    );
}

#[test]
fn only_an_add_node_with_something_new_can_be_merged() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    let id = propose(
        &mut s,
        json!([{"op": "add_node", "name": "orders-servce", "type": "service",
                "description": "orders-service description"}]),
    );
    let (_, p) = s.proposal(id.as_str()).unwrap();
    let e = merged_into(&s, &p.submission, 1, "orders-service")
        .unwrap_err()
        .to_string();
    assert!(e.contains("adds nothing orders-service lacks"), "{e}");
    let e = merged_into(&s, &p.submission, 2, "orders-service")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no such change"), "{e}");
    let e = merged_into(&s, &p.submission, 1, "no-such-node")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no-such-node"), "{e}");
}
