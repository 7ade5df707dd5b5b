//! What a client and the session say to each other: one request and one
//! answer per connection, each a length-prefixed JSON frame
//! ([`crate::shared::frames`]). Requests are small; a frame over the limit
//! is refused before it is read. A console's connection goes on after the
//! answer: its worker's requests and replies, a frame each.
//!
//! The first frame is an [`Opening`]: the client's hello (a fresh X25519
//! public key). Every frame after it is encrypted under the channel key
//! only the holder of the store's master or agent key derives from that
//! hello ([`graphex_engine::keys::channel`]). The session proves itself
//! first ([`Answer::Ready`]: its nonce, and at the master level the
//! master's signature); the client sends its request only then, so a
//! process without the key that sits on the session's socket learns
//! nothing of it, and a client believes nothing it says.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::shared::frames::{receive, send};

/// The largest request the session reads.
pub const MAX_REQUEST: usize = 1 << 20;
/// The largest answer a client reads (an export of a large store).
pub const MAX_ANSWER: usize = 1 << 31;

/// A connection's first frame, sent before anything else: the session
/// answers it with [`Answer::Ready`] under the channel key, and only then
/// does the client send its request (tagged too).
#[derive(Debug, Serialize, Deserialize)]
pub struct Opening {
    /// The client's X25519 public key for this connection, hex.
    pub hello: String,
}

/// What a client asks.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// Run one operation in `cwd` on the store at `root` (`json`: the
    /// global `--json`).
    Op {
        op: super::ops::Op,
        json: bool,
        cwd: PathBuf,
        root: PathBuf,
    },
    /// What the session holds.
    Status,
    /// Host a console's engine worker on the store at `root`: after
    /// [`Answer::Console`] the connection carries the worker's requests and
    /// replies until the console closes it.
    Console { root: PathBuf },
    /// Serve MCP for `agent` from the store at `root` (an agent-level session only):
    /// after [`Answer::Mcp`] the connection carries the protocol's lines.
    Mcp {
        root: PathBuf,
        agent: crate::mcp::AgentConfig,
    },
    /// End the session now.
    Lock,
}

/// What the session answers.
#[derive(Debug, Serialize, Deserialize)]
pub enum Answer {
    /// The session holds the store's key (the key that opens this frame
    /// says which): ask. `nonce` (hex) is mixed into the key for the rest
    /// of the connection; `signature` (hex) is the master's over the
    /// exchange ([`graphex_engine::keys::channel::ready_message`]), from a
    /// master session.
    Ready {
        nonce: String,
        signature: Option<String>,
    },
    /// The command ran: its exit status and what it printed.
    Ran {
        code: u8,
        stdout: String,
        stderr: String,
    },
    Status(Info),
    Locked,
    /// The session hosts the console's worker from here on.
    Console,
    /// The session serves MCP on this connection from here on.
    Mcp,
    /// The session will not run it (the client runs it itself), and why.
    Declined(String),
}

/// What `graphex session` shows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Info {
    pub root: PathBuf,
    pub level: String,
    pub pid: u32,
    /// RFC 3339.
    pub since: String,
    pub idle_limit_secs: u64,
    pub idle_left_secs: u64,
    pub commit: u64,
    pub nodes: usize,
    pub requests: u64,
    /// The consoles running on this session's keys.
    #[serde(default)]
    pub consoles: usize,
    /// The MCP servers (`graphex mcp`) it runs.
    #[serde(default)]
    pub mcp_servers: usize,
    /// The terminal it serves (`None`: any process of the user).
    #[serde(default)]
    pub terminal: Option<String>,
    /// Whether the session's memory is locked against swapping, and if not why.
    pub memory: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_oversized_ones_are_refused() {
        let mut buf = Vec::new();
        send(&mut buf, &Request::Status).expect("send");
        let back: Request = receive(&mut buf.as_slice(), MAX_REQUEST).expect("receive");
        assert!(matches!(back, Request::Status));
        let mut big = Vec::new();
        big.extend_from_slice(&u32::try_from(MAX_REQUEST + 1).expect("fits").to_be_bytes());
        let e = receive::<Request>(&mut big.as_slice(), MAX_REQUEST).expect_err("too big");
        assert!(e.to_string().contains("the limit"), "{e}");
        let e = receive::<Request>(&mut [0u8, 0, 0, 2, b'{'].as_slice(), MAX_REQUEST).expect_err("cut");
        assert!(e.to_string().contains("ended early"), "{e}");
    }
}
