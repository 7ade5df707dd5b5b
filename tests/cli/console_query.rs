//! The console's Query pane end to end in a pseudo-terminal: type a query
//! with a typo, apply the suggestion, see the results, open one in the
//! Graph pane.

use std::path::Path;

use crate::harness::bare;
use crate::pty::Console;

#[test]
fn a_typo_is_fixed_in_place_and_a_result_opens_in_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    bare(dir.path())
        .args(["demo", "store", "--no-console"])
        .assert()
        .success();
    let mut c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        dir.path(),
        &["demo", "store"],
        &[
            ("GRAPHEX_TEST_KDF_LOG_N", "4"),
            ("XDG_STATE_HOME", dir.path().join("state").to_str().unwrap()),
        ],
        120,
        36,
    );
    c.wait_for("master");
    c.send("3");
    c.wait_for("Type a query");
    // `q` and `u` are text here, not quit and undo.
    c.send("orders-servce -> owned-by -> *");
    c.wait_for("did you mean orders-service?");
    c.send("\x06"); // ctrl-f
    c.wait_for("applied: orders-service");
    c.wait_for("orders-service —owned-by→ orders-team");
    c.send("\r"); // to the results
    c.wait_for("Query (i: edit)");
    c.send("\r"); // open the last node of the first result
    c.wait_for("◉ orders-team");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}
