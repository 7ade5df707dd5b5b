//! An MCP server run by the unlock session: the session opens the store
//! with its own key and serves MCP over the client's connection, which
//! `graphex mcp` relays to and from its stdio, so the key never enters the
//! process the agent runtime started. The client closing its end, or the
//! session ending, stops the server.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Instant;

use graphex_engine::Store;
use tokio::io::{AsyncRead, ReadBuf};

use super::AgentConfig;
use super::transport::BoundedStdio;

/// An MCP server running in the session.
pub struct HostedMcp {
    stream: UnixStream,
    thread: JoinHandle<()>,
    last_request: Arc<Mutex<Instant>>,
}

/// The client's side of the connection, noting when it last sent bytes.
struct Touching<R> {
    inner: R,
    last: Arc<Mutex<Instant>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Touching<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        }
        polled
    }
}

/// Serves MCP from `store` for `agent` on `stream`, on a thread of its own.
pub fn host(stream: UnixStream, store: Store, agent: AgentConfig) -> std::io::Result<HostedMcp> {
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    let kept = stream.try_clone()?;
    let last_request = Arc::new(Mutex::new(Instant::now()));
    let last = Arc::clone(&last_request);
    let thread = std::thread::Builder::new()
        .name("graphex-mcp-hosted".into())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            runtime.block_on(async move {
                if stream.set_nonblocking(true).is_err() {
                    return;
                }
                let Ok(stream) = tokio::net::UnixStream::from_std(stream) else {
                    return;
                };
                let (read, write) = stream.into_split();
                let read = Touching { inner: read, last };
                let transport = BoundedStdio::over(read, write, agent.max_message);
                let _ = super::server::run_on(store, agent, transport).await;
            });
            runtime.shutdown_background();
        })?;
    Ok(HostedMcp {
        stream: kept,
        thread,
        last_request,
    })
}

impl HostedMcp {
    /// Whether the client has gone and the server stopped.
    pub fn finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// When the client last sent something (or connected).
    pub fn last_request(&self) -> Instant {
        *self.last_request.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Cuts the client off and waits for the server to stop.
    pub fn end(self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        let _ = self.thread.join();
    }
}
