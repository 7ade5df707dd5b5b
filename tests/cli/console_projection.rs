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

/// The preview records in the store's audit log, as the CLI lists them.
fn previews(dir: &std::path::Path) -> usize {
    let out = crate::harness::bare(dir)
        .args(["--store", "store", "--json", "audit", "list"])
        .env("GRAPHEX_PASSPHRASE", "graphex-demo")
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v.as_array().unwrap().iter().filter(|e| e["kind"] == "preview").count()
}

/// Waits until `ok` holds of the preview count (the worker records a
/// preview once it is drawn, a moment after the screen shows it).
fn previews_until(dir: &std::path::Path, ok: impl Fn(usize) -> bool) -> usize {
    for _ in 0..200 {
        let n = previews(dir);
        if ok(n) {
            return n;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "the preview count never reached what was expected (last {})",
        previews(dir)
    );
}

/// Curating in the Graph pane while the Projection pane holds a subject
/// records no preview nobody saw; showing the pane again draws, and records,
/// the new text.
#[test]
fn curating_with_the_projection_pane_hidden_records_no_preview() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::console::start_demo(dir.path(), 160, 44);
    c.wait_for("[1/");
    c.send("4");
    c.wait_for("orders-service (depth 2)");
    c.wait_for("agent-restricted ·");
    let seen = previews_until(dir.path(), |n| n >= 1);
    c.send("2");
    c.wait_for("◉ orders-service");
    // Deprecate a neighbour the projection around orders-service shows.
    c.send("/");
    c.send("retry-queue");
    c.wait_for("module    retry-queue");
    c.send("\r");
    c.wait_for("◉ retry-queue");
    c.send("X");
    c.wait_for("Deprecate retry-queue");
    c.send("replaced by the outbox\r");
    c.wait_for("retry-queue is now deprecated");
    assert_eq!(previews(dir.path()), seen, "nothing drawn, nothing recorded");
    // Shown again: the new text is drawn, and recorded.
    c.send("4");
    c.wait_for("agent-restricted ·");
    previews_until(dir.path(), |n| n > seen);
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}
