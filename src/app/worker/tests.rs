//! The engine worker: request batching, and a key rotation made by
//! another process picked up with the same credentials.

use super::*;

#[test]
fn latest_wins_keeps_mutations_and_the_newest_preview() {
    let batch = vec![
        Request::Impact {
            generation: 1,
            id: "a".into(),
        },
        Request::Accept {
            id: "x".into(),
            force: false,
        },
        Request::Validate {
            generation: 1,
            text: "{".into(),
        },
        Request::Impact {
            generation: 2,
            id: "b".into(),
        },
        Request::LoadQueue,
        Request::Reject {
            ids: vec!["y".into()],
            reason: "no".into(),
        },
        Request::Validate {
            generation: 2,
            text: "{}".into(),
        },
        Request::LoadQueue,
    ];
    let kept: Vec<String> = latest_wins(batch).iter().map(|r| format!("{r:?}")).collect();
    assert_eq!(kept.len(), 5, "{kept:?}");
    assert!(kept[0].starts_with("Accept"));
    assert!(kept[1].contains("generation: 2") && kept[1].starts_with("Impact"));
    assert!(kept[2].starts_with("Reject"));
    assert!(kept[3].contains("generation: 2") && kept[3].starts_with("Validate"));
    assert_eq!(kept[4], "LoadQueue");
}

#[test]
fn a_key_rotated_elsewhere_is_picked_up_with_the_same_credentials() {
    use graphex_engine::KdfCost;
    use graphex_engine::age_secret::SecretString;
    let dir = tempfile::tempdir().unwrap();
    let (pass, human) = (SecretString::from("p"), SecretString::from("h"));
    Store::init(dir.path(), &pass, &human, KdfCost(Some(4))).unwrap();
    let creds = || Credentials {
        passphrase: Some(SecretString::from("p")),
        ..Credentials::default()
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut w = Worker::new(dir.path().to_path_buf(), creds(), tx);
    w.open();
    assert!(matches!(rx.try_recv().unwrap(), Reply::Opened { .. }));
    while rx.try_recv().is_ok() {}
    Store::open(dir.path(), &creds())
        .unwrap()
        .rotate_key(graphex_engine::Tier::AgentReadable, None, KdfCost(Some(4)))
        .unwrap();
    w.poll();
    let mut said = Vec::new();
    while let Ok(r) = rx.try_recv() {
        said.push(format!("{r:?}"));
    }
    assert!(
        said.iter()
            .any(|r| r.contains("rotated by another process; unlocked again")),
        "{said:?}"
    );
    assert!(!said.iter().any(|r| r.starts_with("Failed")), "{said:?}");
    // The reopened session reads and writes under the new key.
    let store = w.current().unwrap();
    store
        .add_node(graphex_engine::NewNode::new(
            graphex_engine::model::Name::new("after-rotation").unwrap(),
            graphex_engine::model::NodeType::new("concept").unwrap(),
            "written under the new key",
            graphex_engine::Tier::AgentReadable,
        ))
        .unwrap();
    let fresh = Store::open(dir.path(), &creds()).unwrap();
    assert_eq!(
        fresh.node("after-rotation").unwrap().description,
        "written under the new key"
    );
}

#[test]
fn a_rejection_undone_is_redone_with_its_reason_and_a_new_decision_ends_redo() {
    use graphex_engine::proposal::{Outcome, ProposalStatus};
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    let creds = || Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut w = Worker::new(dir.path().to_path_buf(), creds(), tx);
    w.open();
    let first = w.current().unwrap().pending().unwrap().pending[0].id.to_string();
    let status = |w: &mut Worker| w.current().unwrap().proposal_status(&first).unwrap();
    let said = |rx: &mut tokio::sync::mpsc::UnboundedReceiver<Reply>| {
        let mut out = Vec::new();
        while let Ok(r) = rx.try_recv() {
            out.push(format!("{r:?}"));
        }
        out
    };
    said(&mut rx);
    w.handle(Request::Reject {
        ids: vec![first.clone()],
        reason: "duplicate of the budget convention".into(),
    });
    w.handle(Request::Undo);
    assert!(matches!(status(&mut w), ProposalStatus::Pending { .. }));
    assert!(said(&mut rx).iter().any(|r| r.contains("ctrl-y redoes it")));
    w.handle(Request::Redo);
    assert!(
        said(&mut rx).iter().any(|r| r.contains("redid: rejected")),
        "the log tells a redo from a decision"
    );
    let ProposalStatus::Decided { decision, .. } = status(&mut w) else {
        panic!("redo decided it again")
    };
    assert_eq!(decision.outcome, Outcome::Rejected);
    assert_eq!(decision.reason.as_deref(), Some("duplicate of the budget convention"));
    // Undone again, then another decision: nothing left to redo.
    w.handle(Request::Undo);
    let second = w.current().unwrap().pending().unwrap().pending[1].id.to_string();
    w.handle(Request::Reject {
        ids: vec![second],
        reason: "no".into(),
    });
    said(&mut rx);
    w.handle(Request::Redo);
    assert!(said(&mut rx).iter().any(|r| r.contains("nothing to redo")));
    assert!(matches!(status(&mut w), ProposalStatus::Pending { .. }));
}

#[test]
fn redo_is_the_exact_reverse_of_the_undos_a_request_for_changes_included() {
    use graphex_engine::proposal::ProposalStatus;
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    let creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut w = Worker::new(dir.path().to_path_buf(), creds, tx);
    w.open();
    let pending = w.current().unwrap().pending().unwrap().pending;
    let (sent_back, accepted) = (pending[0].id.to_string(), pending[1].id.to_string());
    let pending_now = |w: &mut Worker, id: &str| {
        matches!(
            w.current().unwrap().proposal_status(id).unwrap(),
            ProposalStatus::Pending { .. }
        )
    };
    w.handle(Request::RequestChanges {
        id: sent_back.clone(),
        comment: "name the budget".into(),
        change: None,
    });
    w.handle(Request::Accept {
        id: accepted.clone(),
        force: false,
    });
    // u, ctrl-y, u: the accept undone, redone, undone.
    w.handle(Request::Undo);
    w.handle(Request::Redo);
    assert!(!pending_now(&mut w, &accepted), "redone");
    w.handle(Request::Undo);
    assert!(pending_now(&mut w, &accepted));
    // u: the request for changes undone too. ctrl-y makes the last step
    // undone again first (the request, with its comment), never the
    // accept undone before it; the next ctrl-y then makes the accept.
    w.handle(Request::Undo);
    assert!(pending_now(&mut w, &sent_back));
    w.handle(Request::Redo);
    assert!(!pending_now(&mut w, &sent_back), "the request for changes made again");
    assert!(pending_now(&mut w, &accepted), "not accepted again out of order");
    let status = format!("{:?}", w.current().unwrap().proposal_status(&sent_back).unwrap());
    assert!(status.contains("name the budget"), "the same comment: {status}");
    w.handle(Request::Redo);
    assert!(!pending_now(&mut w, &accepted), "then the accept");
    while rx.try_recv().is_ok() {}
    w.handle(Request::Redo);
    let said: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
        .map(|r| format!("{r:?}"))
        .collect();
    assert!(said.iter().any(|r| r.contains("nothing to redo")), "{said:?}");
}
