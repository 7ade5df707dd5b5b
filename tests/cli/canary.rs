//! Terminal hygiene in a real terminal (tmux): a human-only canary shown by
//! the console is gone from the pane's history after quitting, and never in
//! the log file.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::bare;

const CANARY: &str = "canary-7d1e2f";

fn tmux(socket: &str, args: &[&str]) -> String {
    let out = Command::new("tmux").arg("-L").arg(socket).args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The pane as shown (`history`: with everything scrolled off above).
fn pane(socket: &str, history: bool) -> String {
    let mut args = vec!["capture-pane", "-p", "-t", "g"];
    if history {
        args.extend(["-S", "-"]);
    }
    tmux(socket, &args)
}

fn wait_for(socket: &str, what: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if pane(socket, false).contains(what) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what:?}:\n{}", pane(socket, false));
}

struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        tmux(&self.0, &["kill-server"]);
    }
}

fn store_with_a_human_only_canary(dir: &Path) {
    bare(dir).args(["demo", "store", "--no-console"]).assert().success();
    let human = |args: &[&str]| {
        bare(dir)
            .args(["--store", "store"])
            .args(args)
            .env("GRAPHEX_PASSPHRASE", "graphex-demo")
            .env("GRAPHEX_HUMAN_PASSPHRASE", "graphex-demo-human")
            .assert()
            .success();
    };
    human(&[
        "add",
        "--type",
        "decision",
        "--name",
        "payroll-secrets",
        "-d",
        &format!("{CANARY} human only"),
        "--tier",
        "human-only",
    ]);
    // A proposal to change it: its card shows the node as it stands.
    let p = dir.join("p.json");
    std::fs::write(
        &p,
        r#"{"agent":"claude-code","trust":95,"session":"zz-canary","rationale":"tidy",
            "changes":[{"op":"update_node","name":"payroll-secrets","set":{"description":"replaced"}}]}"#,
    )
    .unwrap();
    human(&["propose", p.to_str().unwrap()]);
}

#[test]
fn a_human_only_canary_leaves_no_trace_in_the_terminal_or_the_log() {
    let dir = tempfile::tempdir().unwrap();
    store_with_a_human_only_canary(dir.path());
    let state = dir.path().join("state");
    let socket = format!("graphex-test-{}", std::process::id());
    let _session = Session(socket.clone());
    let command = format!(
        "cd {} && env XDG_STATE_HOME={} GRAPHEX_PASSPHRASE=graphex-demo GRAPHEX_HUMAN_PASSPHRASE=graphex-demo-human \
         {} --store store; echo console-exited-$?; sleep 30",
        dir.path().display(),
        state.display(),
        env!("CARGO_BIN_EXE_graphex")
    );
    tmux(
        &socket,
        &["new-session", "-d", "-s", "g", "-x", "120", "-y", "36", &command],
    );
    wait_for(&socket, "human: every tier");
    wait_for(&socket, "[1/");
    tmux(&socket, &["send-keys", "-t", "g", "G"]);
    // The canary is on the screen: the checks below can fail.
    wait_for(&socket, CANARY);
    tmux(&socket, &["send-keys", "-t", "g", "q"]);
    wait_for(&socket, "console-exited-0");
    let history = pane(&socket, true);
    assert!(
        !history.contains(CANARY),
        "the pane's history holds the canary:\n{history}"
    );
    let log = std::fs::read_to_string(state.join("graphex/console.log")).unwrap();
    assert!(!log.is_empty(), "the console logged");
    assert!(!log.contains(CANARY), "the log holds the canary:\n{log}");
}
