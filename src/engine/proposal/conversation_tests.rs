//! Review conversations: request changes, the agent's comments, a revision
//! that names what it revises, and the rounds the reviewer sees.

use serde_json::json;

use super::tests::{graph, propose, retry_queue};
use super::*;
use crate::Level;
use crate::error::Error;
use crate::project::TrustPolicy;
use crate::store::Store;
use crate::store::tests::open_at;

fn revision(s: &mut Store, revises: &ProposalId, changes: serde_json::Value) -> Result<ProposalId> {
    let sub = Submission::from_json(
        json!({"agent": "claude-code", "trust": 94.2, "session": "fix-orders-timeout",
               "rationale": "as asked", "changes": changes, "revises": revises.as_str()})
        .to_string()
        .as_bytes(),
    )?;
    submit(s, &TrustPolicy::default(), sub, Source::Mcp)
}

#[test]
fn a_request_for_changes_a_reply_and_a_revision_make_one_conversation() {
    let (_d, root) = graph();
    let first = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut master = open_at(&root, Level::Master);
    master
        .request_changes(&first, "name the owner team in the description", Some(1))
        .unwrap();
    // It left the queue; the agent reads the request with the status.
    assert!(master.pending().unwrap().pending.iter().all(|p| p.id != first));
    let mut agent = open_at(&root, Level::Agent);
    match agent.proposal_status(first.short()).unwrap() {
        ProposalStatus::Decided { decision, .. } => {
            assert_eq!(decision.outcome, Outcome::ChangesRequested);
            assert_eq!(
                decision.reason.as_deref(),
                Some("name the owner team in the description")
            );
            assert_eq!(decision.change, Some(1));
        }
        other => panic!("{other:?}"),
    }
    // The agent answers, then revises.
    agent
        .comment(
            "claude-code",
            "fix-orders-timeout",
            first.short(),
            Some(1),
            "done: orders-team owns it",
        )
        .unwrap();
    let mut changes = retry_queue();
    changes[0]["description"] = json!("Exponential backoff retry queue, owned by orders-team");
    let second = revision(&mut agent, &first, changes).unwrap();
    // The revision is in the queue, with the round before it.
    let master = open_at(&root, Level::Master);
    let queue = master.pending().unwrap().pending;
    assert_eq!(queue.iter().filter(|p| p.id == second).count(), 1);
    assert!(queue.iter().all(|p| p.id != first));
    let rounds = master.conversation(&second).unwrap();
    assert_eq!(
        rounds.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        [first.clone(), second.clone()]
    );
    assert_eq!(rounds[0].decision.as_ref().unwrap().outcome, Outcome::ChangesRequested);
    assert_eq!(rounds[0].replies.len(), 1);
    assert_eq!(rounds[0].replies[0].text, "done: orders-team owns it");
    assert_eq!(rounds[0].replies[0].change, Some(1));
    assert!(rounds[1].decision.is_none() && rounds[1].replies.is_empty());
    assert!(
        conversation_problems(&rounds).is_empty(),
        "{:?}",
        conversation_problems(&rounds)
    );
    // Comment files never enter the queue nor the quarantine.
    assert!(master.pending().unwrap().quarantined.is_empty());
}

#[test]
fn only_a_proposal_sent_back_can_be_revised() {
    let (_d, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let first = propose(&mut agent, retry_queue());
    let e = revision(&mut agent, &first, retry_queue()).unwrap_err().to_string();
    assert!(e.contains("still pending"), "{e}");
    let mut master = open_at(&root, Level::Master);
    master.reject(&first, "not needed").unwrap();
    let e = revision(&mut agent, &first, retry_queue()).unwrap_err().to_string();
    assert!(e.contains("was rejected"), "{e}");
    let unknown = ProposalId::of(b"nothing");
    assert!(matches!(
        revision(&mut agent, &unknown, retry_queue()),
        Err(Error::NoProposal(_))
    ));
}

#[test]
fn a_request_is_checked_like_a_reason_and_can_be_undone() {
    let (_d, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut master = open_at(&root, Level::Master);
    let e = master.request_changes(&id, "  ", None).unwrap_err().to_string();
    assert!(e.contains("say what should change"), "{e}");
    master
        .add_node(crate::model::NewNode::new(
            crate::model::Name::new("vault-keys").unwrap(),
            crate::model::NodeType::new("service").unwrap(),
            "where the keys live".to_owned(),
            crate::model::Tier::AgentRestricted,
        ))
        .unwrap();
    let e = master
        .request_changes(&id, "see vault-keys", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("vault-keys") && e.contains("cannot read"), "{e}");
    let e = master.request_changes(&id, "fix it", Some(2)).unwrap_err().to_string();
    assert!(e.contains("changes 1 to 1"), "{e}");
    master.request_changes(&id, "fix it", None).unwrap();
    assert!(matches!(
        master.request_changes(&id, "again", None),
        Err(Error::AlreadyDecided(_))
    ));
    let undone = master.undo().unwrap();
    assert_eq!(undone.to_string(), format!("the request for changes of {}", id.short()));
    assert!(
        master.pending().unwrap().pending.iter().any(|p| p.id == id),
        "back in the queue"
    );
    // The agent's own level cannot ask for changes.
    let mut agent = open_at(&root, Level::Agent);
    assert!(agent.request_changes(&id, "fix it", None).is_err());
}

#[test]
fn comments_are_checked_and_hostile_files_quarantined() {
    let (_d, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let id = propose(&mut agent, retry_queue());
    let e = agent
        .comment("claude-code", "", id.short(), None, " ")
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty"), "{e}");
    let e = agent
        .comment("bad agent", "", id.short(), None, "hi")
        .unwrap_err()
        .to_string();
    assert!(e.contains("agent id"), "{e}");
    assert!(matches!(
        agent.comment("a", "", "ffff0000", None, "hi"),
        Err(Error::NoProposal(_))
    ));
    agent
        .comment("claude-code", "", id.short(), None, "a note\nover two lines")
        .unwrap();
    // A file named like a comment that is not one is quarantined on read.
    let pending = root.join(".gpp/graphex/pending");
    let junk = b"not sealed";
    std::fs::write(pending.join(format!("{}.comment", ProposalId::of(junk))), junk).unwrap();
    let master = open_at(&root, Level::Master);
    let replies = master.comments_on(&id).unwrap();
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].text, "a note\nover two lines");
    let held = quarantined(&pending).unwrap();
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(held[0].file.ends_with(".comment"), "{held:?}");
}

#[test]
fn a_comment_in_an_agents_name_needs_the_agents_key() {
    let (_d, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let id = propose(&mut agent, retry_queue());
    // No key: refused, naming what it needs.
    let mut keyless = open_at(&root, Level::Locked);
    let e = keyless
        .comment("claude-code", "", id.short(), None, "I approve of myself")
        .unwrap_err()
        .to_string();
    assert!(e.contains("agent"), "{e}");
    // A comment sealed to the master with only the public recipient (what
    // write access alone makes), in the agent's name: never shown.
    let forged = StoredComment {
        format: super::stored::FORMAT,
        created: crate::model::Timestamp::now(),
        agent: "claude-code".into(),
        session: String::new(),
        on: id.clone(),
        change: None,
        text: "the reviewer said to accept".into(),
        mac: "00".repeat(32),
    };
    let recipient = keyless.keys().proposal_recipient(&keyless.layout().keys()).unwrap();
    let sealed = crate::keys::files::seal_to(&[&recipient], &serde_json::to_vec(&forged).unwrap()).unwrap();
    let pending = root.join(".gpp/graphex/pending");
    super::pending::write_as(&pending, &sealed, "comment").unwrap();
    agent
        .comment("claude-code", "", id.short(), None, "a real note")
        .unwrap();
    let master = open_at(&root, Level::Master);
    let shown: Vec<String> = master.comments_on(&id).unwrap().into_iter().map(|c| c.text).collect();
    assert_eq!(shown, vec!["a real note".to_owned()]);
    let held = quarantined(&pending).unwrap();
    assert!(
        held.iter()
            .any(|q| q.reason.contains("not signed with the agent's key")),
        "{held:?}"
    );
}

#[test]
fn a_revision_from_another_agent_is_named_as_a_problem() {
    let (_d, root) = graph();
    let first = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut master = open_at(&root, Level::Master);
    master.request_changes(&first, "fix it", None).unwrap();
    let sub = Submission::from_json(
        json!({"agent": "other-agent", "trust": 94.2, "changes": retry_queue(), "revises": first.as_str()})
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    let second = submit(
        &mut open_at(&root, Level::Agent),
        &TrustPolicy::default(),
        sub,
        Source::Mcp,
    )
    .unwrap();
    let rounds = open_at(&root, Level::Master).conversation(&second).unwrap();
    let problems = conversation_problems(&rounds);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("other-agent") && problems[0].contains("claude-code"),
        "{problems:?}"
    );
}

#[test]
fn an_agent_lists_its_proposals_from_its_own_ledger() {
    use std::os::unix::fs::PermissionsExt as _;
    let (_d, root) = graph();
    let mut agent = open_at(&root, Level::Agent);
    let ledger = Ledger::for_store(&root, "claude-code").unwrap();
    assert!(!ledger.path().starts_with(&root), "never in the repository");
    let entry = |id: &ProposalId, revises: Option<&ProposalId>| LedgerEntry {
        id: id.clone(),
        at: crate::model::Timestamp::now(),
        summary: "add retry-queue".into(),
        revises: revises.cloned(),
    };
    let first = propose(&mut agent, retry_queue());
    ledger.record(entry(&first, None)).unwrap();
    let mode = std::fs::metadata(ledger.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let listed = agent.review_list(&ledger.entries().unwrap()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, "pending");
    let mut master = open_at(&root, Level::Master);
    master.request_changes(&first, "name the owner", Some(1)).unwrap();
    let listed = agent.review_list(&ledger.entries().unwrap()).unwrap();
    assert_eq!(listed[0].state, "changes-requested");
    assert_eq!(listed[0].comment.as_deref(), Some("name the owner"));
    assert_eq!(listed[0].change, Some(1));
    let second = revision(&mut agent, &first, retry_queue()).unwrap();
    ledger.record(entry(&second, Some(&first))).unwrap();
    master.reject(&second, "not now").unwrap();
    let listed = agent.review_list(&ledger.entries().unwrap()).unwrap();
    let states: Vec<(&str, &str)> = listed
        .iter()
        .map(|i| (&i.id.as_str()[..12], i.state.as_str()))
        .collect();
    assert_eq!(states, [(second.short(), "rejected"), (first.short(), "revised")]);
    assert_eq!(listed[0].comment.as_deref(), Some("not now"));
    assert_eq!(listed[1].revised_by.as_ref(), Some(&second));
    // A ledger that does not parse is an error naming it, not a fresh start.
    std::fs::write(ledger.path(), "{").unwrap();
    let e = ledger.entries().unwrap_err().to_string();
    assert!(e.contains("does not parse"), "{e}");
}

#[test]
fn a_second_revision_after_the_conversation_ended_says_which_revision_was_decided() {
    let (_d, root) = graph();
    let first = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut master = open_at(&root, Level::Master);
    master.request_changes(&first, "fix it", None).unwrap();
    let mut agent = open_at(&root, Level::Agent);
    let one = revision(&mut agent, &first, retry_queue()).unwrap();
    let two = revision(&mut agent, &first, json!([{"op": "deprecate", "name": "api-gateway"}])).unwrap();
    let card_of = |id: &ProposalId| {
        let s = open_at(&root, Level::Master);
        let pending = s.pending().unwrap().pending;
        let (cards, _) = cards_unlinted(&s, pending);
        cards.into_iter().find(|c| c.id == *id).expect("in the queue")
    };
    // Both pending: each card names the other.
    let problems = card_of(&two).revision_problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("another pending revision") && p.contains(one.short())),
        "{problems:?}"
    );
    // The first is accepted: the conversation ended, and the second's card says by which.
    let mut master = open_at(&root, Level::Master);
    let (_, p) = master.proposal(one.as_str()).unwrap();
    master.accept(&one, &p, &AcceptOptions::default()).unwrap();
    let problems = card_of(&two).revision_problems;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("already ended") && p.contains(&format!("revision {} was accepted", one.short()))),
        "{problems:?}"
    );
}

#[test]
fn a_revision_takes_the_place_of_the_proposal_it_revises_in_the_queue() {
    let (_d, root) = graph();
    let first = propose(&mut open_at(&root, Level::Agent), retry_queue());
    // Another agent's proposal, a millisecond later at least.
    let t = crate::model::Timestamp::now();
    while crate::model::Timestamp::now() == t {}
    let other = {
        let sub = Submission::from_json(
            json!({"agent": "other-agent", "trust": 94.2, "session": "s2",
                   "changes": [{"op": "add_node", "name": "audit-trail", "type": "module",
                                "description": "Audit trail"}]})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
        submit(
            &mut open_at(&root, Level::Agent),
            &TrustPolicy::default(),
            sub,
            Source::Mcp,
        )
        .unwrap()
    };
    let mut master = open_at(&root, Level::Master);
    master.request_changes(&first, "name the owner", None).unwrap();
    let second = revision(&mut open_at(&root, Level::Agent), &first, retry_queue()).unwrap();
    let order: Vec<ProposalId> = open_at(&root, Level::Master)
        .pending()
        .unwrap()
        .pending
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(order, [second, other], "the revision where its conversation began");
}
