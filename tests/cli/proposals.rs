//! The proposal workflow through the binary: an agent proposes, a reviewer
//! lists, accepts, rejects, edits and undoes; the agent reads the outcome.

use predicates::prelude::*;

use crate::harness::{PASS, Repo};

pub(crate) fn reviewed_repo() -> Repo {
    let repo = Repo::new().with_four_tiers();
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "orders-service",
        "-d",
        "Core orders engine",
        "--tier",
        "agent-readable",
    ]);
    repo
}

pub(crate) const RETRY: &str = r#"{"agent": "claude-code", "trust": 94.2, "session": "fix-orders-timeout", "rationale": "upstream calls fail",
  "changes": [{"op": "add_node", "name": "retry-queue", "type": "module", "description": "Exponential backoff retry queue",
               "suggested_edges": [["orders-service", "depends-on", "retry-queue"]]},
              {"op": "update_node", "name": "orders-service", "set": {"description": "Core orders engine with retries"}}]}"#;

/// Proposes `json` as the agent; returns the printed id.
pub(crate) fn propose(repo: &Repo, json: &str) -> String {
    let agent = repo.agent_identity_once();
    let out = repo
        .locked()
        .env("GRAPHEX_AGENT_IDENTITY", agent)
        .args(["propose", "-"])
        .write_stdin(json)
        .assert()
        .success();
    let id = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(id.len(), 64, "{id}");
    id
}

#[test]
fn propose_review_accept_and_the_agent_reads_the_outcome() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    // The agent cannot list the queue.
    repo.locked()
        .env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once())
        .arg("pending")
        .assert()
        .failure()
        .stderr(predicate::str::contains("master"));
    assert_eq!(repo.json(repo.locked(), &["status"])["pending_proposals"], 1);
    let text = repo.ok(&["pending"]);
    assert!(text.contains("agent:claude-code (trust 94.2)"), "{text}");
    assert!(text.contains("+ [module] retry-queue"), "{text}");
    assert!(text.contains("+ orders-service → depends-on → retry-queue"), "{text}");
    assert!(
        text.contains("description: \"Core orders engine\" → \"Core orders engine with retries\""),
        "{text}"
    );
    let v = repo.json(repo.master(), &["pending"]);
    assert_eq!(v["proposals"][0]["id"], id);
    assert_eq!(
        v["proposals"][0]["proposal"]["submission"]["changes"][0]["op"],
        "add_node"
    );

    repo.master()
        .args(["accept", &id[..8], "--only", "1"])
        .assert()
        .success();
    let shown = repo.json(repo.master(), &["show", "retry-queue"]);
    assert_eq!(shown["provenance"]["kind"], "agent");
    assert_eq!(
        repo.json(repo.master(), &["show", "orders-service"])["description"],
        "Core orders engine"
    );
    let status = repo.json(
        {
            let mut c = repo.locked();
            c.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once());
            c
        },
        &["proposal-status", &id[..8]],
    );
    assert_eq!(status["status"], "decided");
    assert_eq!(status["decision"]["outcome"], "accepted");
    assert_eq!(status["decision"]["applied"], serde_json::json!([1]));
    // Accepting again is refused with a clear message.
    repo.master()
        .args(["accept", &id[..8]])
        .assert()
        .failure()
        .stderr(predicate::str::contains("was decided"));
    let timeline = repo.ok(&["timeline", "--limit", "1"]);
    assert!(timeline.contains(&format!("proposal {}", &id[..12])), "{timeline}");
    assert!(timeline.contains("add retry-queue v1"), "{timeline}");
}

#[test]
fn stale_base_shows_three_versions_and_force_applies() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    repo.ok(&["update", "orders-service", "-d", "Edited by a human"]);
    repo.master()
        .args(["accept", &id[..8]])
        .assert()
        .failure()
        .stderr(predicate::str::contains("is stale: orders-service"))
        .stderr(predicate::str::contains(
            "\"Core orders engine\" → \"Edited by a human\"",
        ))
        .stderr(predicate::str::contains(
            "\"Edited by a human\" → \"Core orders engine with retries\"",
        ))
        .stderr(predicate::str::contains("--force"));
    repo.master().args(["accept", &id[..8], "--force"]).assert().success();
    let history = repo.ok(&["history", "orders-service"]);
    assert!(history.contains("v3"), "{history}");
    assert!(
        history.contains(&format!("(proposal {} by agent claude-code)", &id[..12])),
        "{history}"
    );
}

#[test]
fn reject_with_reason_undo_and_session_batches() {
    let repo = reviewed_repo();
    let a = propose(&repo, RETRY);
    let b = propose(
        &repo,
        r#"{"agent": "claude-code", "trust": 94.2, "session": "fix-orders-timeout",
            "changes": [{"op": "deprecate", "name": "public", "reason": "old"}]}"#,
    );
    repo.master()
        .args(["reject", &a[..8]])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--reason"));
    repo.master()
        .args(["reject", &a[..8], "--reason", "use the existing queue"])
        .assert()
        .success();
    let status = repo.json(repo.master(), &["proposal-status", &a[..8]]);
    assert_eq!(status["decision"]["reason"], "use the existing queue");
    repo.master()
        .arg("undo")
        .assert()
        .success()
        .stdout(predicate::str::contains("undid the rejection"));
    assert_eq!(
        repo.json(repo.master(), &["proposal-status", &a[..8]])["status"],
        "pending"
    );
    let queue = repo.json(repo.master(), &["pending"]);
    let batch = queue["sessions"][0]["batch"].as_str().unwrap().to_owned();
    assert_eq!(queue["sessions"][0]["proposals"], 2);
    repo.master()
        .args(["reject", "--session", "fix-orders-timeout", "--reason", "not now"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--batch"));
    // A proposal slipped into the session after review changes the batch.
    let late = propose(
        &repo,
        r#"{"agent": "other", "trust": 50, "session": "fix-orders-timeout",
            "changes": [{"op": "archive", "name": "public"}]}"#,
    );
    repo.master()
        .args([
            "reject",
            "--session",
            "fix-orders-timeout",
            "--batch",
            &batch,
            "--reason",
            "not now",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not the batch you reviewed"));
    repo.master()
        .args(["reject", &late[..8], "--reason", "spam"])
        .assert()
        .success();
    repo.master()
        .args([
            "reject",
            "--session",
            "fix-orders-timeout",
            "--batch",
            &batch,
            "--reason",
            "not now",
        ])
        .assert()
        .success();
    for id in [&a, &b] {
        assert_eq!(
            repo.json(repo.master(), &["proposal-status", &id[..8]])["decision"]["outcome"],
            "rejected"
        );
    }
    assert!(repo.ok(&["pending"]).contains("no pending proposals"));
}

#[test]
fn edit_uses_the_editor_and_accepts_the_result() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    // A scripted "editor" that rewrites the description.
    let editor = repo.root().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/Exponential backoff retry queue/Retry queue, edited/' \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    repo.master()
        .env("VISUAL", &editor)
        .args(["edit", &id[..8]])
        .assert()
        .success()
        .stdout(predicate::str::contains("accepted the edit"));
    assert_eq!(
        repo.json(repo.master(), &["show", "retry-queue"])["description"],
        "Retry queue, edited"
    );
    assert_eq!(
        repo.json(repo.master(), &["proposal-status", &id[..8]])["decision"]["outcome"],
        "edited"
    );
}

#[test]
fn bad_submissions_name_the_problem() {
    let repo = reviewed_repo();
    for (json, expected) in [
        ("{", "EOF"),
        (
            r#"{"agent": "a", "trust": 1, "changes": [{"op": "add_node", "name": "Bad Name", "type": "module", "description": "d"}]}"#,
            "Bad Name",
        ),
        (
            r#"{"agent": "a", "trust": 1, "changes": [{"op": "deprecate", "name": "x", "extra": 1}]}"#,
            "unknown field `extra`",
        ),
        (
            r#"{"agent": "a", "trust": 99, "changes": [{"op": "add_node", "name": "n", "type": "module", "description": "d", "tier": "human-only"}]}"#,
            "may propose content up to",
        ),
    ] {
        repo.locked()
            .args(["propose", "-"])
            .write_stdin(json)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(expected));
    }
    repo.locked()
        .args(["propose", "/nonexistent.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot open"));
}

#[test]
fn infer_proposes_a_workspace_once() {
    let repo = Repo::new();
    let ws = repo.root().join("ws");
    std::fs::create_dir_all(ws.join("core/src")).unwrap();
    std::fs::create_dir_all(ws.join("app/src")).unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = [\"core\", \"app\"]\n").unwrap();
    std::fs::write(
        ws.join("core/Cargo.toml"),
        "[package]\nname = \"core\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(ws.join("core/src/lib.rs"), "//! Core.\npub mod store;\n").unwrap();
    std::fs::write(ws.join("core/src/store.rs"), "//! The store.\n").unwrap();
    std::fs::write(
        ws.join("app/Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n[dependencies]\ncore = { path = \"../core\" }\n",
    )
    .unwrap();
    std::fs::write(ws.join("app/src/main.rs"), "fn main() {}\n").unwrap();
    let dry = repo.json(repo.master(), &["infer", ws.to_str().unwrap(), "--dry-run"]);
    assert_eq!(dry["agent"], "inferred");
    let names: Vec<&str> = dry["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["app", "core", "core.store"]);
    let id = repo.ok(&["infer", ws.to_str().unwrap()]).trim().to_owned();
    repo.master().args(["accept", &id[..8]]).assert().success();
    let shown = repo.json(repo.master(), &["show", "app"]);
    assert_eq!(shown["type"], "service");
    assert!(shown["confidence"].as_f64().unwrap() < 1.0);
    assert_eq!(shown["provenance"]["kind"], "inferred");
    repo.master()
        .args(["infer", ws.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::contains("nothing new to propose"));
}

#[test]
fn two_processes_accepting_at_once_apply_it_once() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    let spawn = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("graphex"))
            .args(["--store"])
            .arg(repo.root())
            .args(["accept", &id[..12]])
            .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
            .env("GRAPHEX_TEST_KDF_LOG_N", "4")
            .env("GRAPHEX_STATE_DIR", crate::harness::state_dir())
            .env_remove("GRAPHEX_IDENTITY")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let outputs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let ok = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(
        ok,
        1,
        "{:?}",
        outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect::<Vec<_>>()
    );
    let failed = outputs.iter().find(|o| !o.status.success()).unwrap();
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        err.contains("was decided") || err.contains("another process") || err.contains("already exists"),
        "{err}"
    );
    let history = repo.json(repo.master(), &["history", "orders-service"]);
    assert_eq!(
        history.as_array().unwrap().len(),
        2,
        "the update was applied once: {history}"
    );
}

/// An editor script that records the modes of the file and its directory,
/// then runs `then`.
fn recording_editor(repo: &Repo, then: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let log = repo.root().join("editor.log");
    let editor = repo.root().join("record.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nstat -c '%a' \"$1\" \"$(dirname \"$1\")\" > '{log}.tmp'\necho \"$1\" >> '{log}.tmp'\nmv '{log}.tmp' '{log}'\n{then}\n",
            log = log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    (editor, log)
}

/// Attack: the decrypted proposal was written 0644 in a 0755 directory of
/// $TMPDIR and kept there after an error, readable by anything running as
/// (or beside) the reviewer.
#[test]
fn edit_file_is_private_and_removed_on_error() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    let tmp = tempfile::tempdir().unwrap();
    let (editor, log) = recording_editor(&repo, "echo '{' > \"$1\"");
    repo.master()
        .env("VISUAL", &editor)
        .env("TMPDIR", tmp.path())
        .args(["edit", &id[..8]])
        .assert()
        .failure()
        .stderr(predicate::str::contains("discarded"));
    let seen = std::fs::read_to_string(&log).unwrap();
    let modes: Vec<&str> = seen.lines().take(2).collect();
    assert_eq!(modes, ["600", "700"], "{seen}");
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "left behind in $TMPDIR"
    );
    // The editor failing is an exit path too.
    repo.master()
        .env("VISUAL", "false")
        .env("TMPDIR", tmp.path())
        .args(["edit", &id[..8]])
        .assert()
        .failure();
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// Attack: closing the terminal (SIGHUP) or a SIGTERM while the editor ran
/// left the decrypted file behind.
#[test]
fn edit_file_is_removed_when_graphex_is_signalled() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    let (editor, log) = recording_editor(&repo, "sleep 5");
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        let tmp = tempfile::tempdir().unwrap();
        let _ = std::fs::remove_file(&log);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_graphex"))
            .current_dir(repo.root())
            .env_remove("GRAPHEX_IDENTITY")
            .env_remove("GRAPHEX_HUMAN_PASSPHRASE")
            .env("GRAPHEX_TEST_KDF_LOG_N", "4")
            .env("GRAPHEX_STATE_DIR", crate::harness::state_dir())
            .env("GRAPHEX_PASSPHRASE", PASS)
            .env("VISUAL", &editor)
            .env("TMPDIR", tmp.path())
            .args(["--store", repo.root().to_str().unwrap(), "edit", &id[..8]])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while !log.exists() {
            assert!(start.elapsed().as_secs() < 30, "the editor never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let file = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .nth(2)
            .unwrap()
            .to_owned();
        assert!(std::path::Path::new(&file).exists());
        let killed = std::process::Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{signal}: {status}");
        assert!(!std::path::Path::new(&file).exists(), "{signal}: {file} left behind");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "{signal}");
    }
}

/// An agent proposes removing an edge; the card shows it as a removal with
/// the reason escaped; accepting unlinks it, `undo` brings it back.
#[test]
fn a_remove_edge_proposal_is_reviewed_accepted_and_undone() {
    let repo = reviewed_repo();
    repo.ok(&["link", "orders-service", "uses", "agent-readable"]);
    let edge = "-> uses -> agent-readable";
    assert!(repo.ok(&["show", "orders-service"]).contains(edge));
    let json = r#"{"agent": "claude-code", "trust": 94.2, "session": "s", "rationale": "cleanup",
      "changes": [{"op": "remove_edge", "from": "orders-service", "relation": "uses", "to": "agent-readable",
                   "reason": "unused since v2 \u202e"}]}"#;
    let id = propose(&repo, json);
    let card = repo.ok(&["pending"]);
    assert!(
        card.contains("1. - orders-service → uses → agent-readable (edge removed)"),
        "{card}"
    );
    assert!(card.contains("│ unused since v2"), "{card}");
    assert!(!card.contains('\u{202e}'), "the reason is escaped: {card}");
    assert!(card.contains("Lints: none"), "{card}");
    repo.master()
        .args(["accept", &id[..8]])
        .assert()
        .success()
        .stderr(predicate::str::contains("1 edge(s) removed"));
    assert!(!repo.ok(&["show", "orders-service"]).contains(edge));
    repo.ok(&["undo"]);
    assert!(repo.ok(&["show", "orders-service"]).contains(edge));
    assert_eq!(repo.json(repo.master(), &["pending"])["proposals"][0]["id"], id);
}

#[test]
fn a_card_never_promises_what_accept_will_not_do() {
    let repo = reviewed_repo();
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "orders-v2",
        "-d",
        "Next",
        "--tier",
        "agent-readable",
    ]);
    repo.ok(&["deprecate", "orders-service", "--reason", "replaced"]);
    propose(
        &repo,
        r#"{"agent": "claude-code", "trust": 94.2, "changes": [{"op": "supersede", "old": "orders-service", "new": "orders-v2"},
            {"op": "add_edge", "from": "orders-v2", "relation": "uses", "to": "orders-v2"}]}"#,
    );
    let card = String::from_utf8(repo.master().args(["pending"]).output().unwrap().stdout).unwrap();
    assert!(
        card.contains("orders-service is already deprecated: accepting this change fails"),
        "{card}"
    );
    assert!(!card.contains("becomes deprecated"), "{card}");
    assert!(card.contains("links orders-v2 to itself"), "{card}");
}

#[test]
fn accept_and_reject_take_the_name_of_the_node_a_proposal_adds_or_changes() {
    let repo = reviewed_repo();
    let retry = propose(&repo, RETRY);
    let other = propose(
        &repo,
        r#"{"agent": "codex", "trust": 88, "changes": [{"op": "update_node", "name": "orders-service", "set": {"description": "Orders"}}]}"#,
    );
    // Two proposals change orders-service: the name is ambiguous and both are listed.
    let out = repo
        .master()
        .args(["reject", "orders-service", "--reason", "no"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("2 pending proposals touch it"), "{said}");
    assert!(said.contains(&retry[..12]) && said.contains(&other[..12]), "{said}");
    // Only one adds retry-queue.
    repo.master().args(["accept", "retry-queue"]).assert().success();
    assert!(repo.ok(&["list"]).contains("retry-queue"));
    // A name nothing pending touches says so.
    let out = repo.master().args(["accept", "nothing-like-it"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no pending proposal"),
        "{out:?}"
    );
}

#[test]
fn a_query_for_proposed_nodes_lists_them_with_their_proposal_for_a_reviewer_only() {
    let repo = reviewed_repo();
    let id = propose(&repo, RETRY);
    let out = repo
        .master()
        .args(["query", "retry-* -> * -> *", "--status", "proposed"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (said, note) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        said.contains(&format!(
            "retry-queue (module, agent-readable, proposed in {} by claude-code)",
            &id[..12]
        )),
        "{said}"
    );
    assert!(said.ends_with("1 proposed node(s)\n"), "{said}");
    assert!(note.contains("no edge leads to or from one"), "{note}");
    // Below the master key, proposals are sealed: it says so.
    let out = repo
        .locked()
        .args(["query", "retry-queue -> * -> *", "--status", "proposed"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("sealed to the master key"),
        "{out:?}"
    );
}
