//! The console's Graph pane end to end in a pseudo-terminal: browse the
//! demo (jump, recentre, back, depth, filter), create a node and a link,
//! then check them with the CLI; the jump ranks with the one matcher
//! (`ordr srv` finds `orders-service` first).

use std::path::Path;
use std::time::Duration;

use crate::harness::bare;
use crate::pty::{Console, PATIENCE};

const DEMO_PASS: &str = "graphex-demo";

/// The console on a new demo store in `dir`, in the Graph pane (which
/// opens on the best connected node), jumped to `retry-queue`.
fn at_retry_queue(dir: &Path, cols: u16, rows: u16) -> Console {
    let mut c = crate::console::start_demo(dir, cols, rows);
    c.send("2");
    c.wait_for("◉ orders-service");
    c.send("/");
    c.wait_for("Jump to a node");
    c.send("retry-q");
    c.wait_for("enter opens");
    c.send("\r");
    c.wait_for("◉ retry-queue");
    c
}

#[test]
fn browse_the_demo_then_create_a_node_and_a_link_the_cli_shows() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = at_retry_queue(dir.path(), 140, 40);
    // Recentre on the first neighbour, then back.
    c.send("j\r");
    c.wait_for("retry-queue › ");
    c.send("b");
    c.wait_for("◉ retry-queue");
    c.wait_for("(1 ahead)");
    // Depth, then a type filter from the picker.
    c.send("-");
    c.wait_for("depth 1 ·");
    c.send("t");
    c.wait_for("Show node types");
    c.send(" \r");
    c.try_wait_for("a type filter", PATIENCE, |s| {
        s.contains("depth 1 ·") && !s.contains("types: all")
    })
    .unwrap();
    c.send("t");
    c.wait_for("Show node types");
    c.send("\x7f\r"); // backspace: all types again
    c.wait_for("types: all");
    // A new node, from the form.
    c.send("n");
    c.wait_for("New node");
    c.send("\t");
    c.send("console-made");
    c.wait_for("✓ free");
    c.send("\tMade in the console's graph pane");
    c.send("\x13"); // ctrl-s
    c.wait_for("added console-made");
    c.wait_for("◉ console-made");
    // And a link from it.
    c.send("l");
    c.wait_for("outgoing (tab: incoming)");
    c.send("uses\r");
    c.wait_for("choose the target");
    c.send("retry-queue");
    c.wait_for("enter opens");
    c.send("\r");
    c.wait_for("linked console-made uses retry-queue");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();

    let out = bare(dir.path())
        .args(["--store", "store", "--json", "show", "console-made"])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("Made in the console's graph pane"), "{text}");
    assert!(text.contains("retry-queue"), "the link shows: {text}");
}

/// The first row under the jump's query line `> QUERY`: (type, name), read
/// from the dialog's column on (the pane beside it stripped).
fn top_hit(screen: &str, query: &str) -> Option<(String, String)> {
    let prompt = format!("> {query}");
    let mut lines = screen.lines().skip_while(|l| !l.contains(&prompt));
    let at = lines.next()?.split(&prompt).next()?.chars().count();
    let row: String = lines.next()?.chars().skip(at).collect();
    let mut words = row
        .split(|c: char| c == '│' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    Some((words.next()?.to_owned(), words.next()?.to_owned()))
}

/// Waits until the jump's hits for `query` have settled with `want` on
/// top; the error shows the screen.
fn jump_top(c: &Console, query: &str, want: &str, within: Duration) -> Result<(), String> {
    c.try_wait_for(&format!("{want} on top of the jump for {query:?}"), within, |s| {
        s.contains("enter opens") && top_hit(s, query).is_some_and(|(_, name)| name == want)
    })
}

#[test]
fn ordr_srv_finds_orders_service_first_in_the_jump() {
    let dir = tempfile::tempdir().unwrap();
    // Away from it first, so the jump is what brings it back.
    let mut c = at_retry_queue(dir.path(), 120, 36);
    c.send("/");
    c.wait_for("Jump to a node");
    c.send("ordr srv");
    jump_top(&c, "ordr srv", "orders-service", PATIENCE).unwrap();
    assert_eq!(
        top_hit(&c.screen(), "ordr srv").map(|h| h.0).as_deref(),
        Some("service")
    );
    // Its twin: the check tells hits apart (one word ranks a shorter name
    // first, and orders-service is not on top for it).
    c.send("\x15"); // ctrl-u clears the line
    c.send("ordr");
    jump_top(&c, "ordr", "order-batch", PATIENCE).unwrap();
    assert!(jump_top(&c, "ordr", "orders-service", Duration::from_secs(1)).is_err());
    // Words in the other order find it too, and enter opens it.
    c.send("\x15");
    c.send("srv ordr");
    jump_top(&c, "srv ordr", "orders-service", PATIENCE).unwrap();
    c.send("\r");
    c.wait_for("◉ orders-service");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}
