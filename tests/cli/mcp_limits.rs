//! The MCP server's stdio transport against an oversized message: the real
//! binary, raw lines in and out. A line over the cap gets a JSON-RPC error
//! naming the cap (with the request's id when its head carries one), and
//! the requests after it are answered as usual.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::Repo;

/// The server with piped stdio, and its stdout as a stream of parsed lines.
pub(crate) struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
}

impl Server {
    /// The server, initialised as a client does.
    pub(crate) fn start(repo: &Repo, extra: &[&str]) -> Self {
        let mut s = Self::spawn(repo, extra);
        s.send(&json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        assert_eq!(s.next()["id"], 1, "initialised");
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s
    }

    /// The server, nothing sent yet.
    pub(crate) fn spawn(repo: &Repo, extra: &[&str]) -> Self {
        Self::spawn_with(repo, extra, true)
    }

    /// The server with the agent identity, or with no key at all.
    pub(crate) fn spawn_with(repo: &Repo, extra: &[&str], identity: bool) -> Self {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("graphex"));
        if identity {
            command.env("GRAPHEX_AGENT_IDENTITY", repo.agent_identity_once());
        } else {
            command.env_remove("GRAPHEX_AGENT_IDENTITY");
        }
        command
            .arg("--store")
            .arg(repo.root())
            .args(["mcp", "--agent", "claude-code", "--trust", "94"])
            .args(extra);
        Self::run(command)
    }

    /// `command` (a server's command line) started with a clean
    /// environment but for what it sets itself, its stdio piped.
    pub(crate) fn run(mut command: Command) -> Self {
        let mut child = command
            .env_remove("GRAPHEX_PASSPHRASE")
            .env_remove("GRAPHEX_IDENTITY")
            .env_remove("GRAPHEX_HUMAN_PASSPHRASE")
            .env_remove("GRAPHEX_MCP_MAX_MESSAGE")
            .env("GRAPHEX_TEST_KDF_LOG_N", "4")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str::<Value>(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        Self { child, stdin, lines }
    }

    pub(crate) fn send(&mut self, v: &Value) {
        self.raw(format!("{v}\n").as_bytes());
    }

    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message the server writes (a generous bound, so a hang
    /// fails the test instead of stalling it).
    pub(crate) fn next(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answered")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `tools/call` request with id `id` whose line is `len` bytes long.
fn request_of_len(id: u64, len: usize) -> Vec<u8> {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"graphex_status","arguments":{{"pad":""#
    );
    let tail = "\"}}}\n";
    let mut line = head.into_bytes();
    line.resize(len - tail.len(), b'a');
    line.extend_from_slice(tail.as_bytes());
    assert_eq!(line.len(), len);
    line
}

fn assert_oversized_error(v: &Value, id: Value, cap: usize) {
    assert_eq!(v["id"], id, "{v}");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("{cap} bytes")), "{message}");
}

#[test]
fn an_oversized_message_gets_an_error_and_the_next_request_an_answer() {
    let repo = Repo::new();
    let cap = 64 * 1024;
    let mut s = Server::start(&repo, &["--max-message", &cap.to_string()]);
    // Just under the cap (the newline not counted): served.
    s.raw(&request_of_len(2, cap + 1));
    let ok = s.next();
    assert_eq!(ok["id"], 2, "{ok}");
    assert!(ok["result"].is_object(), "{ok}");
    // Over it: an error with the request's id, then the server reads on.
    s.raw(&request_of_len(3, cap + 2));
    assert_oversized_error(&s.next(), json!(3), cap);
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    let listed = s.next();
    assert_eq!(listed["id"], 4, "{listed}");
    assert!(listed["result"]["tools"].as_array().unwrap().len() > 3, "{listed}");
    // No id in the head (it comes last): the error carries a null id.
    let mut late_id = br#"{"jsonrpc":"2.0","method":"tools/list","params":{"pad":""#.to_vec();
    late_id.resize(2 * cap, b'b');
    late_id.extend_from_slice(br#""},"id":5}"#);
    late_id.push(b'\n');
    s.raw(&late_id);
    assert_oversized_error(&s.next(), Value::Null, cap);
    s.send(&json!({"jsonrpc":"2.0","id":6,"method":"ping"}));
    assert_eq!(s.next()["id"], 6);
}

#[test]
fn the_default_cap_is_16_mib() {
    let repo = Repo::new();
    let cap = 16 * 1024 * 1024;
    let mut s = Server::start(&repo, &[]);
    s.raw(&request_of_len(2, cap + 2));
    assert_oversized_error(&s.next(), json!(2), cap);
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
    assert_eq!(s.next()["id"], 3);
}
