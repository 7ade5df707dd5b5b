//! `remove_edge` proposals: accept unlinks and keeps the edge, undo puts it
//! back as it was; lints on removals; an edge the proposer cannot read is
//! never revealed to it.

use serde_json::json;

use super::tests::{graph, propose};
use super::*;
use crate::Level;
use crate::error::Error;
use crate::model::{Edge, Name, NewEdge, NodePatch, Relation, Tier};
use crate::project::TrustPolicy;
use crate::proposal::AcceptOptions;
use crate::proposal::Undone;
use crate::store::Store;
use crate::store::tests::open_at;

fn uses(from: &str, to: &str) -> NewEdge {
    let mut e = NewEdge::new(
        Name::new(from).unwrap(),
        Relation::new("uses").unwrap(),
        Name::new(to).unwrap(),
    );
    e.confidence = 0.7;
    e
}

fn edge(s: &Store, from: &str, to: &str) -> Option<Edge> {
    let (f, t) = (s.summary(from).ok()?, s.summary(to).ok()?);
    s.catalog().outgoing(&f.id).find(|e| e.to == t.id).cloned()
}

fn kept(s: &Store) -> i64 {
    s.conn()
        .query_row("SELECT COUNT(*) FROM unlinked", [], |r| r.get(0))
        .unwrap()
}

fn remove(from: &str, to: &str) -> serde_json::Value {
    json!({"op": "remove_edge", "from": from, "relation": "uses", "to": to, "reason": "not used any more"})
}

fn lints_of(s: &Store, id: &ProposalId) -> Vec<Lint> {
    let (cards, _) = cards(s, s.pending().unwrap().pending);
    cards.into_iter().find(|c| c.id == *id).unwrap().lints
}

#[test]
fn accepting_a_removal_unlinks_the_edge_and_undo_puts_it_back_exactly() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.link(uses("orders-service", "api-gateway")).unwrap();
    let before = edge(&s, "orders-service", "api-gateway").unwrap();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([remove("orders-service", "api-gateway")]),
    );
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    assert!(lints_of(&s, &id).is_empty(), "{:?}", lints_of(&s, &id));
    let done = s.accept(&id, &p, &AcceptOptions::default()).unwrap();
    assert_eq!((done.edges_removed, done.edges_added), (1, 0));
    assert!(edge(&s, "orders-service", "api-gateway").is_none());
    let reopened = open_at(&root, Level::Master);
    assert!(edge(&reopened, "orders-service", "api-gateway").is_none());
    assert_eq!(kept(&reopened), 1, "kept sealed for undo");

    assert!(matches!(s.undo().unwrap(), Undone::Decision { .. }));
    let back = edge(&s, "orders-service", "api-gateway").unwrap();
    assert_eq!(back, before);
    let reopened = open_at(&root, Level::Master);
    let back = edge(&reopened, "orders-service", "api-gateway").unwrap();
    assert_eq!(serde_json::to_vec(&back).unwrap(), serde_json::to_vec(&before).unwrap());
    assert_eq!(kept(&reopened), 0);
    assert_eq!(reopened.pending().unwrap().pending.len(), 1, "back in the queue");
}

#[test]
fn a_removal_of_an_edge_gone_since_is_flagged_and_refused_even_forced() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.link(uses("orders-service", "api-gateway")).unwrap();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([remove("orders-service", "api-gateway")]),
    );
    s.unlink("orders-service", "uses", "api-gateway").unwrap();
    let (_, p) = s.proposal(id.short()).unwrap();
    let lints = lints_of(&s, &id);
    assert!(
        matches!(lints.as_slice(), [Lint::NoSuchEdge { change: 1, edge }] if edge == "orders-service -> uses -> api-gateway"),
        "{lints:?}"
    );
    for force in [false, true] {
        let err = s.accept(&id, &p, &AcceptOptions { only: None, force }).unwrap_err();
        assert!(err.to_string().contains("removed since it was proposed"), "{err}");
    }
    assert_eq!(s.pending().unwrap().pending.len(), 1, "nothing decided");
}

#[test]
fn removals_repeated_or_of_edges_the_proposal_adds_are_caught() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.link(uses("orders-service", "api-gateway")).unwrap();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([
            remove("orders-service", "api-gateway"),
            remove("orders-service", "api-gateway")
        ]),
    );
    let lints = lints_of(&s, &id);
    assert!(
        matches!(
            lints.as_slice(),
            [Lint::DuplicateRemoval {
                change: 2,
                first: 1,
                ..
            }]
        ),
        "{lints:?}"
    );
    let (_, p) = s.proposal(id.short()).unwrap();
    assert_eq!(s.accept(&id, &p, &AcceptOptions::default()).unwrap().edges_removed, 1);

    let add = json!({"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "api-gateway"});
    let doc = |changes| json!({"agent": "a", "trust": 94, "changes": changes}).to_string();
    let err = Submission::from_json(doc(json!([add, remove("orders-service", "api-gateway")])).as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("change 2 (remove_edge)") && err.contains("an earlier change (1, add_edge)"),
        "{err}"
    );
    let err = Submission::from_json(doc(json!([remove("orders-service", "api-gateway"), add])).as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("a later change (2, add_edge)"), "{err}");
}

/// `ledger` is agent-restricted, so `orders-service -> uses -> ledger` is
/// too: an agent at trust 94 cannot read it.
#[test]
fn an_edge_the_proposer_cannot_read_is_answered_as_absent() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.add_node(crate::store::tests::node(
        "ledger",
        Tier::AgentRestricted,
        "ledger words",
    ))
    .unwrap();
    s.link(uses("orders-service", "ledger")).unwrap();
    let try_remove = |store: &mut Store, relation: &str| {
        let change = json!({"op": "remove_edge", "from": "orders-service", "relation": relation, "to": "ledger"});
        let sub = Submission::single("claude-code", 94.0, "s", "", change).unwrap();
        submit(store, &TrustPolicy::default(), sub, Source::Cli)
            .unwrap_err()
            .to_string()
    };
    // From the agent's own session and from a master session alike.
    for mut store in [open_at(&root, Level::Agent), open_at(&root, Level::Master)] {
        let hidden = try_remove(&mut store, "uses");
        let absent = try_remove(&mut store, "owns");
        assert!(hidden.contains("reads no such edge"), "{hidden}");
        assert_eq!(hidden, absent.replace("owns", "uses"));
    }
    assert!(s.pending().unwrap().pending.is_empty(), "nothing was queued");
}

#[test]
fn an_edge_raised_above_the_proposer_since_is_flagged_and_not_removed() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.link(uses("orders-service", "api-gateway")).unwrap();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([remove("orders-service", "api-gateway")]),
    );
    let raise = NodePatch {
        tier: Some(Tier::AgentRestricted),
        ..NodePatch::default()
    };
    s.update_node("api-gateway", &raise).unwrap();
    let lints = lints_of(&s, &id);
    assert!(
        matches!(
            lints.as_slice(),
            [Lint::UnreadableEdge {
                change: 1,
                tier: Tier::AgentRestricted,
                proposer_tier: Tier::AgentReadable,
                ..
            }]
        ),
        "{lints:?}"
    );
    let (_, p) = s.proposal(id.short()).unwrap();
    let err = s
        .accept(
            &id,
            &p,
            &AcceptOptions {
                only: None,
                force: true,
            },
        )
        .unwrap_err();
    assert!(matches!(err, Error::Document { .. }), "{err}");
    assert!(err.to_string().contains("above what the proposer reads"), "{err}");
    assert!(edge(&s, "orders-service", "api-gateway").is_some());
}
