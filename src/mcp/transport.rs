//! The stdio transport, with a cap on each incoming message. One JSON-RPC
//! message is one line; a line longer than the cap is never held: its head
//! is kept (for the request's id), the rest read and dropped, and the
//! client gets a JSON-RPC error (-32600, naming the cap) while the server
//! reads on. A reader task owns stdin and hands whole, parsed messages to
//! the service, so a message is never lost to a cancelled receive.
//! Unparsable lines are ignored, as rmcp and the other MCP SDKs do (an
//! answer to garbage can start an error storm with a peer that echoes it).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, mpsc};

use super::head_id::{HEAD_BYTES, head_id};

/// The default cap on one incoming message, in bytes (without its newline).
pub const DEFAULT_MAX_MESSAGE: usize = 16 * 1024 * 1024;

type Out = Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// rmcp's view of the bounded transport.
pub struct BoundedStdio {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: Out,
}

impl BoundedStdio {
    /// Serves on the process's stdin and stdout, each message at most
    /// `max` bytes. Must be called inside a Tokio runtime.
    pub fn new(max: usize) -> Self {
        Self::over(tokio::io::stdin(), tokio::io::stdout(), max)
    }

    /// Serves on `input` and `output` (a session's socket).
    pub fn over(
        input: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
        max: usize,
    ) -> Self {
        let out: Out = Arc::new(Mutex::new(Box::new(output)));
        // One message waits at a time: the reader stays at most one line ahead.
        let (tx, incoming) = mpsc::channel(1);
        tokio::spawn(read_messages(BufReader::new(input), max, tx, out.clone()));
        Self { incoming, out }
    }
}

/// Writes one message as a line, whole, under the lock.
async fn write(out: &Out, message: &TxJsonRpcMessage<RoleServer>) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&line).await?;
    out.flush().await
}

impl Transport<RoleServer> for BoundedStdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move { write(&out, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// One line read within the cap.
enum Frame {
    Line(Vec<u8>),
    /// Longer than the cap: how many bytes were read of it, and its id.
    Oversized {
        read: usize,
        id: Option<RequestId>,
    },
}

/// Reads messages until stdin ends or the service stops listening.
async fn read_messages(
    mut input: impl AsyncBufRead + Unpin,
    max: usize,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    out: Out,
) {
    let mut gate = Gate::default();
    loop {
        let frame = match next_frame(&mut input, max).await {
            Ok(Some(f)) => f,
            Ok(None) => return,
            Err(e) => {
                tracing::error!("mcp: reading stdin failed: {e}");
                return;
            }
        };
        let (id, problem) = match frame {
            Frame::Line(line) => match parse(&line) {
                Parsed::Message(m) => match gate.admit(&m) {
                    Admit::Forward => {
                        if tx.send(m.message).await.is_err() {
                            return;
                        }
                        continue;
                    }
                    Admit::Drop => continue,
                    Admit::Refuse(problem) => (m.id, problem),
                },
                Parsed::Ignored => continue,
                Parsed::Refused { id, problem } => (id, problem),
            },
            Frame::Oversized { read, id } => {
                tracing::warn!("mcp: a message of {read} bytes was dropped (cap {max})");
                let problem = format!(
                    "message too large: {read} bytes; this server reads at most {max} bytes a message \
                     (--max-message); the message was dropped"
                );
                (id, problem)
            }
        };
        if write_line(&out, &refusal(id, problem)).await.is_err() {
            return;
        }
    }
}

/// An Invalid Request error answering `id`, or with `"id": null` when the
/// request's id could not be read (as JSON-RPC 2.0 requires: an error
/// always has an id member).
fn refusal(id: Option<RequestId>, problem: String) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": ErrorData::invalid_request(problem, None),
    })
}

/// Writes one JSON value as a line, whole, under the lock.
async fn write_line(out: &Out, value: &serde_json::Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(value)?;
    line.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&line).await?;
    out.flush().await
}

/// What the server accepts before the client's `initialize`: `initialize`
/// itself, `ping` (the spec allows it), and requests that carry their own
/// protocol metadata (the stateless lifecycle). Any other request is
/// answered "initialize first"; a notification is dropped (one reaching
/// the service before `initialize` would end it).
#[derive(Default)]
struct Gate {
    initialized: bool,
}

enum Admit {
    Forward,
    Drop,
    Refuse(String),
}

impl Gate {
    fn admit(&mut self, m: &Message) -> Admit {
        if self.initialized {
            return Admit::Forward;
        }
        match (m.method.as_deref(), &m.id) {
            (Some("initialize"), Some(_)) => {
                self.initialized = true;
                Admit::Forward
            }
            (Some("ping"), Some(_)) => Admit::Forward,
            (Some(_), Some(_)) if m.inline_metadata => Admit::Forward,
            (Some(method), Some(_)) => {
                Admit::Refuse(format!("initialize first: send an initialize request before {method}"))
            }
            _ => {
                tracing::debug!("mcp: dropping a notification or response sent before initialize");
                Admit::Drop
            }
        }
    }
}

/// The next line (without its `\n` and a `\r` before it), or `None` at the
/// end of input. A line over `max` bytes (a `\r` counted) is read to its
/// end and dropped, keeping only its head.
async fn next_frame(input: &mut (impl AsyncBufRead + Unpin), max: usize) -> std::io::Result<Option<Frame>> {
    let mut line = Vec::new();
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            // A last line without a newline is still a message.
            return Ok((!line.is_empty()).then_some(Frame::Line(line)));
        }
        let newline = buf.iter().position(|b| *b == b'\n');
        let body = newline.unwrap_or(buf.len());
        if line.len() + body > max {
            return Ok(Some(skip_line(input, line).await?));
        }
        line.extend_from_slice(&buf[..body]);
        input.consume(newline.map_or(body, |n| n + 1));
        if newline.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(Frame::Line(line)));
        }
    }
}

/// Reads the rest of an oversized line whose first bytes are `head`,
/// keeping at most [`HEAD_BYTES`] of it to find its id.
async fn skip_line(input: &mut (impl AsyncBufRead + Unpin), mut head: Vec<u8>) -> std::io::Result<Frame> {
    let mut read = head.len();
    head.truncate(HEAD_BYTES);
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            break;
        }
        let newline = buf.iter().position(|b| *b == b'\n');
        let body = newline.unwrap_or(buf.len());
        let room = HEAD_BYTES.saturating_sub(head.len());
        head.extend_from_slice(&buf[..body.min(room)]);
        read += body;
        input.consume(newline.map_or(body, |n| n + 1));
        if newline.is_some() {
            break;
        }
    }
    Ok(Frame::Oversized {
        read,
        id: head_id(&head),
    })
}

/// A message with what the gate needs to know of it.
struct Message {
    message: RxJsonRpcMessage<RoleServer>,
    method: Option<String>,
    /// The request's id (`None`: a notification or a response's absent id).
    id: Option<RequestId>,
    /// It carries the protocol version in its `_meta`.
    inline_metadata: bool,
}

enum Parsed {
    Message(Box<Message>),
    Ignored,
    /// Answered with an Invalid Request error (`id: None` is sent as null).
    Refused {
        id: Option<RequestId>,
        problem: String,
    },
}

/// A line as a message. Not JSON at all, or a notification this server
/// does not know: ignored. A batch, an id that is neither a string nor an
/// integer, or JSON that is no message: an Invalid Request error, with the
/// id when it could be read.
fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Ignored;
    }
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            tracing::debug!("mcp: ignoring a line that is not JSON: {e}");
            return Parsed::Ignored;
        }
    };
    if value.is_array() {
        return Parsed::Refused {
            id: None,
            problem: "a batch is not served: send each request as a line of its own".into(),
        };
    }
    let method = value
        .get("method")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    let id = match value.get("id") {
        None => None,
        Some(raw) => match serde_json::from_value::<RequestId>(raw.clone()) {
            Ok(id) => Some(id),
            Err(_) => {
                return Parsed::Refused {
                    id: None,
                    problem: format!("the id {raw} is neither a string nor an integer"),
                };
            }
        },
    };
    let inline_metadata = value
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .is_some();
    match serde_json::from_value(value) {
        Ok(message) => Parsed::Message(Box::new(Message {
            message,
            method,
            id,
            inline_metadata,
        })),
        Err(e) if id.is_none() && method.is_some() => {
            tracing::debug!("mcp: ignoring an unknown notification: {e}");
            Parsed::Ignored
        }
        Err(e) => Parsed::Refused {
            id,
            problem: format!("not a request this server understands: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<String> {
        let mut r = BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        while let Some(f) = next_frame(&mut r, max).await.unwrap() {
            out.push(match f {
                Frame::Line(l) => String::from_utf8(l).unwrap(),
                Frame::Oversized { read, id } => format!("oversized {read} {id:?}"),
            });
        }
        out
    }

    #[tokio::test]
    async fn lines_are_cut_at_the_cap_and_the_reader_goes_on() {
        let input = b"12345\r\n123456\n{\"id\":9,\"x\":\"long\"}\nok\nlast";
        assert_eq!(
            frames(input, 6).await,
            ["12345", "123456", "oversized 19 Some(Number(9))", "ok", "last"]
        );
        assert_eq!(frames(b"1234567", 6).await, ["oversized 7 None"]);
        assert_eq!(frames(b"", 6).await, Vec::<String>::new());
    }

    #[test]
    fn parsing_ignores_garbage_and_unknown_notifications_and_names_bad_requests() {
        assert!(matches!(parse(b"not json"), Parsed::Ignored));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":3}"#),
            Parsed::Ignored
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":3}"#),
            Parsed::Refused {
                id: Some(RequestId::Number(4)),
                ..
            }
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Parsed::Message(_)
        ));
        // An id that is no id, and a batch: refused, answered with a null id.
        for bad in [
            &br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#[..],
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        ] {
            match parse(bad) {
                Parsed::Refused { id: None, problem } => {
                    let answer = refusal(None, problem).to_string();
                    assert!(answer.contains(r#""id":null"#), "{answer}");
                }
                _ => panic!("{} was not refused", String::from_utf8_lossy(bad)),
            }
        }
    }

    #[test]
    fn before_initialize_only_initialize_and_ping_pass_and_requests_are_told_why() {
        let message = |line: &[u8]| match parse(line) {
            Parsed::Message(m) => m,
            _ => panic!("{}", String::from_utf8_lossy(line)),
        };
        let mut gate = Gate::default();
        let call = message(br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}"#);
        assert!(matches!(gate.admit(&call), Admit::Refuse(p) if p.starts_with("initialize first")));
        let note = message(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(matches!(gate.admit(&note), Admit::Drop));
        let ping = message(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        assert!(matches!(gate.admit(&ping), Admit::Forward));
        let init = message(
            br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        );
        assert!(matches!(gate.admit(&init), Admit::Forward));
        assert!(matches!(gate.admit(&call), Admit::Forward));
        assert!(matches!(gate.admit(&note), Admit::Forward));
    }
}
