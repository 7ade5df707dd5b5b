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

/// The process whose parent is `parent` (the console under a shell).
fn child_of(parent: u32) -> u32 {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // pid (comm) state ppid ...: the name may hold spaces.
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
            if ppid == parent {
                return entry.file_name().to_str().unwrap().parse().unwrap();
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no child of {parent}");
}

fn kill(signal: &str, pid: u32) {
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn a_signal_wipes_the_screen_and_restores_the_terminal() {
    for signal in ["TERM", "HUP", "INT", "QUIT"] {
        let dir = tempfile::tempdir().unwrap();
        store_with_a_human_only_canary(dir.path());
        let graphex = env!("CARGO_BIN_EXE_graphex");
        // A shell runs the console, then shows the terminal's mode: raw
        // mode left on would show as `-icanon -echo`.
        let mut c = crate::pty::Console::start(
            Path::new("/bin/sh"),
            dir.path(),
            &[
                "-c",
                r#""$0" --store store; echo console-exited-$?; stty -a; sleep 30"#,
                graphex,
            ],
            &[
                ("GRAPHEX_PASSPHRASE", "graphex-demo"),
                ("GRAPHEX_HUMAN_PASSPHRASE", "graphex-demo-human"),
            ],
            120,
            36,
        );
        c.wait_for("[1/");
        c.send("G");
        c.wait_for(CANARY);
        kill(signal, child_of(c.pid()));
        c.wait_for("console-exited-1");
        c.wait_for("icanon");
        let screen = c.screen();
        assert!(!screen.contains(CANARY), "SIG{signal} left the canary:\n{screen}");
        assert!(
            screen.contains(" icanon") && screen.contains(" echo "),
            "SIG{signal} left raw mode:\n{screen}"
        );
        c.restored().unwrap_or_else(|e| panic!("SIG{signal}: {e}"));
    }
}

/// Runs the console on a human-only canary in tmux, shows the canary and
/// returns the session and the shell's process id.
fn console_in_tmux(dir: &Path) -> (Session, String) {
    store_with_a_human_only_canary(dir);
    let socket = format!(
        "graphex-test-{}-{}",
        std::process::id(),
        dir.file_name().unwrap().to_str().unwrap()
    );
    let session = Session(socket.clone());
    let command = format!(
        "cd {} && env XDG_STATE_HOME={} GRAPHEX_PASSPHRASE=graphex-demo GRAPHEX_HUMAN_PASSPHRASE=graphex-demo-human \
         {} --store store; echo console-exited-$?; sleep 30",
        dir.display(),
        dir.join("state").display(),
        env!("CARGO_BIN_EXE_graphex")
    );
    tmux(
        &socket,
        &["new-session", "-d", "-s", "g", "-x", "120", "-y", "36", &command],
    );
    wait_for(&socket, "[1/");
    tmux(&socket, &["send-keys", "-t", "g", "G"]);
    wait_for(&socket, CANARY);
    (session, socket)
}

#[test]
fn lock_in_tmux_drops_the_keys_and_clears_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    let (_session, socket) = console_in_tmux(dir.path());
    tmux(&socket, &["send-keys", "-t", "g", "L"]);
    wait_for(&socket, "locked");
    let shown = pane(&socket, true);
    assert!(!shown.contains(CANARY), "the canary stayed after locking:\n{shown}");
    assert!(!shown.contains("could not be read"), "{shown}");
    assert!(!shown.contains("console-exited"), "locking ended the console:\n{shown}");
    tmux(&socket, &["send-keys", "-t", "g", "q"]);
    wait_for(&socket, "console-exited-0");
}

#[test]
fn sigterm_in_tmux_leaves_no_canary_in_the_pane_or_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let (_session, socket) = console_in_tmux(dir.path());
    let shell: u32 = tmux(&socket, &["display", "-p", "-t", "g", "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap();
    kill("TERM", child_of(shell));
    wait_for(&socket, "console-exited-1");
    let history = pane(&socket, true);
    assert!(
        !history.contains(CANARY),
        "the pane's history holds the canary:\n{history}"
    );
    assert!(history.contains("stopped by SIGTERM"), "{history}");
}
