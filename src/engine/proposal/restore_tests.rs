//! `restore` proposals: a deprecated or archived node back to active, and
//! undo of the decision puts it back as it was.

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
        &s,
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
