//! The console end to end in a pseudo-terminal: the real binary on a demo
//! store, driven by keys, then checked through the CLI.

use std::path::Path;
use std::time::Duration;

use crate::harness::bare;
use crate::pty::Console;

pub const DEMO_PASS: &str = "graphex-demo";

pub fn demo_store(dir: &Path) {
    bare(dir).args(["demo", "store", "--no-console"]).assert().success();
}

/// The demo store's pending proposals in `dir/store`, in queue order.
pub fn pending_ids(dir: &Path) -> Vec<String> {
    let out = bare(dir)
        .args(["--store", "store", "pending", "--json"])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Submits `json` to the demo store in `dir` as an agent does (with the
/// agent identity, exported once); its proposal id.
pub fn propose_as_agent(dir: &Path, json: &str) -> String {
    let agent = dir.join("agent.id");
    if !agent.exists() {
        bare(dir)
            .args(["--store", "store", "keys", "export-agent"])
            .arg(&agent)
            .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
            .assert()
            .success();
    }
    let file = dir.join("proposal.json");
    std::fs::write(&file, json).unwrap();
    let out = bare(dir)
        .args(["--store", "store", "propose"])
        .arg(&file)
        .env("GRAPHEX_AGENT_IDENTITY", &agent)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_owned()
}

pub fn status_of(dir: &Path, id: &str) -> serde_json::Value {
    let out = bare(dir)
        .args(["--store", "store", "--json", "proposal-status", id])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The console on the demo store (made first) at `cols`×`rows`, unlocked at
/// the master level.
pub fn start_demo(dir: &Path, cols: u16, rows: u16) -> Console {
    demo_store(dir);
    start_console(dir, cols, rows)
}

/// The console on the demo store already made in `dir`.
fn start_console(dir: &Path, cols: u16, rows: u16) -> Console {
    let c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        dir,
        &["demo", "store"],
        &[("GRAPHEX_TEST_KDF_LOG_N", "4")],
        cols,
        rows,
    );
    c.wait_for("master");
    c
}

pub fn open_demo(dir: &Path) -> Console {
    let c = start_console(dir, 120, 36);
    c.wait_for("[1/");
    c.wait_gone("] chk ");
    c
}

#[test]
fn console_accepts_rejects_and_edits_then_the_cli_agrees() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let before = pending_ids(dir.path());
    assert!(before.len() >= 3, "the demo has proposals: {before:?}");

    let mut c = open_demo(dir.path());
    // Accept the first proposal.
    c.send("a");
    c.wait_for("edge(s) added");
    // Reject the next one with a reason.
    c.send("r");
    c.wait_for("Why reject");
    c.send("duplicates an existing service");
    c.send("\r");
    // The second in the queue, named by its id.
    c.wait_for(&format!("rejected {}", &before[1][..12]));
    // Edit the next one: append a word to its first description, then
    // accept the edit with ctrl-s.
    c.send("e");
    c.wait_for("ctrl-s");
    let (line, comma) = description_line(&c.screen());
    c.send(&"\x1b[B".repeat(line - 1)); // down to that line
    c.send("\x1b[F"); // end
    c.send(if comma { "\x1b[D\x1b[D" } else { "\x1b[D" }); // before the closing quote
    c.send(" edited-in-the-console");
    c.wait_for("(modified)");
    c.wait_for("valid:");
    c.send("\x13");
    c.wait_for("accepted the edit of");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();

    let after = pending_ids(dir.path());
    let decided: Vec<&String> = before.iter().filter(|id| !after.contains(id)).collect();
    assert_eq!(decided.len(), 3, "three decisions reached the store: {decided:?}");
    let states: Vec<String> = decided
        .iter()
        .map(|id| {
            status_of(dir.path(), id)["decision"]["outcome"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut sorted = states.clone();
    sorted.sort();
    assert_eq!(sorted, ["accepted", "edited", "rejected"], "{states:?}");
    let rejected = decided
        .iter()
        .map(|id| status_of(dir.path(), id))
        .find(|s| s["decision"]["outcome"] == "rejected")
        .unwrap();
    assert_eq!(rejected["decision"]["reason"], "duplicates an existing service");
    let found = bare(dir.path())
        .args(["--store", "store", "--json", "search", "edited-in-the-console"])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    let found = String::from_utf8_lossy(&found.get_output().stdout).into_owned();
    assert!(
        found.contains("edited-in-the-console"),
        "the edited text is in the graph: {found}"
    );
}

/// The editor's first line holding a description: its number (the
/// editor shows numbers at the left) and whether a comma ends it.
fn description_line(screen: &str) -> (usize, bool) {
    let row = screen
        .lines()
        .find(|l| l.contains("\"description\""))
        .unwrap_or_else(|| panic!("no description on the editor's first page:\n{screen}"));
    let inner = row.trim_start_matches(['│', ' ']);
    let number: String = inner.chars().take_while(char::is_ascii_digit).collect();
    let text = row.trim_end_matches(['│', ' ']);
    (number.parse().unwrap(), text.ends_with(','))
}

#[test]
fn the_harness_fails_when_the_screen_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let mut c = open_demo(dir.path());
    let wrong = c.try_wait_for("a screen that never shows", Duration::from_millis(300), |s| {
        s.contains("No proposals waiting.")
    });
    let err = wrong.unwrap_err();
    assert!(err.contains("timed out waiting for a screen that never shows"), "{err}");
    assert!(err.contains("Pending"), "the error shows the screen: {err}");
    // While open the terminal is the console's; the check must see that.
    assert!(c.restored().is_err(), "the harness sees the alternate screen");
    c.send("\x03");
    assert_eq!(c.wait_exit(), 0, "ctrl-c quits cleanly");
    c.restored().unwrap();
}

#[test]
fn the_console_refuses_to_start_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let out = bare(dir.path())
        .args(["--store", "store"])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .timeout(Duration::from_secs(20))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("the console needs a terminal"), "{err}");
    // `demo` says so before building anything.
    let out = bare(dir.path())
        .args(["demo", "fresh"])
        .timeout(Duration::from_secs(20))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--no-console"), "{err}");
    assert!(!dir.path().join("fresh").exists(), "nothing built");
}

#[test]
fn proposals_arriving_while_open_appear_without_a_key() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let mut c = open_demo(dir.path());
    propose_as_agent(
        dir.path(),
        r#"{"agent":"probe","trust":90,"session":"live","rationale":"seen in the logs","changes":[{"op":"add_node","name":"arrival-probe","type":"service","description":"appears live","tier":"public"}]}"#,
    );
    c.wait_for("+ arrival-probe");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
}

#[test]
fn a_panic_restores_the_terminal_and_prints_no_payload() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = demo_with_env(dir.path(), ("GRAPHEX_TEST_PANIC", "1"));
    c.send("\x1b[24~"); // F12
    assert_ne!(c.wait_exit(), 0);
    c.restored().unwrap();
    let screen = c.screen();
    assert!(screen.contains("internal error"), "{screen}");
    assert!(!screen.contains("canary-7f3a9c"), "the payload stays out: {screen}");
}

#[test]
fn a_flagged_accept_needs_its_second_key_in_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let before = pending_ids(dir.path()).len();
    let mut c = open_demo(dir.path());
    // Down the queue to the demo's proposal that lowers a node's tier.
    c.wait_for("tier↓");
    for _ in 0..12 {
        if c.screen().contains("1. ~ audit-logger") {
            break;
        }
        c.send("j");
        let _ = c.try_wait_for("the next card", Duration::from_millis(300), |s| {
            s.contains("1. ~ audit-logger")
        });
    }
    c.wait_for("1. ~ audit-logger");
    c.send("a");
    c.wait_for("It is flagged: tier-lowered");
    c.send("n");
    c.wait_gone("It is flagged");
    assert_eq!(pending_ids(dir.path()).len(), before, "n keeps it pending");
    c.send("a");
    c.wait_for("It is flagged: tier-lowered");
    c.send("y");
    c.wait_for("accepted");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    assert_eq!(pending_ids(dir.path()).len(), before - 1, "y accepted it");
}

/// `ctrl-e` in the proposal editor hands the text to `$VISUAL` (here a
/// `sed` that changes the trust), leaves the screen for it, and comes back
/// with the edited text in the editor, checked; one `ctrl-z` takes the
/// whole hand-off back; the terminal is whole.
#[test]
fn ctrl_e_hands_the_proposal_to_the_editor_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = demo_with_env(dir.path(), ("VISUAL", "sed -i s/94.2/61.5/"));
    let before = pending_ids(dir.path()).len();
    c.send("e");
    c.wait_for("\"trust\": 94.2");
    c.send("\u{5}");
    c.wait_for("\"trust\": 61.5");
    c.wait_for("(modified)");
    c.wait_for("valid:");
    // One ctrl-z takes the whole hand-off back; the editor again.
    c.send("\u{1a}");
    c.wait_for("\"trust\": 94.2");
    c.wait_gone("\"trust\": 61.5");
    c.send("\u{5}");
    c.wait_for("\"trust\": 61.5");
    c.wait_for("valid:");
    // Discard: nothing was accepted.
    c.send("\u{1b}");
    c.wait_for("Discard this edit?");
    c.send("y");
    c.wait_gone("(modified)");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
    assert_eq!(pending_ids(dir.path()).len(), before, "nothing was accepted");
}

/// The console on a new demo store with one more environment variable, at
/// 120x36, once the queue shows.
pub fn demo_with_env(dir: &Path, var: (&str, &str)) -> Console {
    demo_store(dir);
    let c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        dir,
        &["demo", "store"],
        &[("GRAPHEX_TEST_KDF_LOG_N", "4"), var],
        120,
        36,
    );
    c.wait_for("[1/");
    c
}
