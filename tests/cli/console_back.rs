//! Every "back" in the console is safe, in a real terminal: redo is the
//! exact reverse of the undos it follows, and `n` on a confirmation returns
//! to the field with its text and writes nothing (one `ctrl-z` taking an
//! `$EDITOR` hand-off back is in `console::ctrl_e_…`). Each is then checked
//! through the CLI.

use std::time::{Duration, Instant};

use crate::console::{DEMO_PASS, demo_store, open_demo, pending_ids, propose_as_agent, status_of};
use crate::harness::bare;

/// Polls the CLI until `ok` holds (the console writes, then the CLI reads).
fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `pending`, or the outcome of the decision on `id`.
fn status(dir: &std::path::Path, id: &str) -> String {
    let s = status_of(dir, id);
    match s["decision"]["outcome"].as_str() {
        Some(outcome) => outcome.to_owned(),
        None => s["status"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The sequence that once re-accepted a revision unasked: ask for changes,
/// the revision arrives, `a`, `u`, `ctrl-y`, `u`, `u` (the request for
/// changes undone too), `ctrl-y`. The last redo makes the request for
/// changes again (the last step undone comes back first) and leaves the
/// revision pending.
#[test]
fn redo_is_the_exact_reverse_of_the_undos_it_follows() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let ids = pending_ids(dir.path());
    let mut c = open_demo(dir.path());
    c.send("c");
    c.wait_for("Ask for changes");
    c.send("say which team owns it");
    c.wait_for("say which team owns it");
    c.send("\r");
    c.wait_for("asked for changes on ");
    // The proposal the console asked about, by the id its message names.
    let screen = c.screen();
    let short: String = screen
        .split("asked for changes on ")
        .nth(1)
        .unwrap_or_default()
        .chars()
        .take(12)
        .collect();
    let first = ids
        .iter()
        .find(|id| id.starts_with(&short))
        .unwrap_or_else(|| panic!("{short:?} among {ids:?}: {screen}"))
        .clone();
    until("the request recorded", || {
        status(dir.path(), &first) == "changes-requested"
    });
    // The agent's revision, as an agent submits it.
    let revision = propose_as_agent(
        dir.path(),
        &format!(
            r#"{{"agent":"claude-code","trust":94.2,"session":"fix-orders-timeout","rationale":"as asked: the owner is named","revises":"{first}","changes":[{{"op":"add_node","name":"upstream-timeout-budget","type":"convention","description":"One timeout budget per upstream call, owned by platform.","tier":"public"}}]}}"#
        ),
    );
    assert_eq!(revision.len(), first.len(), "{revision}");
    c.wait_for("revision arrived");
    c.send("]");
    c.wait_for("Revision 2 of a conversation");
    // Each key once the console shows its answer (a key sent while it is
    // busy is refused, and says so); the store is then checked through the
    // CLI. Each answer differs from the one before it on screen.
    let (rev, req) = (&revision[..12], &first[..12]);
    let answered = |c: &crate::pty::Console, shows: &str, gone: &str| {
        let what = format!("{shows:?} in place of {gone:?}");
        if let Err(e) = c.try_wait_for(&what, crate::pty::PATIENCE, |s| s.contains(shows) && !s.contains(gone)) {
            panic!("{e}");
        }
    };
    c.send("a");
    answered(&c, &format!("accepted {rev}"), "accepting…");
    assert_eq!(status(dir.path(), &revision), "accepted");
    c.send("u");
    answered(&c, &format!("undid the acceptance of {rev}"), "undoing…");
    assert_eq!(status(dir.path(), &revision), "pending");
    c.send("\u{19}");
    answered(&c, &format!("redid: accepted {rev}"), "undid");
    assert_eq!(status(dir.path(), &revision), "accepted");
    c.send("u");
    answered(&c, &format!("undid the acceptance of {rev}"), "redid:");
    assert_eq!(status(dir.path(), &revision), "pending");
    c.send("u");
    answered(&c, &format!("undid the request for changes of {req}"), "acceptance");
    assert_eq!(status(dir.path(), &first), "pending");
    c.send("\u{19}");
    answered(&c, "redid:", "undid");
    assert_eq!(status(dir.path(), &first), "changes-requested", "{}", c.screen());
    assert_eq!(
        status(dir.path(), &revision),
        "pending",
        "the revision is not decided unasked"
    );
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}

/// `S`, a successor made in place (`ctrl-n`), saved: the reason would name
/// the agent-readable successor to the old node's public readers, so it
/// is confirmed; `n` goes back to the reason with its text, and nothing is
/// written (no orphan successor); `enter`, `y` then write both in one go.
#[test]
fn n_on_a_confirmation_returns_to_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let mut c = open_demo(dir.path());
    let node = |name: &str| {
        bare(dir.path())
            .args(["--store", "store", "show", name])
            .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
            .output()
            .unwrap()
    };
    c.send("2");
    c.send("/");
    c.wait_for("Jump");
    c.send("fifo-order-batches");
    c.wait_for("convention  fifo-order-batches");
    c.send("\r");
    c.wait_for("◉ fifo-order-batches");
    c.send("g");
    c.send("S");
    c.wait_for("supersede");
    c.send("ordered-batch-windows");
    c.wait_for("no match");
    c.send("\r");
    c.wait_for("ctrl-n");
    c.send("\u{e}");
    c.wait_for("ordered-batch-windows");
    c.send("Batches close on fixed windows, in order.");
    c.send("\u{13}");
    c.wait_for("supersedes fifo-order-batches");
    c.send("replaced by ordered-batch-windows\r");
    c.wait_for("y saves it as it is");
    c.send("n");
    c.wait_gone("y saves it as it is");
    // Back in the reason, its text kept, the problem said.
    c.wait_for("> replaced by ordered-batch-windows");
    c.wait_for("not saved yet");
    assert!(!node("ordered-batch-windows").status.success(), "no orphan successor");
    c.send("\r");
    c.wait_for("y saves it as it is");
    c.send("y");
    until("both written", || node("ordered-batch-windows").status.success());
    let old = String::from_utf8(node("fifo-order-batches").stdout).unwrap();
    assert!(old.contains("deprecated"), "{old}");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
}
