//! The unlock session: started with the key once, it answers the read
//! commands of processes that have no key, exactly as a process with the key
//! would; it sees other processes' commits, ends on lock, on idle and on a
//! store that no longer verifies, and keeps its socket private.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::harness::{Repo, state_dir};

/// A session on `repo`, locked when dropped (a failing test leaves none).
pub(crate) struct Unlocked<'a> {
    repo: &'a Repo,
}

impl<'a> Unlocked<'a> {
    pub(crate) fn start(repo: &'a Repo, idle: &str) -> Self {
        let mut c = repo.master();
        c.env_remove("GRAPHEX_TEST_VIA_SESSION");
        c.args(["unlock", "--idle", idle]).assert().success();
        Unlocked { repo }
    }

    pub(crate) fn info(&self) -> serde_json::Value {
        let (out, err, code) = run(self.repo.locked(), &["--json", "session"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    }
}

impl Drop for Unlocked<'_> {
    fn drop(&mut self) {
        let _ = self.repo.locked().arg("lock").output();
    }
}

pub(crate) fn socket_dir() -> PathBuf {
    state_dir().join("run")
}

/// The socket of this store's session, when it exists.
pub(crate) fn socket_of(repo: &Repo) -> Option<PathBuf> {
    let key = graphex_engine::freshness::work_tree_key(repo.root());
    Some(socket_dir().join(format!("{key}.sock"))).filter(|p| p.exists())
}

/// Waits (at most a minute) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "still waiting for {what}");
        std::thread::yield_now();
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn gone(pid: u64) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
        || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

pub(crate) fn run(mut cmd: assert_cmd::Command, args: &[&str]) -> (String, String, i32) {
    // These tests start their own sessions.
    cmd.env_remove("GRAPHEX_TEST_VIA_SESSION");
    let out = cmd.args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

pub(crate) fn with_content(repo: &Repo) {
    let steps: [&[&str]; 3] = [
        &[
            "add",
            "-t",
            "service",
            "--name",
            "orders",
            "--description",
            "takes orders",
        ],
        &[
            "add",
            "-t",
            "service",
            "--name",
            "ledger",
            "--description",
            "keeps the books",
            "--tier",
            "agent-restricted",
        ],
        &["link", "orders", "depends-on", "ledger"],
    ];
    for args in steps {
        let (_, err, code) = run(repo.master(), args);
        assert_eq!(code, 0, "{err}");
    }
}

#[test]
fn reads_through_the_session_are_the_reads_of_a_process_holding_the_key() {
    let repo = Repo::new();
    with_content(&repo);
    let session = Unlocked::start(&repo, "10m");
    let commands: [&[&str]; 12] = [
        &["status"],
        &["list"],
        &["--json", "list"],
        &["show", "ledger"],
        &["show", "no-such-node"],
        &["query", "orders -> *"],
        &["path", "orders", "ledger"],
        &["neighbors", "orders"],
        &["project", "--node", "orders", "--tier", "agent-restricted"],
        &["search", "books"],
        &["history", "ledger"],
        &["--json", "pending"],
    ];
    for args in commands {
        let direct = run(repo.master(), args);
        let served = run(repo.locked(), args);
        assert_eq!(direct, served, "graphex {args:?}");
    }
    // The session answered them (a process without the key sees no
    // agent-restricted node on its own).
    assert_eq!(session.info()["requests"], commands.len());
    let mut own = repo.locked();
    own.env("GRAPHEX_NO_SESSION", "1");
    let (_, err, code) = run(own, &["show", "ledger"]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn a_commit_by_another_process_is_seen_and_the_socket_is_private() {
    let repo = Repo::new();
    let session = Unlocked::start(&repo, "10m");
    let before = session.info()["commit"].as_u64().unwrap();
    with_content(&repo);
    let (out, err, code) = run(repo.locked(), &["show", "ledger"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("keeps the books"), "{out}");
    assert!(session.info()["commit"].as_u64().unwrap() > before);
    let socket = socket_of(&repo).expect("a socket");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(&socket_dir()), 0o700);
}

#[test]
fn lock_ends_the_process_and_removes_the_socket() {
    let repo = Repo::new();
    let session = Unlocked::start(&repo, "10m");
    let pid = session.info()["pid"].as_u64().unwrap();
    let socket = socket_of(&repo).expect("a socket");
    let (_, err, code) = run(repo.locked(), &["lock"]);
    assert_eq!(code, 0);
    assert!(err.contains("wiped what it held"), "{err}");
    assert!(!socket.exists(), "the socket outlived lock");
    wait_until("the session process to exit", || gone(pid));
    let (out, _, _) = run(repo.locked(), &["session"]);
    assert!(out.contains("no unlock session"), "{out}");
}

#[test]
fn an_idle_session_ends_by_itself() {
    let repo = Repo::new();
    let session = Unlocked::start(&repo, "1s");
    let pid = session.info()["pid"].as_u64().unwrap();
    let socket = socket_of(&repo).expect("a socket");
    wait_until("the idle session to end", || gone(pid) && !socket.exists());
}

#[test]
fn a_store_that_no_longer_verifies_ends_the_session() {
    let repo = Repo::new();
    with_content(&repo);
    let session = Unlocked::start(&repo, "10m");
    let pid = session.info()["pid"].as_u64().unwrap();
    // A forged row under a new commit number: the session must read it,
    // and it does not verify.
    let conn = rusqlite::Connection::open(repo.root().join(".gpp/graphex/graph.db")).unwrap();
    conn.execute_batch(
        "UPDATE nodes SET summary = X'00' WHERE tier = 0; \
         UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'commit_seq';",
    )
    .unwrap();
    drop(conn);
    let (_, err, code) = run(repo.locked(), &["status"]);
    assert!(
        err.contains("the unlock session ended: the store no longer verifies"),
        "{err}"
    );
    assert_ne!(
        code, 0,
        "the command ran on its own, on a store that does not verify: {err}"
    );
    wait_until("the session process to exit", || gone(pid));
}

/// A row deleted beside a real commit: the manifest still vouches for it,
/// so the session applies the commit row by row and goes on serving the row
/// as it verified it; idle, it checks the whole store and ends, naming why.
#[test]
fn a_row_removed_beside_a_commit_ends_the_session_at_its_idle_check() {
    let repo = Repo::new();
    with_content(&repo);
    let session = Unlocked::start(&repo, "10m");
    let pid = session.info()["pid"].as_u64().unwrap();
    let (_, err, code) = run(
        repo.master(),
        &["add", "-t", "service", "--name", "billing", "--description", "bills"],
    );
    assert_eq!(code, 0, "{err}");
    let conn = rusqlite::Connection::open(repo.root().join(".gpp/graphex/graph.db")).unwrap();
    assert_eq!(conn.execute("DELETE FROM edges", []).unwrap(), 1);
    drop(conn);
    let (out, err, code) = run(repo.locked(), &["neighbors", "orders"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ledger"), "the edge as verified: {out}");
    wait_until("the idle check to end the session", || gone(pid));
    let (_, err, code) = run(repo.master(), &["status"]);
    assert_ne!(code, 0);
    assert!(err.contains("deleted"), "{err}");
}

#[test]
fn unlock_needs_the_key_and_says_when_one_runs() {
    let repo = Repo::new();
    let (_, err, code) = run(repo.locked(), &["unlock"]);
    assert_eq!(code, 1);
    assert!(err.contains("unlock needs the master key"), "{err}");
    let _session = Unlocked::start(&repo, "10m");
    let (_, err, code) = run(repo.master(), &["unlock"]);
    assert_eq!(code, 0);
    assert!(err.contains("already holds"), "{err}");
    let (_, err, code) = run(repo.locked(), &["unlock", "--idle", "5d"]);
    assert_eq!(code, 2);
    assert!(err.contains("unit is s, m or h"), "{err}");
}

#[test]
fn writes_through_the_session_are_the_writes_of_a_process_holding_the_key() {
    let (direct, through) = (Repo::new(), Repo::new());
    let session = Unlocked::start(&through, "10m");
    let steps: [&[&str]; 6] = [
        &[
            "add",
            "-t",
            "service",
            "--name",
            "orders",
            "--description",
            "takes orders",
        ],
        &[
            "add",
            "-t",
            "database",
            "--name",
            "orders-db",
            "--description",
            "holds them",
        ],
        &["link", "orders", "depends-on", "orders-db"],
        &["update", "orders", "--description", "takes and tracks orders"],
        &["deprecate", "orders-db", "--reason", "moved"],
        &["link", "orders", "depends-on", "no-such-node"],
    ];
    let path = |r: &Repo| r.root().display().to_string();
    for args in steps {
        let a = run(direct.master(), args);
        let b = run(through.locked(), args);
        assert_eq!(
            (a.0, a.1.replace(&path(&direct), "ROOT"), a.2),
            (b.0, b.1.replace(&path(&through), "ROOT"), b.2),
            "graphex {args:?}"
        );
    }
    assert_eq!(session.info()["requests"], steps.len());
    // The same graph, as a process of its own reads it back.
    let own = |r: &Repo| {
        let (out, err, code) = run(r.master(), &["--json", "show", "orders"]);
        assert_eq!(code, 0, "{err}");
        let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
        for k in ["created", "updated", "id"] {
            v.as_object_mut().unwrap().remove(k);
        }
        // Each edge was made at its own moment too.
        for side in ["outgoing", "incoming"] {
            for e in v[side].as_array_mut().unwrap() {
                e.as_object_mut().unwrap().remove("created");
            }
        }
        v
    };
    assert_eq!(own(&direct), own(&through));
}

#[test]
fn a_write_is_kept_when_the_session_dies_before_answering() {
    let repo = Repo::new();
    let mut start = repo.master();
    start
        .env("GRAPHEX_TEST_SESSION_DIES", "1")
        .env_remove("GRAPHEX_TEST_VIA_SESSION");
    start.args(["unlock", "--idle", "10m"]).assert().success();
    let _session = Unlocked { repo: &repo };
    let (_, err, code) = run(
        repo.locked(),
        &[
            "add",
            "-t",
            "concept",
            "--name",
            "kept",
            "--description",
            "committed before the session died",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ended before it answered"), "{err}");
    // Not run a second time on its own, and not lost.
    let (out, err, code) = run(repo.master(), &["show", "kept"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("committed before the session died"), "{out}");
    let (out, _, _) = run(repo.master(), &["--json", "list"]);
    assert_eq!(out.matches("\"kept\"").count(), 1, "{out}");
}

#[test]
fn an_older_graph_copied_back_in_place_is_found_as_an_open_finds_it() {
    let repo = Repo::new();
    with_content(&repo);
    let db = repo.root().join(".gpp/graphex/graph.db");
    let old = std::fs::read(&db).unwrap();
    let (_, err, code) = run(
        repo.master(),
        &[
            "add",
            "-t",
            "concept",
            "--name",
            "newer",
            "--description",
            "after the copy",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let session = Unlocked::start(&repo, "10m");
    // `cp` writes the old bytes into the same file, under the session.
    std::fs::write(&db, &old).unwrap();
    let served = run(repo.locked(), &["status"]);
    assert_eq!(session.info()["requests"], 1, "the session answered");
    let own = run(repo.master(), &["status"]);
    assert!(
        own.1.contains("warning"),
        "a process of its own finds the rollback: {}",
        own.1
    );
    assert_eq!(served, own);
    let (_, err, code) = run(
        repo.locked(),
        &["add", "-t", "concept", "--name", "x", "--description", "y"],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("refused") && err.contains("not the newest this machine saw"),
        "{err}"
    );
}

#[test]
fn human_only_stays_unlocked_for_the_next_command_or_as_long_as_asked() {
    let repo = Repo::new();
    let secret = [
        "add",
        "-t",
        "concept",
        "--name",
        "vault",
        "--description",
        "human eyes only",
        "--tier",
        "human-only",
    ];
    let (_, err, code) = run(repo.human(), &secret);
    assert_eq!(code, 0, "{err}");
    let mut start = repo.human();
    start.env_remove("GRAPHEX_TEST_VIA_SESSION");
    start.args(["unlock", "--level", "human"]).assert().success();
    let session = Unlocked { repo: &repo };
    assert!(session.info()["level"].as_str().unwrap().starts_with("human"));
    let (out, err, code) = run(repo.locked(), &["show", "vault"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("human eyes only"), "{out}");
    // The next command no longer reaches human-only.
    let (_, _, code) = run(repo.locked(), &["show", "vault"]);
    assert_eq!(code, 1);
    assert_eq!(session.info()["level"], "master");
    drop(session);

    let mut start = repo.human();
    start.env_remove("GRAPHEX_TEST_VIA_SESSION");
    start
        .args(["unlock", "--level", "human", "--human-for", "1s"])
        .assert()
        .success();
    let session = Unlocked { repo: &repo };
    wait_until("human-only to be locked again", || session.info()["level"] == "master");
    let (_, _, code) = run(repo.locked(), &["show", "vault"]);
    assert_eq!(code, 1);
    let (_, err, code) = run(repo.master(), &["unlock", "--human-for", "5m"]);
    assert_eq!(code, 1);
    assert!(err.contains("--human-for needs --level human"), "{err}");
}
