//! Lifecycle proposals: `restore` brings a deprecated or archived node back
//! to active, and undo of the decision puts it back as it was; a node added
//! and then deprecated or superseded by the same proposal is accepted.

use serde_json::json;

use super::tests::{graph, propose};
use crate::Level;
use crate::model::Status;
use crate::proposal::AcceptOptions;
use crate::store::tests::open_at;

#[test]
fn a_restore_brings_a_node_back_and_undo_takes_it_away_again() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.set_status("orders-service", Status::Deprecated, Some("replaced"))
        .unwrap();
    let id = propose(
        &mut s,
        json!([{"op": "restore", "name": "orders-service", "reason": "the replacement was dropped"}]),
    );
    let (pid, p) = s.proposal(id.as_str()).unwrap();
    let card = crate::proposal::cards(
        &s,
        vec![super::Pending {
            id: pid.clone(),
            proposal: p.clone(),
        }],
    )
    .0;
    assert!(card[0].lints.is_empty(), "{:?}", card[0].lints);
    s.accept(&pid, &p, &AcceptOptions::default()).unwrap();
    let n = s.node("orders-service").unwrap();
    assert_eq!(
        (n.status, n.status_reason.as_deref()),
        (Status::Active, Some("the replacement was dropped"))
    );
    s.undo().unwrap();
    assert_eq!(s.node("orders-service").unwrap().status, Status::Deprecated);
    // A reason with a control character is refused like any free text.
    let bad = super::Submission::from_json(
        br#"{"agent":"a","trust":90,"changes":[{"op":"restore","name":"orders-service","reason":"x\u0007"}]}"#,
    );
    assert!(bad.is_err());
}

#[test]
fn a_node_added_then_deprecated_or_superseded_by_one_proposal_is_accepted() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    let id = propose(
        &mut s,
        json!([{"op": "add_node", "name": "stopgap", "type": "module", "description": "for now"},
               {"op": "deprecate", "name": "stopgap", "reason": "already replaced"},
               {"op": "add_node", "name": "new-gateway", "type": "service", "description": "next"},
               {"op": "supersede", "old": "api-gateway", "new": "new-gateway"},
               {"op": "add_node", "name": "interim", "type": "module", "description": "briefly"},
               {"op": "supersede", "old": "interim", "new": "new-gateway"}]),
    );
    let (pid, p) = s.proposal(id.as_str()).unwrap();
    s.accept(&pid, &p, &AcceptOptions::default()).unwrap();
    let stopgap = s.node("stopgap").unwrap();
    assert_eq!(
        (stopgap.status, stopgap.version, stopgap.status_reason.as_deref()),
        (Status::Deprecated, 1, Some("already replaced"))
    );
    assert_eq!(s.node("interim").unwrap().status, Status::Deprecated);
    assert_eq!(s.node("api-gateway").unwrap().status, Status::Deprecated);
    s.undo().unwrap();
    assert!(s.node("stopgap").is_err(), "undo takes the whole decision back");
    assert_eq!(s.node("api-gateway").unwrap().status, Status::Active);
}

#[test]
fn a_deprecated_node_is_superseded_only_with_force() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.set_status("api-gateway", Status::Deprecated, Some("old")).unwrap();
    let err = s.supersede("api-gateway", "orders-service", None).unwrap_err();
    assert!(err.to_string().contains("--force"), "{err}");
    s.supersede_with("api-gateway", "orders-service", None, true).unwrap();
    let g = s.node("api-gateway").unwrap();
    assert_eq!(
        (g.status, g.status_reason.as_deref()),
        (Status::Deprecated, Some("old"))
    );
    assert!(s.catalog().edges().any(|e| e.relation.as_str() == "supersedes"));
}

#[test]
fn an_impossible_lifecycle_move_is_a_lint_before_accept() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    let id = propose(
        &mut s,
        json!([{"op": "archive", "name": "api-gateway"},
               {"op": "add_node", "name": "stopgap", "type": "module", "description": "for now"},
               {"op": "deprecate", "name": "stopgap", "reason": "replaced"},
               {"op": "archive", "name": "stopgap"}]),
    );
    let (_, p) = s.proposal(id.as_str()).unwrap();
    let lints = crate::proposal::lint(&s, &p);
    let lifecycle: Vec<_> = lints.iter().filter(|l| l.code() == "lifecycle").collect();
    assert_eq!(lifecycle.len(), 1, "{lints:?}");
    assert!(
        matches!(
            lifecycle[0],
            crate::proposal::Lint::Lifecycle {
                change: 1,
                from: Status::Active,
                to: Status::Archived,
                ..
            }
        ),
        "{lifecycle:?}"
    );
    assert!(
        lifecycle[0].explain().contains("deprecate it first"),
        "{}",
        lifecycle[0].explain()
    );
}
