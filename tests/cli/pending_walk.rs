//! `graphex pending` in a terminal asks about each card; piped, and for
//! one proposal by id, it prints.

use std::path::Path;

use crate::console::pending_ids;
use crate::harness::{bare, demo_into};
use crate::pty::Console;

const DEMO_PASS: &str = "graphex-demo";

fn pending(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    bare(dir)
        .args(["--store", "store", "pending"])
        .args(args)
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .write_stdin("y\n")
        .assert()
}

#[test]
fn in_a_terminal_pending_asks_about_each_card_and_each_answer_decides_it() {
    let dir = tempfile::tempdir().unwrap();
    demo_into(&dir.path().join("store"));
    let before = pending_ids(dir.path());
    let mut c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        dir.path(),
        &["--store", "store", "pending"],
        &[("GRAPHEX_PASSPHRASE", DEMO_PASS), ("GRAPHEX_TEST_KDF_LOG_N", "4")],
        120,
        40,
    );
    let of = before.len();
    c.wait_for(&format!("(1/{of}) Accept? [y/n/edit]"));
    c.send("y\r");
    c.wait_for(&format!("(2/{of}) Accept? [y/n/edit]"));
    c.send("n\r");
    c.wait_for("Reason (the agent reads it");
    c.send("too broad for one change\r");
    c.wait_for(&format!("(3/{of}) Accept? [y/n/edit]"));
    c.send("q\r");
    c.wait_for("stopped: accepted 1, rejected 1");
    assert_eq!(c.wait_exit(), 0);
    // Decided as answered, the rest still pending.
    let after = pending_ids(dir.path());
    assert_eq!(after, before[2..], "the first two were decided, in the queue's order");
    let status = bare(dir.path())
        .args(["--store", "store", "--json", "proposal-status", &before[1][..12]])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&status.get_output().stdout).into_owned();
    assert!(
        text.contains("rejected") && text.contains("too broad for one change"),
        "{text}"
    );
}

#[test]
fn piped_pending_prints_and_one_id_prints_one_card() {
    let dir = tempfile::tempdir().unwrap();
    demo_into(&dir.path().join("store"));
    let ids = pending_ids(dir.path());
    // Piped: the queue, no question, whatever stdin holds.
    let all = pending(dir.path(), &[]).success();
    let all = String::from_utf8_lossy(&all.get_output().stdout).into_owned();
    assert!(!all.contains("Accept?"), "{all}");
    assert!(all.contains(&format!("{} pending.", ids.len())), "{all}");
    // One proposal by its id: its card alone.
    let one = pending(dir.path(), &[&ids[1][..8]]).success();
    let one = String::from_utf8_lossy(&one.get_output().stdout).into_owned();
    assert!(one.contains(&ids[1][..12]), "{one}");
    assert!(!one.contains(&ids[0][..12]) && !one.contains("pending."), "{one}");
    // A decided one is named as not pending.
    bare(dir.path())
        .args(["--store", "store", "reject", &ids[1][..12], "--reason", "no"])
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .assert()
        .success();
    let err = pending(dir.path(), &[&ids[1][..8]]).failure();
    let err = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
    assert!(err.contains("is not pending"), "{err}");
}
