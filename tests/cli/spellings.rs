//! What a user of other tools types and meets: `--repo`, `-p`, `link A
//! --relation R --to B`, query flags after the quoted pattern, the
//! `project` budget default, quiet broken pipes, a fresh clone without its
//! empty directories, and another tool's `graph.db` left untouched.

use std::io::Read as _;
use std::process::Stdio;

use crate::harness::{Repo, bare, json_of};

#[test]
fn the_spellings_of_other_tools_are_understood() {
    let repo = Repo::new();
    // -p for --prop, --repo for --store.
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "a",
        "-d",
        "words",
        "-p",
        "owner=team-a",
    ]);
    repo.ok(&["add", "--type", "module", "--name", "b", "-d", "words"]);
    let mut c = bare(repo.root());
    c.args(["--repo"])
        .arg(repo.root())
        .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
        .args(["--json", "show", "a"]);
    let v = json_of(c);
    assert_eq!(v["properties"]["owner"], "team-a", "{v}");
    // link A --relation R --to B.
    repo.ok(&["link", "a", "--relation", "depends-on", "--to", "b"]);
    let v = repo.json(repo.master(), &["show", "a"]);
    assert_eq!(v["outgoing"][0]["relation"], "depends-on", "{v}");
    // Query flags after the quoted pattern, added to the query.
    let v = repo.json(
        repo.master(),
        &["query", "a -> * -> *", "--type", "module", "--depth", "1"],
    );
    assert_eq!(v["total_results"], 1, "{v}");
    let err = repo
        .master()
        .args(["query", "a -> * -> * --type module", "--type", "module"])
        .assert()
        .failure();
    let text = String::from_utf8_lossy(&err.get_output().stderr).into_owned();
    assert!(text.contains("--type"), "a flag given twice is named: {text}");
    // `project` budgets 8000 tokens unless told.
    let v = repo.json(repo.master(), &["project", "--node", "a", "--tier", "public"]);
    assert_eq!(v["budget"], 8000, "{v}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let repo = Repo::new();
    // More than a pipe's buffer (64 KB), so the writer must meet the
    // closed end rather than finish first.
    for i in 0..40 {
        repo.ok(&[
            "add",
            "--type",
            "service",
            "--name",
            &format!("node-{i}"),
            "-d",
            &"words ".repeat(600),
        ]);
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_graphex"))
        .args(["--store"])
        .arg(repo.root())
        .args(["--json", "list"])
        .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
        .env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", crate::harness::state_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, then hang up, as `head -c 10` does.
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "exit {status:?}: {err}");
    assert!(!err.contains("Broken pipe") && !err.contains("panicked"), "{err}");
}

#[test]
fn a_fresh_clone_without_its_empty_directories_still_adds() {
    let repo = Repo::new();
    // What git leaves of a freshly initialised store: no empty directory.
    for dir in [".gpp/objects", ".gpp/graphex/pending"] {
        let d = repo.root().join(dir);
        if std::fs::read_dir(&d).unwrap().next().is_none() {
            std::fs::remove_dir(&d).unwrap();
        }
    }
    repo.ok(&[
        "add",
        "--type",
        "service",
        "--name",
        "after-clone",
        "-d",
        "words",
        "--tier",
        "agent-readable",
    ]);
    let v = repo.json(repo.master(), &["show", "after-clone"]);
    assert_eq!(v["name"], "after-clone");
}

#[test]
fn another_tools_graph_db_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join(".gpp/graphex/graph.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("CREATE TABLE nodes (id TEXT, label TEXT); INSERT INTO nodes VALUES ('1', 'theirs');")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    for args in [
        &["status"][..],
        &["list"],
        &["add", "--type", "service", "--name", "x", "-d", "w"],
    ] {
        let out = bare(dir.path())
            .args(["--store"])
            .arg(dir.path())
            .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
            .args(args)
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains("not a Graphex store"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "not a byte written");
    let names: Vec<String> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["graph.db"], "no WAL, no keys, nothing else: {names:?}");
    // A database with a schema version of its own (as gpp-cli's has) too.
    std::fs::remove_file(&db).unwrap();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA user_version = 3; CREATE TABLE nodes (id TEXT, name TEXT);")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let out = bare(dir.path())
        .args(["--store"])
        .arg(dir.path())
        .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
        .arg("status")
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("not a Graphex store") && err.contains("gpp-cli"), "{err}");
    // gpp-cli has no export: the message names the way its graph moves.
    assert!(
        err.contains("gpp-cli has no export command") && err.contains("import FILE --format node-link --tier TIER"),
        "{err}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_new_store_tells_git_what_not_to_track() {
    let repo = Repo::new();
    let ignore = std::fs::read_to_string(repo.root().join(".gpp/.gitignore")).unwrap();
    for line in [
        "graphex/graph.db-wal",
        "graphex/graph.db-shm",
        "graphex/keys/.rotation.lock",
    ] {
        assert!(ignore.lines().any(|l| l == line), "{line} missing:\n{ignore}");
    }
    // Once a command has closed the store, the log is folded into graph.db
    // (an unlock session keeps the store open, and an empty log with it).
    repo.ok(&["add", "--type", "service", "--name", "a", "-d", "words"]);
    let wal = repo.root().join(".gpp/graphex/graph.db-wal");
    assert!(
        std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
        "{wal:?} holds commits"
    );
    // A .gitignore of the user's own is left as it is.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".gpp")).unwrap();
    std::fs::write(dir.path().join(".gpp/.gitignore"), "mine\n").unwrap();
    bare(dir.path())
        .arg("init")
        .arg(dir.path())
        .env("GRAPHEX_PASSPHRASE", crate::harness::PASS)
        .env("GRAPHEX_HUMAN_PASSPHRASE", "another long passphrase here")
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".gpp/.gitignore")).unwrap(),
        "mine\n"
    );
}
