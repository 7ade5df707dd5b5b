//! The console's Query pane end to end in a pseudo-terminal: type a query
//! with a typo, apply the suggestion, see the results, open one in the
//! Graph pane.

#[test]
fn a_typo_is_fixed_in_place_and_a_result_opens_in_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::console::start_demo(dir.path(), 120, 36);
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
