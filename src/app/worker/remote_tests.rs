//! A console's worker hosted by the unlock session, over a socket pair:
//! the console reads and decides with keys only the session holds, and
//! goes on without them when the session ends.

use std::path::Path;

use graphex_engine::age_secret::SecretString;
use graphex_engine::keys::LentKey;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{Source, Submission, submit};
use graphex_engine::{Credentials, KdfCost, Level, Store};
use tokio::sync::mpsc::UnboundedReceiver;

use super::remote::{SESSION_ENDED, THROUGH_SESSION};
use super::{Handle, Reply, Request, hosted, remote};

fn master() -> Credentials {
    Credentials {
        passphrase: Some(SecretString::from("p")),
        ..Credentials::default()
    }
}

/// The next reply for which `pick` gives something (earlier ones are
/// passed over: lints, queue reloads).
fn next<T>(rx: &mut UnboundedReceiver<Reply>, mut pick: impl FnMut(Reply) -> Option<T>) -> T {
    loop {
        let r = rx.blocking_recv().expect("the worker stopped");
        if let Some(t) = pick(r) {
            return t;
        }
    }
}

/// A new store (master passphrase `p`).
fn new_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (pass, human) = (SecretString::from("p"), SecretString::from("h"));
    Store::init(dir.path(), &pass, &human, KdfCost(Some(4))).unwrap();
    dir
}

/// A session's worker (on `creds`, or the `lent` key) and a console
/// talking to it.
fn connect(
    root: &Path,
    creds: Credentials,
    lent: Option<LentKey>,
) -> (hosted::Hosted, Handle, UnboundedReceiver<Reply>) {
    let (console_end, session_end) = crate::shared::frames::Channel::pair().unwrap();
    let session = hosted::host(session_end, root.to_path_buf(), creds, lent).unwrap();
    let (reply_tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let console = remote::remote(console_end, root.to_path_buf(), reply_tx).unwrap();
    (session, console, rx)
}

#[test]
fn a_console_through_the_session_decides_with_its_keys_and_goes_on_without_them_when_it_ends() {
    let dir = new_store();
    let id = {
        let mut store = Store::open(dir.path(), &master()).unwrap();
        let doc = serde_json::json!({"agent": "claude-code", "trust": 90, "session": "s", "rationale": "r",
            "changes": [{"op": "add_node", "name": "retry-budget", "type": "convention",
                "description": "three retries", "tier": "public"}]});
        let s = Submission::from_json(doc.to_string().as_bytes()).unwrap();
        submit(&mut store, &TrustPolicy::default(), s, Source::Cli)
            .unwrap()
            .to_string()
    };
    // The console holds no key: only the session does, and lends its
    // worker the master key it holds (no passphrase, no KDF).
    let lent = Store::open(dir.path(), &master()).unwrap().lend_key();
    let (session, console, mut rx) = connect(dir.path(), Credentials::none(), lent);
    console.tx.send(Request::Open).unwrap();
    assert_eq!(rx.blocking_recv(), Some(Reply::Done(THROUGH_SESSION.into())));
    let level = next(&mut rx, |r| match r {
        Reply::Opened { level, .. } => Some(level),
        _ => None,
    });
    assert_eq!(level, Level::Master);
    let queued = next(&mut rx, |r| match r {
        Reply::Queue(q) => Some(q.items.iter().map(|i| i.id.clone()).collect::<Vec<_>>()),
        _ => None,
    });
    assert_eq!(queued, std::slice::from_ref(&id));
    console.tx.send(Request::Accept { id, force: false }).unwrap();
    let done = next(&mut rx, |r| match r {
        Reply::Done(text) => Some(text),
        Reply::Failed(text) => panic!("accept failed: {text}"),
        _ => None,
    });
    assert!(done.contains("accepted"), "{done}");
    let written = Store::open(dir.path(), &master()).unwrap();
    assert!(written.summary("retry-budget").is_ok(), "the session's worker wrote it");

    // The session ends under the console: it says so and holds no keys.
    session.end();
    let said = next(&mut rx, |r| match r {
        Reply::Failed(text) => Some(text),
        _ => None,
    });
    assert_eq!(said, SESSION_ENDED);
    let level = next(&mut rx, |r| match r {
        Reply::Opened { level, .. } => Some(level),
        _ => None,
    });
    assert!(level < Level::Master, "{level:?}");
    // It still answers, from a worker of its own.
    console.tx.send(Request::SavedQueries).unwrap();
    next(&mut rx, |r| matches!(r, Reply::SavedList(_)).then_some(()));
    console.tx.send(Request::Shutdown).unwrap();
    drop(console.tx);
    console.thread.join().unwrap();
}

#[test]
fn a_closed_console_stops_its_worker_in_the_session() {
    let dir = new_store();
    let (session, console, mut rx) = connect(dir.path(), master(), None);
    console.tx.send(Request::Open).unwrap();
    let level = next(&mut rx, |r| match r {
        Reply::Opened { level, .. } => Some(level),
        _ => None,
    });
    assert_eq!(level, Level::Master, "opened with the session's credentials");
    console.tx.send(Request::Shutdown).unwrap();
    drop(console.tx);
    console.thread.join().unwrap();
    // Nothing is said of an ending the console asked for.
    while let Ok(r) = rx.try_recv() {
        assert_ne!(r, Reply::Failed(SESSION_ENDED.into()));
    }
    // The session's side stops on its own: its threads end.
    session.end();
}

/// An id sent over the socket is anything: one cut inside a character is
/// named, never a panic of the session's worker.
#[test]
fn a_failed_decision_names_any_id_whole_characters() {
    let dir = new_store();
    let (session, console, mut rx) = connect(dir.path(), master(), None);
    console.tx.send(Request::Open).unwrap();
    next(&mut rx, |r| matches!(r, Reply::Opened { .. }).then_some(()));
    let id = "a\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}";
    console
        .tx
        .send(Request::Reject {
            ids: vec![id.into()],
            reason: "no".into(),
        })
        .unwrap();
    let said = next(&mut rx, |r| match r {
        Reply::Failed(text) | Reply::Done(text) if text.contains("reject") => Some(text),
        _ => None,
    });
    assert!(said.contains("a\u{e9}\u{e9}"), "{said}");
    console.tx.send(Request::Shutdown).unwrap();
    drop(console.tx);
    console.thread.join().unwrap();
    session.end();
}

/// `U` on a console the session hosts: the passphrase stays in the
/// console's process, which leaves the session and unlocks its own worker.
#[test]
fn unlocking_leaves_the_session_and_no_passphrase_crosses_the_socket() {
    let dir = new_store();
    let (session, console, mut rx) = connect(dir.path(), master(), None);
    console.tx.send(Request::Open).unwrap();
    next(&mut rx, |r| matches!(r, Reply::Opened { .. }).then_some(()));
    // The session's end sees every frame the console sends from here on.
    console
        .tx
        .send(Request::Unlock {
            human: false,
            passphrase: SecretString::from("p"),
        })
        .unwrap();
    let said = next(&mut rx, |r| match r {
        Reply::Done(text) if text.contains("own process") => Some(text),
        _ => None,
    });
    assert_eq!(said, super::remote::UNLOCKS_ITSELF);
    // Its own worker opens keyless, then unlocks with the passphrase typed.
    let level = next(&mut rx, |r| match r {
        Reply::Unlocked(level) => Some(level),
        Reply::UnlockFailed(e) => panic!("{e}"),
        _ => None,
    });
    assert_eq!(level, Level::Master);
    // The session's worker stopped: the console closed its connection
    // before the passphrase went anywhere.
    session.end();
    console.tx.send(Request::Shutdown).unwrap();
    drop(console.tx);
    console.thread.join().unwrap();
    while let Ok(r) = rx.try_recv() {
        assert_ne!(
            r,
            Reply::Failed(SESSION_ENDED.into()),
            "leaving is not the session ending"
        );
    }
}
