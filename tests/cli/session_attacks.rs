//! What a process of the user that is not the reviewer's terminal can do
//! with an unlock session: nothing the session does not serve, nothing at
//! all from another terminal, and nothing by taking the session's place.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use graphex::cli::hold::client::Connection;
use graphex::cli::hold::ops::Op;
use graphex::cli::hold::wire::{Answer, Request};
use graphex::shared::frames;
use graphex_engine::Level;
use serde_json::json;

use crate::harness::{INHERITED, PASS, Repo, state_dir};
use crate::unlock_session::{Unlocked, run, socket_dir, socket_of, with_content};

const WAIT: Option<Duration> = Some(Duration::from_secs(60));

/// The master keys the tests' state directory pinned for the store.
fn pinned(root: &std::path::Path) -> Vec<String> {
    let found = graphex_engine::freshness::pinned_signers_in(&state_dir(), root);
    assert!(!found.is_empty(), "the session's open recorded the master key");
    found
}

#[test]
fn a_raw_client_gets_nothing_the_session_does_not_serve() {
    let repo = Repo::new();
    let _session = Unlocked::start(&repo, "10m");
    let socket = socket_of(&repo).expect("the session's socket");
    let root = repo.root().canonicalize().unwrap();
    let stolen = repo.root().join("master-identity.txt");
    let run_argv = json!({"Run": {"argv": ["keys", "export-master", stolen], "cwd": root, "root": root}});
    // A command line sent the old way, before the session proved anything.
    let mut raw = UnixStream::connect(&socket).unwrap();
    raw.set_read_timeout(WAIT).unwrap();
    frames::send(&mut raw, &run_argv).unwrap();
    let mut heard = Vec::new();
    let _ = raw.read_to_end(&mut heard);
    assert!(heard.is_empty(), "the session answered a request with no hello");
    // After the proof: a command line, and operations it has no name for.
    for request in [
        run_argv.clone(),
        json!({"Op": {"op": {"KeysExportMaster": {"file": stolen}}, "json": false, "cwd": root, "root": root}}),
        json!({"Op": {"op": {"ConfigApprove": {"yes": "x"}}, "json": false, "cwd": root, "root": root}}),
        json!({"Op": {"op": {"Export": {"output": stolen}}, "json": false, "cwd": root, "root": root}}),
    ] {
        let mut c = Connection::open_pinned(&socket, &root, WAIT, &pinned(&root)).unwrap();
        assert_eq!(c.level, Level::Master);
        c.to_session.send(&mut c.stream, &request).unwrap();
        let answer = c.from_session.receive::<Answer>(&mut c.stream, 1 << 20);
        assert!(answer.is_err(), "{request} was answered: {answer:?}");
    }
    assert!(!stolen.exists(), "the master identity left the session");
    // A master key other than the one this machine pinned: not believed.
    let other = vec!["11".repeat(32)];
    assert!(Connection::open_pinned(&socket, &root, WAIT, &other).is_err());
    // What it serves, it still serves.
    let mut c = Connection::open_pinned(&socket, &root, WAIT, &pinned(&root)).unwrap();
    let status = Request::Op {
        op: Op::Status,
        json: true,
        cwd: root.clone(),
        root: root.clone(),
    };
    match c.ask(&status).unwrap() {
        Answer::Ran { code, stdout, .. } => {
            assert_eq!(code, 0);
            assert!(stdout.contains("\"level\""), "{stdout}");
        }
        other => panic!("{other:?}"),
    }
}

/// `graphex ARGS` on `repo` with no key, run by `setsid -w`: in a terminal
/// session of its own.
fn elsewhere(repo: &Repo, args: &[&str]) -> (String, String, i32) {
    let mut cmd = std::process::Command::new("setsid");
    cmd.arg("-w").arg(assert_cmd::cargo::cargo_bin("graphex"));
    for var in INHERITED {
        cmd.env_remove(var);
    }
    cmd.env_remove("GRAPHEX_TEST_VIA_SESSION")
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", state_dir())
        .arg("--store")
        .arg(repo.root())
        .args(args);
    let out = cmd.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

#[test]
fn a_master_session_answers_only_the_terminal_that_unlocked_it() {
    let repo = Repo::new();
    with_content(&repo);
    {
        let _session = Unlocked::start(&repo, "10m");
        let (out, err, code) = run(repo.locked(), &["show", "ledger"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("keeps the books"), "{out}");
        // Another terminal: refused, and on its own it reads public only.
        let (out, err, code) = elsewhere(&repo, &["show", "ledger"]);
        assert!(err.contains("no unlock session for this terminal"), "{err}");
        assert!(!out.contains("keeps the books"), "{out}");
        assert_ne!(code, 0);
        let (_, err, code) = elsewhere(&repo, &["reject", "abcd", "--reason", "no"]);
        assert_ne!(code, 0);
        assert!(err.contains("no unlock session for this terminal"), "{err}");
    }
    // --any-terminal serves every process of the user, and says so.
    let mut unlock = repo.master();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    let out = unlock
        .args(["unlock", "--any-terminal", "--idle", "10m"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("EVERY process of yours"), "{said}");
    let (out, err, code) = elsewhere(&repo, &["show", "ledger"]);
    let _ = repo.locked().arg("lock").output();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("keeps the books"), "{out}");
}

/// A process of the user listening on the session's socket path, keeping
/// what it hears and answering with a forged proof.
fn squat(repo: &Repo) -> (std::path::PathBuf, Arc<Mutex<Vec<u8>>>) {
    let dir = socket_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let key = graphex_engine::freshness::work_tree_key(&repo.root().canonicalize().unwrap());
    let socket = dir.join(format!("{key}.sock"));
    let listener = UnixListener::bind(&socket).unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&heard);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let _ = stream.set_read_timeout(WAIT);
            let mut len = [0u8; 4];
            if stream.read_exact(&mut len).is_err() {
                continue;
            }
            let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
            let _ = stream.read_exact(&mut body);
            let _ = frames::send_bytes(&mut stream, b"\"Ready\"");
            let _ = stream.write_all(&[7u8; 32]);
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
            let mut kept = keep.lock().unwrap();
            kept.extend_from_slice(&body);
            kept.extend_from_slice(&rest);
        }
    });
    (socket, heard)
}

#[test]
fn a_process_squatting_the_sockets_path_is_never_believed_nor_told_anything() {
    let repo = Repo::new();
    with_content(&repo);
    let (socket, heard) = squat(&repo);
    let (_, err, code) = run(repo.master(), &["unlock", "--idle", "10m"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not this store's unlock session"), "{err}");
    assert!(socket.exists(), "the squatter's socket is left for the user to look at");
    // A keyless command warns and runs on its own.
    let (out, err, code) = run(repo.locked(), &["show", "orders"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("not this store's unlock session"), "{err}");
    assert!(out.contains("takes orders"), "{out}");
    let (_, err, _) = run(repo.locked(), &["session"]);
    assert!(err.contains("not this store's unlock session"), "{err}");
    let heard = String::from_utf8_lossy(&heard.lock().unwrap()).into_owned();
    assert!(heard.contains("hello"), "the squatter heard the hellos: {heard}");
    for secret in [PASS, "show", "orders", "Op", "Status"] {
        assert!(!heard.contains(secret), "the squatter heard {secret:?}: {heard}");
    }
    std::fs::remove_file(&socket).unwrap();
}

#[test]
fn a_crashed_sessions_socket_is_removed_and_said() {
    let repo = Repo::new();
    let dir = socket_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let key = graphex_engine::freshness::work_tree_key(&repo.root().canonicalize().unwrap());
    let socket = dir.join(format!("{key}.sock"));
    drop(UnixListener::bind(&socket).unwrap());
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (_, err, code) = run(repo.master(), &["unlock", "--idle", "10m"]);
    let _ = repo.locked().arg("lock").output();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("has ended"), "{err}");
    assert!(err.contains("unlocked"), "{err}");
}

#[test]
fn the_sessions_environment_holds_no_passphrase() {
    let repo = Repo::new();
    let session = Unlocked::start(&repo, "10m");
    let pid = session.info()["pid"].as_u64().expect("the session's pid");
    // Readable (as root, or a dumpable process) or not, no passphrase is
    // there for another process to read.
    if let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) {
        let environ = String::from_utf8_lossy(&environ);
        assert!(!environ.contains("GRAPHEX_PASSPHRASE"), "{environ}");
        assert!(!environ.contains(PASS), "{environ}");
    }
}

#[test]
fn a_keyless_command_never_asks_an_agent_level_session() {
    let repo = Repo::new().with_four_tiers();
    let identity = repo.agent_identity_once();
    // No other session (a run through sessions starts a master one).
    let (_, _, locked) = run(repo.locked(), &["lock"]);
    assert_eq!(locked, 0);
    let mut unlock = repo.locked();
    unlock.env_remove("GRAPHEX_TEST_VIA_SESSION");
    unlock.env("GRAPHEX_AGENT_IDENTITY", &identity);
    unlock
        .args(["unlock", "--level", "agent", "--idle", "10m"])
        .assert()
        .success();
    // Anyone holding the agent identity could pose as such a session: a
    // keyless command asks it nothing and runs on its own (public only).
    let (out, err, code) = run(repo.locked(), &["show", "agent-readable"]);
    let (_, _, locked) = run(repo.locked(), &["lock"]);
    assert_eq!(locked, 0);
    assert_ne!(code, 0, "{out}");
    assert!(!out.contains("agent-readable words"), "{out}");
    assert!(err.contains("no node named"), "{err}");
}

/// Under `runuser` (as under `su`), the session starts and serves: the
/// process it checks for may belong to root, which answers EPERM, not "gone".
/// Run where the tests run as root (as in CI's container), else skipped.
#[test]
fn a_session_started_under_runuser_serves() {
    use std::os::unix::fs::chown;
    let runuser = std::path::Path::new("/usr/sbin/runuser");
    if !rustix::process::geteuid().is_root() || !runuser.exists() {
        eprintln!("skipped: needs root and runuser");
        return;
    }
    crate::harness::own_session();
    let dir = tempfile::tempdir().unwrap();
    let nobody = 65534;
    for sub in ["", "run", "state"] {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
        chown(&d, Some(nobody), Some(nobody)).unwrap();
    }
    let exe = dir.path().join("graphex");
    std::fs::copy(assert_cmd::cargo::cargo_bin("graphex"), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let store = dir.path().join("store");
    let as_nobody = |args: &[&str]| {
        let mut c = std::process::Command::new(runuser);
        c.args(["-u", "nobody", "--", "env", "-i"])
            .arg(format!("HOME={}", dir.path().display()))
            .arg(format!("XDG_RUNTIME_DIR={}", dir.path().join("run").display()))
            .arg(format!("GRAPHEX_STATE_DIR={}", dir.path().join("state").display()))
            .args([
                "GRAPHEX_PASSPHRASE=pw",
                "GRAPHEX_HUMAN_PASSPHRASE=hpw",
                "GRAPHEX_TEST_KDF_LOG_N=4",
            ])
            .arg(&exe)
            .args(args);
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, said) = as_nobody(&["init", store.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{said}");
    let at = store.to_str().unwrap();
    let (code, said) = as_nobody(&["--store", at, "unlock", "--idle", "2m"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("unlocked"), "{said}");
    let (code, said) = as_nobody(&["--store", at, "session"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("master"), "the session serves: {said}");
    let (code, said) = as_nobody(&["--store", at, "lock"]);
    assert_eq!(code, Some(0), "{said}");
}

#[test]
fn a_client_that_stalls_does_not_hold_the_session() {
    let repo = Repo::new();
    let session = Unlocked::start(&repo, "10m");
    let socket = socket_of(&repo).expect("the session's socket");
    // Connects and sends nothing, and never reads.
    let stalled = UnixStream::connect(&socket).unwrap();
    // The next client is served all the same (once the stalled one's time is up).
    let (out, err, code) = run(repo.locked(), &["--json", "status"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"level\": \"master\""), "served by the session: {out}");
    assert!(session.info()["requests"].as_u64().unwrap() >= 1);
    drop(stalled);
}
