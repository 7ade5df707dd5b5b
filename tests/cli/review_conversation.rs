//! A review conversation through the binary: a reviewer asks for changes,
//! the agent reads the comment and answers, submits a revision, and the
//! reviewer sees the rounds and what changed before accepting it.

use predicates::prelude::*;

use crate::proposals::{RETRY, propose, reviewed_repo};

#[test]
fn request_changes_comment_revise_and_accept() {
    let repo = reviewed_repo();
    let first = propose(&repo, RETRY);
    // Only a reviewer may ask for changes, and a change number must exist.
    repo.locked()
        .env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once())
        .args(["request-changes", &first[..8], "--comment", "x"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("master"));
    repo.master()
        .args(["request-changes", &first[..8], "--comment", "x", "--change", "3"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("changes 1 to 2"));
    repo.master()
        .args([
            "request-changes",
            &first[..8],
            "--comment",
            "say who owns the retry queue",
            "--change",
            "1",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("asked for changes"));
    assert!(repo.ok(&["pending"]).contains("no pending proposals"));
    // The agent reads the comment with the status.
    let agent = || {
        let mut c = repo.locked();
        c.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once());
        c
    };
    let status = agent()
        .args(["proposal-status", &first[..8]])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let status = String::from_utf8(status).unwrap();
    assert!(status.contains("changes-requested"), "{status}");
    assert!(
        status.contains("comment on change 1: say who owns the retry queue"),
        "{status}"
    );
    assert!(status.contains(&format!("\"revises\": \"{first}\"")), "{status}");
    // It answers, then revises.
    agent()
        .args([
            "comment",
            &first[..8],
            "--agent",
            "claude-code",
            "--change",
            "1",
            "--comment",
            "orders-team owns it",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("sealed for the reviewers"));
    let revised = RETRY
        .replace(
            "Exponential backoff retry queue",
            "Exponential backoff retry queue, owned by orders-team",
        )
        .replacen('{', &format!("{{\"revises\": \"{first}\", "), 1);
    let second = propose(&repo, &revised);
    // The queue shows the revision with the conversation and the interdiff.
    let card = repo.ok(&["pending"]);
    assert!(
        card.contains(&second[..12]) && !card.contains(&format!("Proposal {}", &first[..12])),
        "{card}"
    );
    assert!(card.contains("Revision 2 of a conversation"), "{card}");
    assert!(card.contains("reviewer asked for changes on change 1:"), "{card}");
    assert!(card.contains("│ say who owns the retry queue"), "{card}");
    assert!(card.contains("claude-code replied on change 1"), "{card}");
    assert!(card.contains("│ orders-team owns it"), "{card}");
    assert!(card.contains("What changed since round 1"), "{card}");
    assert!(
        card.contains("-       \"description\": \"Exponential backoff retry queue\",")
            && card.contains("+       \"description\": \"Exponential backoff retry queue, owned by orders-team\","),
        "{card}"
    );
    let json = repo.json(repo.master(), &["pending"]);
    assert_eq!(json["proposals"][0]["rounds"][0]["id"], first.as_str());
    repo.master().args(["accept", &second[..8]]).assert().success();
    assert_eq!(
        repo.json(repo.master(), &["proposal-status", &second[..8]])["decision"]["outcome"],
        "accepted"
    );
    // The agent lists its proposals from its own list, newest first.
    let listed = agent()
        .args(["--json", "review-list", "--agent", "claude-code"])
        .assert()
        .success();
    let listed: serde_json::Value = serde_json::from_slice(&listed.get_output().stdout).unwrap();
    assert_eq!(listed[0]["id"], second.as_str());
    assert_eq!(listed[0]["state"], "accepted");
    assert_eq!(listed[1]["state"], "revised");
    assert_eq!(listed[1]["comment"], "say who owns the retry queue");
    assert_eq!(listed[1]["revised_by"], second.as_str());
    // An accepted proposal cannot be revised.
    let e = propose_err(
        &repo,
        &RETRY.replacen('{', &format!("{{\"revises\": \"{second}\", "), 1),
    );
    assert!(e.contains("was accepted"), "{e}");
}

fn propose_err(repo: &crate::harness::Repo, json: &str) -> String {
    let out = repo
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once())
        .args(["propose", "-"])
        .write_stdin(json.to_owned())
        .assert()
        .failure();
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

#[test]
fn a_keyless_comment_is_refused_and_the_timeline_names_the_proposing_agent() {
    let repo = reviewed_repo();
    let first = propose(&repo, RETRY);
    // No key: a comment in the agent's name is refused and nothing is written.
    repo.locked()
        .args([
            "comment",
            &first[..8],
            "--agent",
            "claude-code",
            "--comment",
            "accept it",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("agent"));
    let comments = std::fs::read_dir(repo.root().join(".gpp/graphex/pending"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".comment"))
        .count();
    assert_eq!(comments, 0);
    // With the agent identity it is taken.
    repo.locked()
        .env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once())
        .args(["comment", &first[..8], "--agent", "claude-code", "--comment", "a note"])
        .assert()
        .success();
    repo.ok(&["accept", &first[..8]]);
    let timeline = repo.ok(&["timeline", "--limit", "1"]);
    assert!(
        timeline.contains(&format!("proposal {} by agent claude-code", &first[..12])),
        "{timeline}"
    );
    let history = repo.ok(&["history", "retry-queue"]);
    assert!(history.contains("by agent claude-code"), "{history}");
    let json = repo.json(repo.master(), &["timeline", "--limit", "1"]);
    assert_eq!(json[0]["proposed_by"], "claude-code", "{json}");
}
