//! `graphex diff --console` in a real terminal: the console opens on the
//! Projection pane, a node changed since the revision shown before and
//! after it, tier by tier.

use std::path::Path;

use crate::console::{DEMO_PASS, demo_store};
use crate::git::git_ok;
use crate::pty::Console;

#[test]
fn diff_console_shows_a_changed_node_before_and_after_the_revision() {
    let dir = tempfile::tempdir().unwrap();
    demo_store(dir.path());
    let store = dir.path().join("store");
    git_ok(&store, &["init", "-q", "-b", "main"]);
    git_ok(&store, &["add", "-A"]);
    git_ok(&store, &["commit", "-q", "-m", "demo"]);
    let out = crate::harness::bare(&store)
        .env("GRAPHEX_PASSPHRASE", DEMO_PASS)
        .args(["update", "audit-logger", "--tier", "public"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("public"));
    let mut c = Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        &store,
        &["diff", "--console", "HEAD"],
        &[("GRAPHEX_PASSPHRASE", DEMO_PASS), ("GRAPHEX_TEST_KDF_LOG_N", "4")],
        120,
        36,
    );
    c.wait_for("audit-logger: before and after HEAD");
    c.wait_for("1 node(s) changed (audit-logger)");
    c.send("q");
    assert_eq!(c.wait_exit(), 0);
    c.restored().unwrap();
}
