//! The console's Graph pane end to end in a pseudo-terminal: browse the
//! demo (jump, recentre, back, depth, filter), create a node and a link,
//! then check them with the CLI.

use crate::harness::bare;

const DEMO_PASS: &str = "graphex-demo";

#[test]
fn browse_the_demo_then_create_a_node_and_a_link_the_cli_shows() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::console::start_demo(dir.path(), 140, 40);
    // The pane opens on the best connected node.
    c.send("2");
    c.wait_for("◉ orders-service");
    // Jump.
    c.send("/");
    c.wait_for("Jump to a node");
    c.send("retry-q");
    c.wait_for("enter opens");
    c.send("\r");
    c.wait_for("◉ retry-queue");
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
    c.try_wait_for("a type filter", std::time::Duration::from_secs(20), |s| {
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
    c.wait_for("by which relation?");
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
