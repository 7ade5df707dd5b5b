//! The session's end of a console's worker: the unlock session runs the
//! console's engine worker on its own keys and passes requests and replies
//! over the console's connection, a frame each, so the keys never leave
//! the session process. The console closing its end (or the session
//! ending) stops the worker once the decisions already asked for are made.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;

use graphex_engine::Credentials;

use super::Request;
use crate::shared::frames;

/// The largest request read from a console (an edited proposal's text).
const MAX_REQUEST: usize = 64 << 20;

/// A console's worker running in the session.
pub struct Hosted {
    tx: Sender<Request>,
    stream: UnixStream,
    threads: Vec<JoinHandle<()>>,
}

/// Hosts a worker for the console at the other end of `stream`, opening
/// the store at `root` with the session's `lent` master key (no KDF), else
/// with `creds`.
pub fn host(
    stream: UnixStream,
    root: PathBuf,
    creds: Credentials,
    lent: Option<graphex_engine::keys::LentKey>,
) -> std::io::Result<Hosted> {
    stream.set_read_timeout(None)?;
    let mut reading = stream.try_clone()?;
    let mut writing = stream.try_clone()?;
    let (reply_tx, mut replies) = tokio::sync::mpsc::unbounded_channel();
    let worker = super::spawn_lent(root, creds, lent, reply_tx);
    let tx = worker.tx.clone();
    let reader = std::thread::Builder::new()
        .name("graphex-console-requests".into())
        .spawn(move || {
            loop {
                match frames::receive::<Request>(&mut reading, MAX_REQUEST) {
                    Ok(req) => {
                        if tx.send(req).is_err() {
                            return;
                        }
                    }
                    // The console closed (or sent what is not a request).
                    Err(_) => {
                        let _ = tx.send(Request::Shutdown);
                        return;
                    }
                }
            }
        })?;
    let writer = std::thread::Builder::new()
        .name("graphex-console-replies".into())
        .spawn(move || {
            // Until the worker stops; a console gone away reads nothing more.
            while let Some(reply) = replies.blocking_recv() {
                let _ = frames::send(&mut writing, &reply);
            }
            let _ = writing.shutdown(Shutdown::Both);
        })?;
    Ok(Hosted {
        tx: worker.tx,
        stream,
        threads: vec![reader, worker.thread, writer],
    })
}

impl Hosted {
    /// Whether the console has gone and its worker stopped.
    pub fn finished(&self) -> bool {
        self.threads.iter().all(JoinHandle::is_finished)
    }

    /// Stops the worker (after the decisions already asked for) and cuts
    /// the console off; waits for its threads.
    pub fn end(self) {
        let _ = self.tx.send(Request::Shutdown);
        let _ = self.stream.shutdown(Shutdown::Both);
        drop(self.tx);
        for t in self.threads {
            let _ = t.join();
        }
    }
}
