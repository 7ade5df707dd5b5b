//! The session's end of a console's worker: the unlock session runs the
//! console's engine worker on its own keys and passes requests and replies
//! over the console's connection, a frame each, so the keys never leave
//! the session process. The console closing its end (or the session
//! ending) stops the worker once the decisions already asked for are made.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use graphex_engine::Credentials;

use super::{Reply, Request};
use crate::shared::frames::Channel;

/// The largest request read from a console (an edited proposal's text).
const MAX_REQUEST: usize = 64 << 20;

/// A console's worker running in the session.
pub struct Hosted {
    tx: Sender<Request>,
    stream: UnixStream,
    threads: Vec<JoinHandle<()>>,
    last_request: Arc<Mutex<Instant>>,
}

/// Hosts a worker for the console at the other end of `stream`, opening
/// the store at `root` with the session's `lent` master key (no KDF), else
/// with `creds`.
pub fn host(
    channel: Channel,
    root: PathBuf,
    creds: Credentials,
    lent: Option<graphex_engine::keys::LentKey>,
) -> std::io::Result<Hosted> {
    let Channel {
        stream,
        mut sending,
        mut receiving,
    } = channel;
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    let mut reading = stream.try_clone()?;
    let mut writing = stream.try_clone()?;
    let (reply_tx, mut replies) = tokio::sync::mpsc::unbounded_channel();
    let refusals = reply_tx.clone();
    let worker = super::spawn_lent(root, creds, lent, reply_tx);
    let tx = worker.tx.clone();
    let last_request = Arc::new(Mutex::new(Instant::now()));
    let touched = Arc::clone(&last_request);
    let reader = std::thread::Builder::new()
        .name("graphex-console-requests".into())
        .spawn(move || {
            loop {
                match receiving.receive::<Request>(&mut reading, MAX_REQUEST) {
                    Ok(req) => {
                        *touched.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
                        if let Some(why) = refused(&req) {
                            let _ = refusals.send(Reply::Failed(why));
                            continue;
                        }
                        if tx.send(req).is_err() {
                            return;
                        }
                    }
                    // The console closed (or sent what is not a request,
                    // or a frame without the channel's tag).
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
                let _ = sending.send(&mut writing, &reply);
            }
            let _ = writing.shutdown(Shutdown::Both);
        })?;
    Ok(Hosted {
        tx: worker.tx,
        stream,
        threads: vec![reader, worker.thread, writer],
        last_request,
    })
}

/// Why the session does not run `req` for a console: it never writes
/// decrypted content to a path, and never takes a passphrase (the console
/// unlocks in its own process).
fn refused(req: &Request) -> Option<String> {
    match req {
        Request::Export { file, .. } | Request::ExportQuery { file, .. } => Some(format!(
            "not written: {}: the unlock session never writes decrypted content to a file; lock the console (L) \
             and unlock it with your own key (U), or run `graphex export` with it",
            file.display()
        )),
        Request::Unlock { .. } => Some("the unlock session takes no passphrase: the console unlocks itself".into()),
        _ => None,
    }
}

impl Hosted {
    /// Whether the console has gone and its worker stopped.
    pub fn finished(&self) -> bool {
        self.threads.iter().all(JoinHandle::is_finished)
    }

    /// When the console last asked something (or connected).
    pub fn last_request(&self) -> Instant {
        *self.last_request.lock().unwrap_or_else(PoisonError::into_inner)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_is_written_and_no_passphrase_taken_for_a_console() {
        let export = |file: &str| Request::ExportQuery {
            text: "x -> *".into(),
            file: file.into(),
        };
        for file in ["out.json", "/tmp/out.json"] {
            let why = refused(&export(file)).expect("never written");
            assert!(
                why.contains(file) && why.contains("never writes decrypted content"),
                "{why}"
            );
        }
        let unlock = Request::Unlock {
            human: true,
            passphrase: graphex_engine::age_secret::SecretString::from("x"),
        };
        assert!(refused(&unlock).expect("refused").contains("takes no passphrase"));
        assert_eq!(refused(&Request::LoadQueue), None);
    }
}
