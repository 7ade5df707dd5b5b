//! The audit log holds an agent's whole work on a proposal: submitted,
//! commented, revised, and what the reviewer decided, each with the agent
//! and its session; a keyless submission records nothing it cannot seal.

use serde_json::json;

use super::tests::{graph, propose, retry_queue};
use super::*;
use crate::Level;
use crate::audit::{Action, Entry, Kind};
use crate::project::TrustPolicy;
use crate::store::tests::open_at;

/// The actions on `proposal` in the log as `store` reads it, oldest first.
fn actions(store: &crate::Store, proposal: &ProposalId) -> Vec<(Kind, Action, String)> {
    let mut out: Vec<(Kind, Action, String)> = store
        .audit_list(Some("claude-code"), None, usize::MAX)
        .unwrap()
        .into_iter()
        .filter_map(|e: Entry| e.record)
        .filter_map(|r| {
            let a = r.activity?;
            (a.proposal.as_deref() == Some(proposal.as_str())).then_some((r.kind, a.action, a.session))
        })
        .collect();
    out.reverse();
    out
}

#[test]
fn a_conversation_is_on_the_record_with_the_agent_and_its_session() {
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let first = propose(&mut agent, retry_queue());
    let mut master = open_at(&root, Level::Master);
    master.request_changes(&first, "name the owner team", None).unwrap();
    agent.refresh().unwrap();
    agent
        .comment("claude-code", "fix-orders-timeout", first.short(), None, "done")
        .unwrap();
    let doc = json!({"agent": "claude-code", "trust": 94.2, "session": "fix-orders-timeout",
        "rationale": "as asked", "changes": retry_queue(), "revises": first.as_str()});
    let sub = Submission::from_json(doc.to_string().as_bytes()).unwrap();
    let second = submit(&mut agent, &TrustPolicy::default(), sub, Source::Mcp).unwrap();
    master.refresh().unwrap();
    master.reject(&second, "not now").unwrap();
    let session = "fix-orders-timeout".to_owned();
    assert_eq!(
        actions(&master, &first),
        vec![
            (Kind::Proposal, Action::Submitted, session.clone()),
            (Kind::Decision, Action::ChangesRequested, session.clone()),
            (Kind::Comment, Action::Commented, session.clone()),
        ]
    );
    assert_eq!(
        actions(&master, &second),
        vec![
            (Kind::Proposal, Action::Revised, session.clone()),
            (Kind::Decision, Action::Rejected, session.clone()),
        ]
    );
    // The agent reads its whole record, the reviewer's decisions included
    // (sealed under agent-readable: they hold nothing it may not read).
    agent.refresh().unwrap();
    assert_eq!(actions(&agent, &first), actions(&master, &first));
    assert_eq!(actions(&agent, &second), actions(&master, &second));
    let sealed: Vec<_> = master
        .audit_list(None, None, usize::MAX)
        .unwrap()
        .iter()
        .map(|e| e.sealed_at)
        .collect();
    assert!(
        sealed.iter().all(|t| *t == crate::model::Tier::AgentReadable),
        "{sealed:?}"
    );
    assert!(master.audit_verify().unwrap().ok);
}

#[test]
fn a_keyless_submission_records_nothing_and_an_accept_names_the_agent() {
    let (_dir, root) = graph();
    let mut keyless = open_at(&root, Level::Locked);
    let before = open_at(&root, Level::Master)
        .audit_list(None, None, usize::MAX)
        .unwrap()
        .len();
    let id = propose(&mut keyless, retry_queue());
    let mut master = open_at(&root, Level::Master);
    assert_eq!(master.audit_list(None, None, usize::MAX).unwrap().len(), before);
    let (_, p) = master.proposal(id.as_str()).unwrap();
    master.accept(&id, &p, &AcceptOptions::default()).unwrap();
    let decided = master.audit_list(None, None, 1).unwrap().remove(0).record.unwrap();
    assert_eq!((decided.kind, decided.agent.as_str()), (Kind::Decision, "claude-code"));
    let activity = decided.activity.unwrap();
    assert_eq!(activity.action, Action::Accepted);
    assert_eq!(activity.proposal.as_deref(), Some(id.as_str()));
}

#[test]
fn a_failed_read_reads_the_same_to_the_agent_and_says_why_to_a_reviewer() {
    use crate::audit::{Activity, Step};
    let (_dir, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    for name in ["payroll", "no-such-thing"] {
        agent
            .audit_activity(Step {
                agent: "claude-code",
                trust: Some(60.0),
                tier: crate::model::Tier::AgentReadable,
                activity: Activity {
                    action: Action::NoSuchNode,
                    session: "s".into(),
                    proposal: None,
                    asked: Some(name.into()),
                    detail: "mcp".into(),
                },
            })
            .unwrap();
    }
    let causes = |level: Level| -> Vec<Option<String>> {
        let s = open_at(&root, level);
        s.audit_list(Some("claude-code"), None, 2)
            .unwrap()
            .into_iter()
            .map(|e| e.cause)
            .collect()
    };
    // The agent's own records do not tell an above-tier name from none.
    assert_eq!(causes(Level::Agent), vec![None, None]);
    let human = causes(Level::Human);
    assert_eq!(
        human,
        vec![
            Some("no node is named no-such-thing at the tiers this session reads".to_owned()),
            Some("payroll is human-only: above the tier read at".to_owned()),
        ]
    );
    let json = serde_json::to_value(open_at(&root, Level::Agent).audit_list(None, None, 1).unwrap()).unwrap();
    let at = json[0]["record"]["at"].as_str().expect("an RFC 3339 time");
    assert!(crate::model::Timestamp::parse(at).is_ok(), "{at}");
}
