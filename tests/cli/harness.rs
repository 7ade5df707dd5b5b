//! Runs the real binary against throwaway stores with a clean environment.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub const PASS: &str = "test master passphrase";
pub const HUMAN: &str = "test human passphrase";

/// A throwaway repository with a store in it.
pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// A new store, created through `graphex init`.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        bare(dir.path())
            .args(["init", "."])
            .env("GRAPHEX_PASSPHRASE", PASS)
            .env("GRAPHEX_HUMAN_PASSPHRASE", HUMAN)
            .assert()
            .success();
        Self { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `graphex --store ROOT` with no secrets (locked).
    pub fn locked(&self) -> Command {
        let mut c = bare(self.root());
        c.arg("--store").arg(self.root());
        c
    }

    /// `graphex --store ROOT` at master level.
    pub fn master(&self) -> Command {
        let mut c = self.locked();
        c.env("GRAPHEX_PASSPHRASE", PASS);
        c
    }

    /// `graphex --store ROOT` at human level.
    pub fn human(&self) -> Command {
        let mut c = self.master();
        c.env("GRAPHEX_HUMAN_PASSPHRASE", HUMAN);
        c
    }

    /// Runs a master-level command that must succeed.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.master().args(args).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    }

    /// The digest `config show` names the approval of `.gpp/config.toml`
    /// by, as it is now (none when it matches the settings in force).
    pub fn approval_digest(&self) -> Option<String> {
        let shown = self.json(self.master(), &["config", "show"]);
        shown["approval"].as_str().map(str::to_owned)
    }

    /// Approves `.gpp/config.toml` as a reviewer does without a terminal:
    /// `config approve --yes DIGEST` with the digest `config show` gives.
    pub fn approve_config(&self) -> String {
        match self.approval_digest() {
            Some(digest) => self.ok(&["config", "approve", "--yes", &digest]),
            None => self.ok(&["config", "approve"]),
        }
    }

    /// Runs a read with `--json` at the given level and parses it.
    pub fn json(&self, mut cmd: Command, args: &[&str]) -> serde_json::Value {
        cmd.arg("--json").args(args);
        json_of(cmd)
    }

    /// Adds one node per tier named after the tier, plus edges between them.
    pub fn with_four_tiers(self) -> Self {
        for tier in ["public", "agent-readable", "agent-restricted"] {
            self.ok(&[
                "add",
                "--type",
                "service",
                "--name",
                tier,
                "-d",
                &format!("{tier} words"),
                "--tier",
                tier,
            ]);
        }
        self.human()
            .args([
                "add",
                "--type",
                "decision",
                "--name",
                "human-only",
                "-d",
                "secret words",
                "--tier",
                "human-only",
            ])
            .assert()
            .success();
        self.ok(&["link", "public", "uses", "agent-readable"]);
        self
    }

    /// The agent identity's path, exported on first use.
    pub fn agent_identity_once(&self) -> PathBuf {
        let path = self.root().join("agent.id");
        if !path.exists() {
            self.ok(&["keys", "export-agent", path.to_str().unwrap()]);
        }
        path
    }

    /// Exports the agent identity and returns its path.
    pub fn agent_identity(&self) -> PathBuf {
        let path = self.root().join("agent.id");
        self.ok(&["keys", "export-agent", path.to_str().unwrap()]);
        path
    }
}

/// The state directory every test run of the binary uses (freshness
/// records and their backups): one per test process, emptied when the
/// first test asks for it, so nothing lands in the user's own.
pub fn state_dir() -> PathBuf {
    static CLEAN: std::sync::Once = std::sync::Once::new();
    let dir = std::env::temp_dir().join("graphex-cli-test-state");
    CLEAN.call_once(|| {
        let _ = std::fs::remove_dir_all(&dir);
    });
    dir
}

/// What a test run of the binary never inherits: a store, keys, how it
/// finds a session.
pub const INHERITED: [&str; 7] = [
    "GRAPHEX_STORE",
    "GRAPHEX_PASSPHRASE",
    "GRAPHEX_IDENTITY",
    "GRAPHEX_HUMAN_PASSPHRASE",
    "GRAPHEX_AGENT_IDENTITY",
    "GRAPHEX_NO_SESSION",
    "XDG_RUNTIME_DIR",
];

/// Makes this test process the leader of a session of its own, once, before
/// it starts any command: a terminal, as an unlock session tells terminals
/// apart. Where the runner's own session leader is not visible (a container's
/// pid namespace), `graphex unlock` could not tell which terminal it runs in.
/// Fails harmlessly when the process already leads a group.
pub fn own_session() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustix::process::setsid();
    });
}

/// Puts a copy of the demo store (as `graphex demo DIR --no-console` makes it)
/// in `dest`: the demo is built once per test process and copied, modes
/// kept, so the tests that only read it share the fixture.
pub fn demo_into(dest: &Path) {
    static TEMPLATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        bare(dir.path())
            .args(["demo", "demo", "--no-console"])
            .assert()
            .success();
        dir
    });
    copy_tree(&template.path().join("demo"), dest);
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::metadata(from).unwrap().permissions()).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The binary with every GRAPHEX_* variable cleared and a cheap KDF.
pub fn bare(cwd: &Path) -> Command {
    own_session();
    let mut c = Command::cargo_bin("graphex").unwrap();
    for var in INHERITED {
        c.env_remove(var);
    }
    c.env("GRAPHEX_TEST_KDF_LOG_N", "4")
        .env("GRAPHEX_STATE_DIR", state_dir())
        .current_dir(cwd);
    c
}

/// Runs `cmd` (which must succeed) and parses its stdout as JSON.
pub fn json_of(mut cmd: Command) -> serde_json::Value {
    let out = cmd.assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The names in a `list --json` result.
pub fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap().to_owned())
        .collect()
}
