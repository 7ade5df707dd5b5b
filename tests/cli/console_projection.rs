//! The console's Projection pane end to end in a pseudo-terminal: the
//! demo's orders-service, what agent-readable receives beyond public, then
//! an accept in the queue, and the preview follows.

use std::path::Path;
use std::time::Duration;

use crate::harness::bare;
use crate::pty::Console;

/// The 12-digit hash in the agent-readable column's title.
fn readable_hash(screen: &str) -> String {
    let line = screen
        .lines()
        .find(|l| l.contains("agent-readable ·"))
        .unwrap_or_else(|| panic!("no agent-readable column:\n{screen}"));
    let after = &line[line.find("agent-readable ·").unwrap()..];
    let title: String = after.chars().take_while(|c| *c != '╮').collect();
    title
        .split_whitespace()
        .find(|w| w.len() >= 10 && w.chars().all(|c| c.is_ascii_hexdigit()))
        .unwrap_or_else(|| panic!("no hash in {title:?}"))
        .to_owned()
}

#[test]
fn three_keys_to_the_diff_and_an_accept_changes_the_preview() {
    let dir = tempfile::tempdir().unwrap();
    bare(dir.path())
        .args(["demo", "store", "--no-console"])
        .assert()
        .success();
    let state = dir.path().join("state");
    let mut c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        dir.path(),
        &["demo", "store"],
        &[
            ("GRAPHEX_TEST_KDF_LOG_N", "4"),
            ("XDG_STATE_HOME", state.to_str().unwrap()),
        ],
        160,
        44,
    );
    c.wait_for("master");
    c.wait_for("[1/");
    // Three keys from the start.
    c.send("2");
    c.wait_for("◉ orders-service");
    c.send("P");
    c.wait_for("orders-service (depth 2)");
    c.wait_for("agent-restricted ·");
    let before = readable_hash(&c.screen());
    c.send("d");
    c.wait_for("What agent-readable receives beyond public");
    c.wait_for("+ ");
    // Accept the first proposal (it links a new convention to orders-service).
    c.send("1");
    c.wait_gone("[checking]");
    c.send("a");
    c.wait_for("edge(s) added");
    c.send("4d");
    c.try_wait_for("the preview recomputed", Duration::from_secs(20), |s| {
        s.contains("agent-readable ·") && !s.contains(&before)
    })
    .unwrap();
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}
