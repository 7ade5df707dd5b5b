//! A proposal that can never apply is flagged before anyone reviews it: a
//! self-loop statically, anything else accept would refuse by a dry run.

use serde_json::json;

use super::tests::{graph, propose, write_raw};
use super::*;
use crate::Level;
use crate::proposal::AcceptOptions;
use crate::store::tests::open_at;

#[test]
fn a_proposal_that_cannot_apply_is_flagged_before_review() {
    let (_dir, root) = graph();
    // A self-loop: flagged for the agent's policy check and the reviewer.
    let mut agent = open_at(&root, Level::Agent);
    let looped = propose(
        &mut agent,
        json!([{"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "orders-service"}]),
    );
    let s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(looped.short()).unwrap();
    let lints = lint(&s, &p);
    assert_eq!(
        lints.iter().map(Lint::code).collect::<Vec<_>>(),
        ["self-loop"],
        "{lints:?}"
    );
    assert!(lints[0].accept_fails());
    assert!(s.check_applies(&p).is_err());
    // Written outside `graphex propose`: human-only content a master
    // reviewer cannot write. No other lint says accept fails; the dry run does.
    let id = write_raw(
        &root,
        json!([{"op": "add_node", "name": "secret-plan", "type": "concept", "description": "d", "tier": "human-only"}]),
    );
    let (_, p) = s.proposal(id.short()).unwrap();
    let lints = lint(&s, &p);
    let failing: Vec<&Lint> = lints.iter().filter(|l| l.accept_fails()).collect();
    assert!(
        matches!(failing.as_slice(), [Lint::CannotApply { reason }] if reason.contains("human-only")),
        "{lints:?}"
    );
    let mut s = s;
    assert!(
        s.accept(&id, &p, &AcceptOptions::default()).is_err(),
        "the lint told the truth"
    );
    // A proposal that applies has no such lint.
    let fine = write_raw(&root, json!([{"op": "deprecate", "name": "api-gateway"}]));
    let (_, p) = s.proposal(fine.short()).unwrap();
    assert!(!lint(&s, &p).iter().any(Lint::accept_fails));
}
