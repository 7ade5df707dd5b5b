//! Proposal tests: submission limits, sealing and separation of duties,
//! accept (all, some, stale, twice, crash), reject, edit, undo, lints,
//! grouping and quarantine.

use std::path::Path;

use serde_json::json;

use super::pending::write;
use super::*;
use crate::Level;
use crate::error::Error;
use crate::model::{Name, NewNode, NodePatch, NodeType, Provenance, Status, Tier};
use crate::project::TrustPolicy;
use crate::proposal::AcceptOptions;
use crate::proposal::Undone;
use crate::store::Store;
use crate::store::tests::{new_store, open_at};

fn sub(changes: serde_json::Value) -> Submission {
    Submission::from_json(
        json!({"agent": "claude-code", "trust": 94.2, "session": "fix-orders-timeout",
               "rationale": "orders time out", "changes": changes})
        .to_string()
        .as_bytes(),
    )
    .unwrap()
}

pub(crate) fn propose(s: &mut Store, changes: serde_json::Value) -> ProposalId {
    submit(s, &TrustPolicy::default(), sub(changes), Source::Cli).unwrap()
}

/// A store with `orders-service` and `api-gateway` (agent-readable) and a
/// human-only `payroll`.
pub(crate) fn graph() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = new_store();
    let mut s = open_at(&root, Level::Human);
    for (name, tier) in [
        ("orders-service", Tier::AgentReadable),
        ("api-gateway", Tier::AgentReadable),
        ("payroll", Tier::HumanOnly),
    ] {
        s.add_node(NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("service").unwrap(),
            format!("{name} description"),
            tier,
        ))
        .unwrap();
    }
    (dir, root)
}

pub(crate) fn retry_queue() -> serde_json::Value {
    json!([{"op": "add_node", "name": "retry-queue", "type": "module",
            "description": "Exponential backoff retry queue", "properties": {"owner": "orders-team"},
            "suggested_edges": [["retry-queue", "depends-on", "api-gateway"],
                                ["orders-service", "depends-on", "retry-queue"]]}])
}

#[test]
fn submissions_are_strict() {
    let bad = |v: serde_json::Value| Submission::from_json(v.to_string().as_bytes()).unwrap_err().to_string();
    let base = json!({"agent": "a", "trust": 50, "changes": [{"op": "deprecate", "name": "x"}]});
    assert!(Submission::from_json(base.to_string().as_bytes()).is_ok());
    let mut unknown = base.clone();
    unknown["extra"] = json!(1);
    assert!(bad(unknown).contains("unknown field `extra`"));
    assert!(
        bad(json!({"agent": "a", "trust": 50, "changes": [{"op": "deprecate", "name": "Bad Name"}]}))
            .contains("Bad Name")
    );
    assert!(
        bad(json!({"agent": "a", "trust": 150, "changes": [{"op": "deprecate", "name": "x"}]})).contains("0 to 100")
    );
    assert!(bad(json!({"agent": "a", "trust": 5, "changes": []})).contains("1 to 200"));
    assert!(bad(json!({"agent": "a b", "trust": 5, "changes": [{"op": "archive", "name": "x"}]})).contains("agent id"));
    assert!(bad(json!({"agent": "a", "trust": 5, "changes": [{"op": "explode", "name": "x"}]})).contains("explode"));
    assert!(
        bad(json!({"agent": "a", "trust": 5, "changes": [{"op": "update_node", "name": "x", "set": {}}]}))
            .contains("changes nothing")
    );
    let dup = br#"{"agent": "a", "agent": "b", "trust": 5, "changes": [{"op": "archive", "name": "x"}]}"#;
    assert!(
        Submission::from_json(dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate key")
    );
    let huge = format!(
        r#"{{"agent":"a","trust":1,"rationale":"{}","changes":[]}}"#,
        "x".repeat(MAX_SUBMISSION_BYTES)
    );
    assert!(
        Submission::from_json(huge.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("at most")
    );
    assert!(
        bad(
            json!({"agent": "a", "trust": 5, "changes": [{"op": "add_node", "name": "n", "type": "module",
        "description": "d", "suggested_edges": [["x", "uses", "y"]]}]})
        )
        .contains("must start or end at the new node")
    );
}

#[test]
fn agents_write_but_cannot_read_or_decide() {
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let id = propose(&mut agent, retry_queue());
    // The file is sealed to the master recipient only.
    let bytes = std::fs::read(root.join(".gpp/graphex/pending").join(id.file_name())).unwrap();
    assert!(!String::from_utf8_lossy(&bytes).contains("retry-queue"));
    assert!(matches!(agent.pending(), Err(Error::Locked { .. })));
    assert!(matches!(agent.proposal(id.short()), Err(Error::Locked { .. })));
    let mut agent = agent;
    let err = agent.accept(&id, &dummy(), &AcceptOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert!(matches!(agent.reject(&id, "no"), Err(Error::Locked { .. })));
    assert!(matches!(
        agent.proposal_status(id.short()).unwrap(),
        ProposalStatus::Pending { .. }
    ));
    // An agent above its tier is refused outright.
    let high =
        json!([{"op": "add_node", "name": "secret", "type": "module", "description": "d", "tier": "agent-restricted"}]);
    let err = submit(&mut agent, &TrustPolicy::default(), sub(high), Source::Mcp).unwrap_err();
    assert!(err.to_string().contains("up to the agent-readable tier"), "{err}");
}

fn dummy() -> StoredProposal {
    StoredProposal {
        format: 1,
        created: crate::model::Timestamp(0),
        source: Source::Cli,
        edited_from: None,
        bases: Default::default(),
        submission: sub(json!([{"op": "archive", "name": "x"}])),
    }
}

#[test]
fn accept_applies_everything_once_and_the_agent_reads_the_outcome() {
    let (_dir, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut s = open_at(&root, Level::Master);
    let queue = s.pending().unwrap();
    assert_eq!(queue.pending.len(), 1);
    let p = &queue.pending[0].proposal;
    assert_eq!(p.bases.get(&Name::new("api-gateway").unwrap()), Some(&Some(1)));
    assert_eq!(p.bases.get(&Name::new("retry-queue").unwrap()), Some(&None));
    let mut other = open_at(&root, Level::Master);
    let done = s.accept(&id, p, &AcceptOptions::default()).unwrap();
    assert_eq!((done.nodes_added, done.edges_added), (1, 2));
    let n = s.node("retry-queue").unwrap();
    assert_eq!(n.status, Status::Active);
    assert!(n.confidence < 1.0);
    assert!(matches!(n.provenance, Provenance::Agent { ref id, .. } if id == "claude-code"));
    assert!(s.pending().unwrap().pending.is_empty());
    // A second session that raced cannot apply it again.
    let err = other.accept(&id, p, &AcceptOptions::default()).unwrap_err();
    assert!(matches!(err, Error::AlreadyDecided(_)), "{err}");
    let mut reopened = open_at(&root, Level::Master);
    let err = reopened.accept(&id, p, &AcceptOptions::default()).unwrap_err();
    assert!(matches!(err, Error::AlreadyDecided(_)), "{err}");
    assert_eq!(reopened.catalog().node_count(), 3, "payroll is hidden at master level");
    // The agent sees the decision.
    match open_at(&root, Level::Agent).proposal_status(&id.as_str()[..8]).unwrap() {
        ProposalStatus::Decided { decision, .. } => {
            assert_eq!(decision.outcome, Outcome::Accepted);
            assert_eq!(decision.applied, vec![1]);
        }
        other => panic!("{other:?}"),
    }
    let rows = naming(&s, id.as_str());
    assert_eq!(rows, 3, "one add and two links, all naming the proposal");
}

#[test]
fn partial_accept_and_stale_base() {
    let (_dir, root) = graph();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([{"op": "update_node", "name": "orders-service", "set": {"description": "new words"}},
               {"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "api-gateway"}]),
    );
    let mut s = open_at(&root, Level::Master);
    s.update_node(
        "orders-service",
        &NodePatch {
            description: Some("a human edit".into()),
            ..NodePatch::default()
        },
    )
    .unwrap();
    let (_, p) = s.proposal(id.short()).unwrap();
    let err = s.accept(&id, &p, &AcceptOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::StaleBase { names, .. } if names == "orders-service"),
        "{err}"
    );
    // The edge alone touches no stale node.
    let done = s
        .accept(
            &id,
            &p,
            &AcceptOptions {
                only: Some(vec![2]),
                force: false,
            },
        )
        .unwrap();
    assert_eq!(
        (done.applied.clone(), done.edges_added, done.nodes_changed),
        (vec![2], 1, 0)
    );
    assert_eq!(s.node("orders-service").unwrap().description, "a human edit");
    assert!(
        s.accept(
            &id,
            &p,
            &AcceptOptions {
                only: Some(vec![9]),
                force: true
            }
        )
        .is_err()
    );
}

#[test]
fn forced_stale_accept_reject_and_undo() {
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let upd = propose(
        &mut agent,
        json!([{"op": "update_node", "name": "orders-service", "set": {"description": "v2", "tier": "public"}}]),
    );
    let add = propose(&mut agent, retry_queue());
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(upd.short()).unwrap();
    let lints = lint(&s, &p);
    assert!(lints.iter().any(|l| l.code() == "tier-lowered"), "{lints:?}");
    s.accept(&upd, &p, &AcceptOptions::default()).unwrap();
    assert_eq!(s.node("orders-service").unwrap().description, "v2");
    s.reject(&add, "not needed yet").unwrap();
    match open_at(&root, Level::Agent).proposal_status(add.short()).unwrap() {
        ProposalStatus::Decided { decision, .. } => {
            assert_eq!(
                (decision.outcome, decision.reason.as_deref()),
                (Outcome::Rejected, Some("not needed yet"))
            );
        }
        other => panic!("{other:?}"),
    }
    // Undo the reject: the proposal is pending again.
    assert!(matches!(
        s.undo().unwrap(),
        Undone::Decision {
            outcome: Outcome::Rejected,
            ..
        }
    ));
    assert_eq!(s.pending().unwrap().pending.len(), 1);
    // Accept it, then undo: node and edges are gone, the name is free.
    let (_, p2) = s.proposal(add.short()).unwrap();
    s.accept(&add, &p2, &AcceptOptions::default()).unwrap();
    let edges = s.catalog().edge_count();
    s.undo().unwrap();
    assert!(s.summary("retry-queue").is_err());
    assert_eq!(s.catalog().edge_count(), edges - 2);
    let fresh = open_at(&root, Level::Master);
    assert!(fresh.summary("retry-queue").is_err());
    assert_eq!(fresh.catalog().edge_count(), edges - 2);
    // Undo the update: the old content and tier come back as a new version.
    s.undo().unwrap();
    let n = s.node("orders-service").unwrap();
    assert_eq!(
        (n.description.as_str(), n.tier, n.version),
        ("orders-service description", Tier::AgentReadable, 3)
    );
    assert_eq!(s.pending().unwrap().pending.len(), 2);
    // Next is the fixture's human-only add, which this level cannot read.
    let err = s.undo().unwrap_err();
    assert!(
        matches!(&err, Error::UndoBlocked(m) if m.contains("not readable at this level")),
        "{err}"
    );
}

#[test]
fn undo_reverts_later_edits_first_then_the_decision() {
    let (_dir, root) = graph();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([{"op": "deprecate", "name": "api-gateway", "reason": "replaced"}]),
    );
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    s.accept(&id, &p, &AcceptOptions::default()).unwrap();
    assert_eq!(s.node("api-gateway").unwrap().status, Status::Deprecated);
    s.set_status("api-gateway", Status::Archived, None).unwrap();
    assert!(matches!(s.undo().unwrap(), Undone::Change { action, .. } if action == "archive"));
    assert_eq!(s.node("api-gateway").unwrap().status, Status::Deprecated);
    assert!(matches!(s.undo().unwrap(), Undone::Decision { .. }));
    assert_eq!(s.node("api-gateway").unwrap().status, Status::Active);
}

#[test]
fn edit_then_accept_keeps_both_and_undo_restores_the_original() {
    let (_dir, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    let text = edit_text(&p).replace("Exponential backoff retry queue", "Retries failed upstream calls");
    let bad = s.accept_edit(&id, "{ not json", false).unwrap_err();
    assert!(matches!(bad, Error::Document { .. }), "{bad}");
    let (edited, done) = s.accept_edit(&id, &text, false).unwrap();
    assert_eq!(done.nodes_added, 1);
    assert_eq!(
        s.node("retry-queue").unwrap().description,
        "Retries failed upstream calls"
    );
    match s.proposal_status(id.short()).unwrap() {
        ProposalStatus::Decided { decision, .. } => assert_eq!(decision.edited_as, Some(edited.clone())),
        other => panic!("{other:?}"),
    }
    s.undo().unwrap();
    let queue = s.pending().unwrap().pending;
    assert_eq!(queue.iter().map(|p| p.id.clone()).collect::<Vec<_>>(), vec![id]);
    assert!(s.summary("retry-queue").is_err());
}

#[test]
fn crash_during_accept_leaves_it_pending() {
    let (_dir, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    s.inject_fault("after-blobs");
    assert!(matches!(
        s.accept(&id, &p, &AcceptOptions::default()),
        Err(Error::InjectedFault(_))
    ));
    let fresh = open_at(&root, Level::Master);
    assert!(fresh.summary("retry-queue").is_err());
    assert_eq!(fresh.pending().unwrap().pending.len(), 1);
    assert!(fresh.decision(&id).unwrap().is_none());
}

#[test]
fn lints_and_groups() {
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let leak = propose(
        &mut agent,
        json!([{"op": "add_node", "name": "ci-config", "type": "module",
                "description": "uses token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"}]),
    );
    let near = propose(
        &mut agent,
        json!([{"op": "add_node", "name": "orders-servce", "type": "service", "description": "d",
                "suggested_edges": [["orders-servce", "uses", "payroll"], ["orders-servce", "uses", "ghost"]]}]),
    );
    let a = propose(
        &mut agent,
        json!([{"op": "update_node", "name": "api-gateway", "set": {"description": "pays via Payroll."}}]),
    );
    let b = propose(&mut agent, json!([{"op": "deprecate", "name": "api-gateway"}]));
    let human = open_at(&root, Level::Human);
    let (cards, groups) = cards(&human, human.pending().unwrap().pending);
    let codes = |id: &ProposalId| {
        let c = cards.iter().find(|c| &c.id == id).unwrap();
        c.lints.iter().map(Lint::code).collect::<Vec<_>>()
    };
    assert_eq!(codes(&leak), vec!["credential"]);
    let explained = cards.iter().find(|c| c.id == leak).unwrap().lints[0].explain();
    assert!(
        explained.contains("GitHub token") && !explained.contains("ghp_"),
        "{explained}"
    );
    assert_eq!(codes(&near), vec!["near-duplicate", "cross-tier", "dangling"]);
    let mention = cards.iter().find(|c| c.id == leak).unwrap();
    assert!(!mention.lints.iter().any(|l| l.code() == "mentions-higher"));
    assert_eq!(codes(&a), vec!["mentions-higher"]);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].names, vec!["api-gateway".to_owned()]);
    assert_eq!(groups[0].proposals, vec![a.clone(), b.clone()]);
    assert_eq!(cards.iter().find(|c| c.id == b).unwrap().position, (4, 4));
    // The master level cannot read payroll: the lint says hidden, not dangling.
    let master = open_at(&root, Level::Master);
    let (cards, _) = super::cards(&master, master.pending().unwrap().pending);
    let c = cards.iter().find(|c| c.id == near).unwrap();
    assert!(
        c.lints
            .iter()
            .any(|l| matches!(l, Lint::Hidden { name, .. } if name == "payroll")),
        "{:?}",
        c.lints
    );
}

#[test]
fn timeline_and_history_name_the_proposal_and_the_fields() {
    let (_dir, root) = graph();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([{"op": "update_node", "name": "api-gateway",
                "set": {"description": "routes requests", "properties": {"owner": "edge-team"}}}]),
    );
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    s.accept(&id, &p, &AcceptOptions::default()).unwrap();
    let h = s.history("api-gateway").unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].proposal.as_deref(), Some(id.as_str()));
    assert_eq!(h[1].action.as_deref(), Some("update"));
    let fields: Vec<_> = h[1]
        .changes
        .iter()
        .map(|d| (d.field.as_str(), d.after.as_deref()))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("description", Some("routes requests")),
            ("property owner", Some("edge-team"))
        ]
    );
    s.undo().unwrap();
    let t = s.timeline(10).unwrap();
    assert_eq!(
        t[0].changes.iter().map(|c| c.action.as_str()).collect::<Vec<_>>(),
        vec!["revert", "undo"]
    );
    assert_eq!(t[1].proposal.as_deref(), Some(id.as_str()));
    assert_eq!(t[1].changes[0].node.as_deref(), Some("api-gateway"));
    assert_eq!(t[1].changes[0].before, Some(1));
    assert_eq!(t.len(), 5, "undo, accept and the three adds of the fixture");
    let h = s.history("api-gateway").unwrap();
    assert_eq!(h[2].changes[0].after.as_deref(), Some("api-gateway description"));
}

#[test]
fn two_sessions_accepting_at_once_apply_it_once() {
    let (_dir, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let outcomes: Vec<Result<(), String>> = (0..2)
        .map(|_| {
            let (root, id, barrier) = (root.clone(), id.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut s = open_at(&root, Level::Master);
                let (_, p) = s.proposal(id.short()).unwrap();
                barrier.wait();
                s.accept(&id, &p, &AcceptOptions::default())
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1, "{outcomes:?}");
    let s = open_at(&root, Level::Master);
    assert_eq!(
        s.catalog().nodes().filter(|n| n.name.as_str() == "retry-queue").count(),
        1
    );
    assert_eq!(naming(&s, id.as_str()), 3);
}

#[test]
fn history_lists_versions_sealed_above_the_session() {
    let (_dir, root) = graph();
    let mut h = open_at(&root, Level::Human);
    for tier in [Tier::HumanOnly, Tier::AgentReadable] {
        h.update_node(
            "api-gateway",
            &NodePatch {
                tier: Some(tier),
                ..NodePatch::default()
            },
        )
        .unwrap();
    }
    let hist = open_at(&root, Level::Master).history("api-gateway").unwrap();
    let sealed: Vec<bool> = hist.iter().map(|v| v.sealed).collect();
    assert_eq!(
        sealed,
        vec![true, true, false],
        "the raise re-sealed version 1 as human-only"
    );
    assert!(hist[2].changes.is_empty(), "no diff against a version it cannot read");
    assert_eq!(
        open_at(&root, Level::Human).history("api-gateway").unwrap()[2].changes[0].field,
        "tier"
    );
}

/// Stores `changes` as a proposal without the submit-time tier ceiling (as
/// anyone holding the master recipient could).
pub(crate) fn write_raw(root: &Path, changes: serde_json::Value) -> ProposalId {
    let s = open_at(root, Level::Master);
    let mut stored = dummy();
    stored.submission = sub(changes);
    pending::record_bases(&s, &stored.submission, &mut stored.bases);
    write(
        &s.layout().pending(),
        &stored
            .seal(&s.keys().proposal_recipient(&s.layout().keys()).unwrap())
            .unwrap(),
    )
    .unwrap()
}

#[test]
fn edges_between_two_moved_nodes_take_both_final_tiers() {
    let (_dir, root) = graph();
    let mut s = open_at(&root, Level::Master);
    s.link(crate::model::NewEdge::new(
        Name::new("orders-service").unwrap(),
        crate::model::Relation::new("uses").unwrap(),
        Name::new("api-gateway").unwrap(),
    ))
    .unwrap();
    let id = write_raw(
        &root,
        json!([{"op": "update_node", "name": "api-gateway", "set": {"tier": "public"}},
               {"op": "update_node", "name": "orders-service", "set": {"tier": "agent-restricted"}}]),
    );
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    let codes: Vec<&str> = lint(&s, &p).iter().map(Lint::code).collect();
    assert!(
        codes.contains(&"above-agent-tier"),
        "no agent can ask for agent-restricted: {codes:?}"
    );
    s.accept(&id, &p, &AcceptOptions::default()).unwrap();
    for store in [&s, &open_at(&root, Level::Master)] {
        let tiers: Vec<Tier> = store.catalog().edges().map(|e| e.tier).collect();
        assert_eq!(tiers, vec![Tier::AgentRestricted]);
    }
    assert_eq!(
        open_at(&root, Level::Agent).catalog().edge_count(),
        0,
        "the agent key cannot read it"
    );
}

#[test]
fn undo_of_a_tier_change_and_a_link_leaves_no_edge_behind() {
    let (_dir, root) = graph();
    let id = propose(
        &mut open_at(&root, Level::Agent),
        json!([{"op": "update_node", "name": "orders-service", "set": {"tier": "public"}},
               {"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "api-gateway"}]),
    );
    let mut s = open_at(&root, Level::Master);
    let (_, p) = s.proposal(id.short()).unwrap();
    s.accept(&id, &p, &AcceptOptions::default()).unwrap();
    assert_eq!(s.catalog().edge_count(), 1);
    s.undo().unwrap();
    assert_eq!(s.catalog().edge_count(), 0, "in this session");
    assert_eq!(s.summary("orders-service").unwrap().tier, Tier::AgentReadable);
    assert_eq!(
        open_at(&root, Level::Master).catalog().edge_count(),
        0,
        "after reopening"
    );
}

#[test]
fn impact_counts_tokens_per_tier_without_writing() {
    let (_d, root) = graph();
    let mut s = open_at(&root, Level::Master);
    let settings = crate::config::Config::default().projection_settings().unwrap();
    // An agent-readable module linked to agent-readable services: public
    // projections do not change, agent-readable and agent-restricted do.
    let id = propose(&mut s, retry_queue());
    let (_, p) = s.proposal(id.as_str()).unwrap();
    let before = (s.catalog().node_count(), s.catalog().edge_count());
    let tiers = impact(&s, &id, &p, &settings).unwrap();
    assert_eq!(
        (s.catalog().node_count(), s.catalog().edge_count()),
        before,
        "the preview wrote nothing"
    );
    let of = |t: Tier| tiers.iter().find(|i| i.tier == t).unwrap();
    assert_eq!(of(Tier::Public).centres_changed, 0);
    assert_eq!(of(Tier::Public).delta(), 0);
    let readable = of(Tier::AgentReadable);
    assert_eq!(
        readable.centres_changed, 3,
        "retry-queue and both services: {readable:?}"
    );
    assert!(readable.delta() > 0, "{readable:?}");
    assert!(readable.tokens_before > 0, "the services were visible before");
    assert!(of(Tier::AgentRestricted).delta() > 0);
    // Raising a node to agent-restricted removes it from agent-readable projections.
    let id = write_raw(
        &root,
        json!([{"op": "update_node", "name": "api-gateway", "set": {"tier": "agent-restricted"}}]),
    );
    let (_, p) = s.proposal(id.as_str()).unwrap();
    let tiers = impact(&s, &id, &p, &settings).unwrap();
    assert!(tiers.iter().find(|i| i.tier == Tier::AgentReadable).unwrap().delta() < 0);
}

#[test]
fn a_node_added_earlier_in_the_proposal_is_not_dangling() {
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let id = propose(
        &mut agent,
        json!([{"op": "add_node", "name": "old-cache", "type": "module", "description": "d"},
               {"op": "add_node", "name": "new-cache", "type": "module", "description": "d"},
               {"op": "deprecate", "name": "old-cache", "reason": "replaced"},
               {"op": "supersede", "old": "old-cache", "new": "new-cache"},
               {"op": "deprecate", "name": "ghost-cache"}]),
    );
    let master = open_at(&root, Level::Master);
    let (cards, _) = cards(&master, master.pending().unwrap().pending);
    let c = cards.iter().find(|c| c.id == id).unwrap();
    let dangling: Vec<&Lint> = c.lints.iter().filter(|l| l.code() == "dangling").collect();
    assert_eq!(
        dangling,
        vec![&Lint::Dangling {
            change: 5,
            name: "ghost-cache".into()
        }],
        "only the node neither in the graph nor added: {:?}",
        c.lints
    );
}

/// The timeline rows naming proposal `id` (as they read: packed rows
/// count once for each row they stand for).
fn naming(s: &Store, id: &str) -> usize {
    let rows = s.timeline_rows_through(i64::MAX).unwrap();
    rows.iter().filter(|r| r.proposal.as_deref() == Some(id)).count()
}
