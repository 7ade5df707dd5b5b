//! The console's end of a worker hosted by the unlock session: requests go
//! to the session as frames and its replies come back, so the console
//! reads and decides with the session's keys without ever holding them.
//! When the session ends under it (locked, idle, a store that no longer
//! verifies), the console says so and goes on with a worker of its own
//! that holds no keys, as after `Lock`: unlocking asks for a passphrase.

use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};

use graphex_engine::Credentials;
use tokio::sync::mpsc::UnboundedSender;

use super::{Handle, Reply, Request};
use crate::shared::frames::{Channel, Tagged};

/// The largest reply read from the session (a queue of large proposals).
const MAX_REPLY: usize = 1 << 31;

/// What the console says when the session ends under it.
pub const SESSION_ENDED: &str = "the unlock session ended (locked, idle, or the store no longer verifies): the \
                                 console holds no keys now; a decision sent just before may or may not have been \
                                 made (the timeline shows); unlock to go on";

/// Said once the session hosts the worker.
pub const THROUGH_SESSION: &str = "through the unlock session: its keys stay in the session";

/// Said when the console leaves the session to unlock in its own process.
pub const UNLOCKS_ITSELF: &str = "the console unlocks in its own process (no passphrase goes to the unlock session): \
                                  it left the session and holds no keys now; human-only needs the master key as \
                                  well: U asks for the master passphrase, then U again for human-only";

/// What the two threads share, under one lock: whether the console is
/// closing (then the session's end is expected), and the worker that took
/// over when the session ended.
#[derive(Default)]
struct Shared {
    closing: bool,
    own: Option<Handle>,
}

/// A worker hosted by the session at the other end of `stream` (which has
/// already accepted the console); replies go to `reply`. `root` is where
/// a worker of the console's own opens the store if the session ends.
pub fn remote(channel: Channel, root: PathBuf, reply: UnboundedSender<Reply>) -> std::io::Result<Handle> {
    let Channel {
        stream,
        sending,
        receiving,
    } = channel;
    let (tx, rx) = std::sync::mpsc::channel();
    let reading = stream.try_clone()?;
    let shared = Arc::new(Mutex::new(Shared::default()));
    let own_root = root.clone();
    let _ = reply.send(Reply::Done(THROUGH_SESSION.into()));
    let reader = {
        let (shared, reply) = (Arc::clone(&shared), reply.clone());
        std::thread::Builder::new()
            .name("graphex-session-replies".into())
            .spawn(move || read_replies(reading, receiving, &reply, &shared, own_root))?
    };
    let thread = std::thread::Builder::new()
        .name("graphex-session-requests".into())
        .spawn(move || {
            forward(&rx, stream, sending, &shared, &reply, &root);
            // The session finishes the decisions already sent, then closes.
            let _ = reader.join();
            let own = lock(&shared).own.take();
            if let Some(own) = own {
                drop(own.tx);
                let _ = own.thread.join();
            }
        })?;
    Ok(Handle { tx, thread })
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends each request to the session, or to the console's own worker once
/// the session has ended (or the console left it to unlock itself); a
/// request the session can no longer take is answered as failed.
fn forward(
    rx: &Receiver<Request>,
    mut stream: UnixStream,
    mut sending: Tagged,
    shared: &Mutex<Shared>,
    reply: &UnboundedSender<Reply>,
    root: &std::path::Path,
) {
    let cwd = std::env::current_dir().ok();
    for mut req in rx {
        // A file named here is the console's, not the session's directory's.
        if let (Request::Export { file, .. } | Request::ExportQuery { file, .. }, Some(cwd)) = (&mut req, &cwd)
            && file.is_relative()
        {
            *file = cwd.join(&*file);
        }
        let mut shared = lock(shared);
        if matches!(req, Request::Shutdown) {
            shared.closing = true;
        }
        if shared.own.is_none()
            && let Request::Unlock { human, .. } = &req
        {
            // A passphrase never crosses the socket: the console leaves the
            // session and unlocks a worker of its own.
            let human = *human;
            let _ = stream.shutdown(std::net::Shutdown::Both);
            let own = super::spawn(root.to_path_buf(), Credentials::none(), reply.clone());
            let _ = own.tx.send(Request::Open);
            let _ = reply.send(Reply::Done(UNLOCKS_ITSELF.into()));
            if !human {
                let _ = own.tx.send(req);
            }
            shared.own = Some(own);
            continue;
        }
        match shared.own.as_ref() {
            Some(own) => {
                let _ = own.tx.send(req);
            }
            None => {
                if sending.send(&mut stream, &req).is_err() && !shared.closing {
                    let _ = reply.send(Reply::Failed(format!(
                        "not done ({}): the unlock session is gone",
                        req.kind()
                    )));
                }
            }
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// Passes the session's replies on; when it ends while the console still
/// runs, starts a worker of the console's own with no keys.
fn read_replies(
    mut stream: UnixStream,
    mut receiving: Tagged,
    reply: &UnboundedSender<Reply>,
    shared: &Mutex<Shared>,
    root: PathBuf,
) {
    loop {
        match receiving.receive::<Reply>(&mut stream, MAX_REPLY) {
            Ok(r) => {
                if reply.send(r).is_err() {
                    return;
                }
            }
            Err(_) => {
                let mut shared = lock(shared);
                if shared.closing || shared.own.is_some() {
                    return;
                }
                let _ = reply.send(Reply::Failed(SESSION_ENDED.into()));
                let handle = super::spawn(root, Credentials::none(), reply.clone());
                let _ = handle.tx.send(Request::Open);
                shared.own = Some(handle);
                return;
            }
        }
    }
}
