//! An MCP server run by the unlock session for a trusted local runtime
//! (`graphex mcp --local`): the session opens the store with its own keys
//! and serves MCP over the client's connection, which `graphex mcp` relays
//! to and from its stdio, so the keys never enter the process the agent
//! runtime started. The client closing its end, or the session ending,
//! stops the server.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;

use graphex_engine::Store;

use super::AgentConfig;
use super::transport::BoundedStdio;

/// An MCP server running in the session.
pub struct HostedMcp {
    stream: UnixStream,
    thread: JoinHandle<()>,
}

/// Serves MCP from `store` for `agent` on `stream`, on a thread of its own.
pub fn host(stream: UnixStream, store: Store, agent: AgentConfig) -> std::io::Result<HostedMcp> {
    stream.set_read_timeout(None)?;
    let kept = stream.try_clone()?;
    let thread = std::thread::Builder::new()
        .name("graphex-mcp-hosted".into())
        .spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
            else {
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
                let transport = BoundedStdio::over(read, write, agent.max_message);
                let _ = super::server::run_on(store, agent, transport).await;
            });
            runtime.shutdown_background();
        })?;
    Ok(HostedMcp { stream: kept, thread })
}

impl HostedMcp {
    /// Whether the client has gone and the server stopped.
    pub fn finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Cuts the client off and waits for the server to stop.
    pub fn end(self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        let _ = self.thread.join();
    }
}
