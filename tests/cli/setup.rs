//! init, store discovery, keys, demo, gen, usage errors.

use predicates::prelude::*;

use crate::harness::{HUMAN, PASS, Repo, bare, json_of, names};

#[test]
fn init_creates_the_spec_layout_and_refuses_twice() {
    let repo = Repo::new();
    let g = repo.root().join(".gpp/graphex");
    for f in [
        "graph.db",
        "keys/master.age",
        "keys/public.key",
        "keys/agent-readable.age",
        "keys/agent-restricted.age",
        "keys/human-only.age",
    ] {
        assert!(g.join(f).is_file(), "{f}");
    }
    assert!(g.join("pending").is_dir() && repo.root().join(".gpp/objects").is_dir());
    bare(repo.root())
        .args(["init", "."])
        .env("GRAPHEX_PASSPHRASE", PASS)
        .env("GRAPHEX_HUMAN_PASSPHRASE", HUMAN)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already exists"));
}

#[test]
fn init_without_a_passphrase_and_no_terminal_says_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    bare(dir.path())
        .args(["init"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("GRAPHEX_PASSPHRASE"));
    assert!(!dir.path().join(".gpp/graphex/graph.db").exists());
}

#[test]
fn the_store_is_found_from_a_subdirectory_and_from_the_environment() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "svc", "-d", "x"]);
    let sub = repo.root().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    bare(&sub)
        .args(["show", "svc"])
        .assert()
        .success()
        .stdout(predicate::str::contains("svc"));
    let elsewhere = tempfile::tempdir().unwrap();
    bare(elsewhere.path())
        .env("GRAPHEX_STORE", repo.root())
        .args(["show", "svc"])
        .assert()
        .success();
    bare(elsewhere.path())
        .args(["list"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no Graphex store found").and(predicate::str::contains("graphex init")));
    bare(elsewhere.path())
        .args(["--store", "/nonexistent/repo", "status"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no Graphex store at /nonexistent/repo"));
}

#[test]
fn wrong_passphrases_are_clear_errors() {
    let repo = Repo::new();
    repo.locked()
        .env("GRAPHEX_PASSPHRASE", "nope")
        .args(["status"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("wrong passphrase")
                .and(predicate::str::contains("hint: check GRAPHEX_PASSPHRASE")),
        );
    repo.master()
        .env("GRAPHEX_HUMAN_PASSPHRASE", "nope")
        .args(["status"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("wrong human passphrase"));
}

#[test]
fn exported_identities_unlock_their_levels() {
    let repo = Repo::new().with_four_tiers();
    let agent = repo.agent_identity();
    let listed = repo.json(
        {
            let mut c = repo.locked();
            c.env("GRAPHEX_AGENT_IDENTITY", &agent);
            c
        },
        &["list"],
    );
    assert_eq!(names(&listed), ["agent-readable", "public"]);
    let master = repo.root().join("master.id");
    repo.ok(&["keys", "export-master", master.to_str().unwrap()]);
    let mut c = repo.locked();
    c.env("GRAPHEX_IDENTITY", &master);
    assert_eq!(names(&repo.json(c, &["list"])).len(), 3);
    // Never overwrites, and an agent cannot export anything.
    repo.master()
        .args(["keys", "export-master", master.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("refusing to overwrite"));
    repo.locked()
        .env("GRAPHEX_AGENT_IDENTITY", &agent)
        .args(["keys", "export-agent", "/tmp/never"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("master"));
}

#[test]
fn demo_builds_once_then_reuses_and_resets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let arg = root.to_str().unwrap();
    bare(dir.path())
        .args(["demo", arg, "--no-console"])
        .assert()
        .success()
        .stdout(predicate::str::contains("created the demo store"));
    bare(dir.path())
        .args(["demo", arg, "--no-console"])
        .assert()
        .success()
        .stdout(predicate::str::contains("existing demo store"));
    let mut cmd = bare(dir.path());
    cmd.args(["--store", arg, "--json", "status"])
        .env("GRAPHEX_PASSPHRASE", graphex::cli::DEMO_PASSPHRASE)
        .env("GRAPHEX_HUMAN_PASSPHRASE", graphex::cli::DEMO_HUMAN_PASSPHRASE);
    let status = json_of(cmd);
    assert!(status["total_nodes"].as_u64().unwrap() >= 50);
    let tiers = status["tiers"].as_array().unwrap();
    assert!(
        tiers.iter().all(|t| t["nodes"].as_u64().unwrap() > 0),
        "all four tiers populated"
    );
    assert!(
        status["by_status"]["deprecated"].as_u64().unwrap() > 0
            && status["by_status"]["archived"].as_u64().unwrap() > 0
    );
    bare(dir.path())
        .args(["demo", arg, "--reset", "--no-console"])
        .assert()
        .success()
        .stdout(predicate::str::contains("created"));
    // A store that is not a demo is never deleted by --reset.
    let other = Repo::new();
    bare(dir.path())
        .args(["demo", other.root().to_str().unwrap(), "--reset", "--no-console"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a demo store"));
}

#[test]
fn gen_makes_a_store_of_the_requested_size() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("g");
    let mut cmd = bare(dir.path());
    cmd.args([
        "--json",
        "gen",
        "--nodes",
        "200",
        "--edges",
        "600",
        root.to_str().unwrap(),
    ]);
    let report = json_of(cmd);
    assert_eq!(
        (report["nodes"].as_u64(), report["edges"].as_u64()),
        (Some(200), Some(600))
    );
    let mut cmd = bare(dir.path());
    cmd.args(["--store", root.to_str().unwrap(), "--json", "status"]);
    let status = json_of(cmd);
    assert_eq!(
        (status["total_nodes"].as_u64(), status["total_edges"].as_u64()),
        (Some(200), Some(600))
    );
    assert_eq!(status["level"], "locked");
    bare(dir.path())
        .args(["gen", "--nodes", "1", "--edges", "0", root.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already holds a store"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    bare(dir.path()).args(["add", "--name", "x"]).assert().code(2);
    bare(dir.path()).args(["frobnicate"]).assert().code(2);
    bare(dir.path())
        .args(["--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("GRAPHEX_PASSPHRASE"));
}

/// `graphex completions SHELL` prints a script the shell accepts, naming
/// the commands; `graphex man` prints the man page.
#[test]
fn completions_and_the_man_page_come_from_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = crate::harness::bare(dir.path()).args(args).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let bash = run(&["completions", "bash"]);
    assert!(
        bash.contains("graphex") && bash.contains("diff") && bash.contains("pending"),
        "{bash}"
    );
    let script = dir.path().join("graphex.bash");
    std::fs::write(&script, &bash).unwrap();
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stderr));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(run(&["completions", shell]).contains("graphex"), "{shell}");
    }
    let man = run(&["man"]);
    assert!(
        man.starts_with(".ie") || man.contains(".TH graphex"),
        "{}",
        &man[..man.len().min(300)]
    );
    assert!(
        man.contains("diff") && man.contains("encrypted"),
        "the commands and the description"
    );
    crate::harness::bare(dir.path())
        .args(["completions", "tcsh"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("invalid value 'tcsh'"));
}

/// Dynamic completion (`COMPLETE=SHELL graphex`): node names at the level
/// of the key in the environment, proposal ids with the master key only,
/// never a prompt.
#[test]
fn the_shell_completes_names_and_ids_at_the_callers_level() {
    let repo = Repo::new().with_four_tiers();
    let id = crate::proposals::propose(&repo, crate::proposals::RETRY);
    let complete = |keyed: bool, words: &[&str]| {
        let mut c = bare(repo.root());
        c.env("COMPLETE", "fish").env("GRAPHEX_STORE", repo.root());
        if keyed {
            c.env("GRAPHEX_PASSPHRASE", PASS);
        }
        let out = c.arg("--").arg("graphex").args(words).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let keyless = complete(false, &["show", ""]);
    assert!(keyless.lines().any(|l| l == "public"), "{keyless}");
    assert!(
        !keyless.contains("agent-readable"),
        "a sealed name is never offered: {keyless}"
    );
    let master = complete(true, &["show", "agent"]);
    assert_eq!(
        master.lines().collect::<Vec<_>>(),
        ["agent-readable", "agent-restricted"]
    );
    let ids = complete(true, &["proposal-status", ""]);
    assert!(ids.lines().any(|l| id.starts_with(l)), "{ids}");
    assert!(
        !complete(false, &["proposal-status", ""])
            .lines()
            .any(|l| id.starts_with(l))
    );
    // The registration script for the shell.
    let script = {
        let out = bare(repo.root()).env("COMPLETE", "bash").assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    assert!(script.contains("complete") && script.contains("graphex"), "{script}");
}
