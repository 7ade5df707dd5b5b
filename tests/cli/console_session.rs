//! The console through an unlock session: started without a key, it reads
//! at the session's level (the keys stay in the session), and the session
//! counts it while it runs. A console runs in a terminal of its own (the
//! PTY), so these sessions serve any terminal; one that does not leaves the
//! console keyless.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness::{Repo, state_dir};
use crate::pty::Console;

/// Locks the session when dropped (a failing test leaves none running).
struct Locks<'a>(&'a Repo);

impl Drop for Locks<'_> {
    fn drop(&mut self) {
        let _ = self.0.locked().arg("lock").output();
    }
}

/// A session on `repo` ending after `idle`, serving any terminal, locked
/// when the guard drops.
fn unlocked<'a>(repo: &'a Repo, idle: &str) -> Locks<'a> {
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock
        .args(["unlock", "--any-terminal", "--idle", idle])
        .assert()
        .success();
    Locks(repo)
}

#[test]
fn a_master_session_does_not_serve_a_console_in_another_terminal() {
    let repo = Repo::new();
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.args(["unlock", "--idle", "10m"]).assert().success();
    let _locks = Locks(&repo);
    let state = state_dir();
    let mut c = console(&repo, &keyless(&state));
    // The PTY is another terminal than the one that unlocked.
    c.wait_for("locked: public only");
    assert_eq!(consoles(&repo), 0);
    c.send("q");
    c.wait_exit();
}

/// A console's environment with no key, finding sessions in `state`.
fn keyless(state: &Path) -> [(&'static str, &str); 2] {
    [
        ("GRAPHEX_TEST_KDF_LOG_N", "4"),
        ("GRAPHEX_STATE_DIR", state.to_str().unwrap()),
    ]
}

fn consoles(repo: &Repo) -> serde_json::Value {
    let out = repo.locked().args(["--json", "session"]).output().unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    info["consoles"].clone()
}

#[test]
fn the_console_without_a_key_reads_through_the_session_at_its_level() {
    let repo = Repo::new();
    let _locks = unlocked(&repo, "10m");
    let state = state_dir();
    let env = keyless(&state);
    let mut c = console(&repo, &env);
    // No key in its environment, yet the master level: the session's.
    c.wait_for("master: all but human-only");
    assert_eq!(consoles(&repo), 1);
    c.send("q");
    c.wait_exit();
    let deadline = Instant::now() + Duration::from_secs(60);
    while consoles(&repo) != 0 {
        assert!(Instant::now() < deadline, "the session still counts the console");
        std::thread::yield_now();
    }
    // With GRAPHEX_NO_SESSION the same console opens on its own, keyless.
    let mut own = env.to_vec();
    own.push(("GRAPHEX_NO_SESSION", "1"));
    let mut c = console(&repo, &own);
    c.wait_for("locked: public only");
    c.send("q");
    c.wait_exit();
    // Locked under a running console: it says so and goes on with no key.
    let mut c = console(&repo, &env);
    c.wait_for("master: all but human-only");
    repo.locked().arg("lock").assert().success();
    c.wait_for("locked: public only");
    c.wait_for("the unlock session ended");
    c.send("q");
    c.wait_exit();
}

fn console(repo: &Repo, env: &[(&str, &str)]) -> Console {
    let root = repo.root().to_str().unwrap();
    Console::start(
        Path::new(env!("CARGO_BIN_EXE_graphex")),
        repo.root(),
        &["--store", root],
        env,
        120,
        36,
    )
}

#[test]
fn an_idle_console_does_not_keep_the_session() {
    let repo = Repo::new();
    let _locks = unlocked(&repo, "2s");
    let state = state_dir();
    let env = keyless(&state);
    let mut c = console(&repo, &env);
    c.wait_for("master: all but human-only");
    // Nothing asked: the session ends after its idle time, and the console
    // goes on with no key.
    c.wait_for("locked: public only");
    c.wait_for("the unlock session ended");
    c.send("q");
    c.wait_exit();
}
