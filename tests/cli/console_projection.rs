//! The console's Projection pane end to end in a pseudo-terminal: the
//! demo's orders-service, what agent-readable receives beyond public, then
//! an accept in the queue, and the preview follows.

use std::time::Duration;

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
    let mut c = crate::console::start_demo(dir.path(), 160, 44);
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
    c.wait_gone("] chk ");
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
