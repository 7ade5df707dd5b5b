//! The session process: it holds one verified store and answers its owner's
//! requests one at a time, running each command exactly as the CLI would
//! on a store it opened itself (same code, same output, same writes).
//! Before each command it makes sure the store is still the one on disk:
//! a replaced file is opened again (and verified), another process's commit
//! is read, a store that no longer verifies ends the session.

use std::cell::RefCell;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use graphex_engine::keys::channel::{self, Direction};
use graphex_engine::model::Timestamp;
use graphex_engine::{Credentials, Level, Store};

use super::ops::Op;
use super::peer;
use super::terminal::Terminal;
use super::wire::{self, Answer, Info, MAX_REQUEST, Request};
use crate::cli::{Context, Held};
use crate::shared::frames::Tagged;

mod decisions;
mod guests;

/// Set in tests: the session dies after running a command, before answering.
pub const ENV_TEST_DIE: &str = "GRAPHEX_TEST_SESSION_DIES";

/// How long a client may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an idle session checks that its login session still exists.
const LOGIN_CHECK: Duration = Duration::from_secs(30);
/// How long a session waits without a command, after applying another
/// process's commits row by row, before it checks the whole store again.
const FULL_CHECK_AFTER: Duration = Duration::from_secs(2);

/// What the session holds and knows about itself.
pub struct Session {
    pub root: PathBuf,
    pub socket: PathBuf,
    pub store: Rc<RefCell<Store>>,
    pub creds: Credentials,
    /// How long human-only stays unlocked (a session at the human level).
    pub human: HumanHold,
    pub idle: Duration,
    /// The leader of the login session the session ends with.
    pub login: Option<i32>,
    pub memory: String,
    pub since: Timestamp,
    last: Instant,
    requests: u64,
    db_file: FileId,
    /// This machine's freshness record for the store, as last seen: one
    /// changed by another process (`freshness accept`, `trust`) is read
    /// again, as an open would.
    record_file: Option<FileId>,
    /// What a reopen on a branch seen for the first time trusted, for the
    /// next command to say.
    first_sight: Option<String>,
    /// The consoles and MCP servers it hosts.
    guests: guests::Guests,
    /// The terminal it serves at the master level (`None`: any process of
    /// the owner, `--any-terminal`).
    pub terminal: Option<Terminal>,
}

/// One client's connection once the session proved itself: every frame
/// each way is tagged under the channel key.
pub(super) struct Client {
    stream: UnixStream,
    to_client: Tagged,
    from_client: Tagged,
    /// The peer's terminal, as read when it connected.
    terminal: Option<Terminal>,
}

impl Client {
    /// Sends `answer`.
    pub(super) fn say(&mut self, answer: &Answer) -> Result<()> {
        self.to_client.send(&mut self.stream, answer)
    }

    /// Reads the client's next request.
    fn hear<T: for<'de> serde::Deserialize<'de>>(&mut self) -> Result<T> {
        self.from_client.receive(&mut self.stream, MAX_REQUEST)
    }
}

/// How long a session unlocked at the human level keeps human-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HumanHold {
    No,
    /// For the next command, then the master level.
    NextCommand,
    /// Until then, then the master level.
    Until(Instant),
}

enum Flow {
    Go,
    Stop(String),
}

impl Session {
    /// A session over `store`, opened from `root` with `creds`.
    pub fn new(root: PathBuf, socket: PathBuf, store: Store, creds: Credentials) -> Result<Session> {
        let db_file = file_id(&store.layout().db())?;
        let record_file = record_id(&store);
        Ok(Session {
            record_file,
            first_sight: None,
            root,
            socket,
            human: if store.level() == Level::Human {
                HumanHold::NextCommand
            } else {
                HumanHold::No
            },
            store: Rc::new(RefCell::new(store)),
            creds,
            idle: Duration::from_secs(900),
            login: None,
            memory: String::new(),
            since: Timestamp::now(),
            last: Instant::now(),
            requests: 0,
            db_file,
            guests: guests::Guests::default(),
            terminal: None,
        })
    }

    /// Answers requests until the session ends; then wipes what it held and
    /// removes its socket. Returns why it ended.
    pub fn serve(mut self, listener: &UnixListener) -> Result<String> {
        let why = loop {
            // A hosted console's or MCP server's requests are use; an open
            // connection that asks nothing is not.
            self.guests.prune();
            if let Some(t) = self.guests.last_request() {
                self.last = self.last.max(t);
            }
            let left = self.idle.saturating_sub(self.last.elapsed());
            if left.is_zero() {
                break format!("idle for {}s", self.idle.as_secs());
            }
            if let Some(leader) = self.login
                && !alive(leader)
            {
                break "the login session ended".to_owned();
            }
            let mut wait = left.min(LOGIN_CHECK);
            if let HumanHold::Until(t) = self.human {
                let human_left = t.saturating_duration_since(Instant::now());
                if human_left.is_zero() {
                    if let Flow::Stop(why) = self.drop_human() {
                        break why;
                    }
                    continue;
                }
                wait = wait.min(human_left);
            }
            let check_owed = self.store.borrow().partly_checked();
            // A large store's backup is a link after a commit; its copy is
            // made here, when no client is waiting.
            let copy_owed = self.store.borrow().backup_copy_owed();
            if check_owed || copy_owed {
                wait = wait.min(FULL_CHECK_AFTER);
            }
            if !readable(listener, wait)? {
                if check_owed && let Err(e) = self.store.borrow_mut().check_in_full() {
                    break format!("the store no longer verifies ({e:#})");
                }
                if copy_owed {
                    // Stopped as soon as a client knocks (a 1M-node store's
                    // copy takes seconds): made again when next idle.
                    let waiting = || readable(listener, Duration::ZERO).unwrap_or(true);
                    self.store.borrow_mut().copy_backup(&waiting);
                }
                continue;
            }
            let Ok((stream, _)) = listener.accept() else {
                continue;
            };
            if let Flow::Stop(why) = self.answer(stream) {
                break why;
            }
        };
        let _ = std::fs::remove_file(&self.socket);
        self.guests.end_all();
        Ok(why)
    }

    fn answer(&mut self, stream: UnixStream) -> Flow {
        let owner = rustix::process::getuid().as_raw();
        let Ok(peer) = peer::of(&stream) else {
            return Flow::Go;
        };
        if peer::check(peer, owner).is_err() {
            return Flow::Go;
        }
        // Which terminal the peer is in, read at once: its process id cannot
        // have been reused by another process yet.
        let terminal = Terminal::of(peer.pid);
        // A client that neither sends nor reads never holds the session.
        if stream.set_read_timeout(Some(REQUEST_TIMEOUT)).is_err()
            || stream.set_write_timeout(Some(REQUEST_TIMEOUT)).is_err()
        {
            return Flow::Go;
        }
        let Some(mut client) = self.prove(stream, terminal) else {
            return Flow::Go;
        };
        let Ok(request) = client.hear::<Request>() else {
            return Flow::Go;
        };
        let (answer, flow) = match request {
            Request::Status => (Answer::Status(self.info()), Flow::Go),
            Request::Lock => (Answer::Locked, Flow::Stop("locked".into())),
            Request::Console { root } => return self.console(client, &root),
            Request::Mcp { root, agent } => return self.mcp(client, &root, agent),
            Request::Op { op, json, cwd, root } => match self.refuses(client.terminal) {
                Some(why) => (Answer::Declined(why), Flow::Go),
                None => self.run(op, json, &cwd, &root, peer, client.terminal),
            },
        };
        if matches!(answer, Answer::Ran { .. }) {
            // Before the client has its answer, as a process of its own
            // leaves the store: what the command wrote is in graph.db itself
            // when the client's next step (`git commit`) reads the file, and
            // the log is empty, so a `git checkout` that replaces graph.db
            // finds no frames of the old file to apply to the new one.
            self.store.borrow().empty_the_log();
            self.note_own_writes();
        }
        if matches!(flow, Flow::Stop(_)) {
            // Gone before the client hears back: `lock` returning (or the
            // session's last answer) means no new client can reach it, and
            // the consoles and servers it hosted hold the key no more.
            let _ = std::fs::remove_file(&self.socket);
            self.guests.end_all();
        }
        let _ = client.say(&answer);
        drop(client);
        if matches!(flow, Flow::Go) && self.human == HumanHold::NextCommand && self.requests > 0 {
            return self.drop_human();
        }
        flow
    }

    /// Reads the client's hello and proves this session holds the store's
    /// key before anything is asked (see [`wire::Opening`]): the first
    /// frame, under the key the hello makes, carries a fresh nonce that
    /// rekeys the rest of the connection and, at the master level, the
    /// master's signature of the exchange.
    fn prove(&self, mut stream: UnixStream, terminal: Option<Terminal>) -> Option<Client> {
        let opening = crate::shared::frames::receive_bytes(&mut stream, MAX_REQUEST).ok()?;
        let hello: wire::Opening = serde_json::from_slice(&opening).ok()?;
        let hello: [u8; 32] = graphex_engine::crypto::unhex(&hello.hello)?.try_into().ok()?;
        let store = self.store.borrow();
        let (level, key) = store.keys().channel_key(&hello, &opening)?;
        let mut nonce = [0u8; 32];
        graphex_engine::crypto::fill_random(&mut nonce).ok()?;
        let signature = match level {
            Level::Agent => None,
            _ => {
                let message = channel::ready_message(&opening, &key, &nonce);
                Some(graphex_engine::crypto::hex(&store.keys().session_signature(&message)?))
            }
        };
        drop(store);
        let ready = Answer::Ready {
            nonce: graphex_engine::crypto::hex(&nonce),
            signature,
        };
        let first = std::sync::Arc::new(key);
        Tagged::new(std::sync::Arc::clone(&first), Direction::ToClient, 0)
            .send(&mut stream, &ready)
            .ok()?;
        let rest = std::sync::Arc::new(first.rekey(&nonce));
        Some(Client {
            stream,
            to_client: Tagged::new(std::sync::Arc::clone(&rest), Direction::ToClient, 0),
            from_client: Tagged::new(rest, Direction::ToSession, 0),
            terminal,
        })
    }

    /// Why this session does not serve a process in terminal `theirs` (a
    /// master session serves only the terminal that unlocked it, unless it
    /// was started with `--any-terminal`; an agent-level one serves any).
    pub(super) fn refuses(&self, theirs: Option<Terminal>) -> Option<String> {
        let terminal = self.terminal?;
        if self.store.borrow().level() <= Level::Agent {
            return None;
        }
        (theirs != Some(terminal)).then(|| {
            format!(
                "{}: the session for this store serves {} only (`graphex unlock` here starts one for this terminal)",
                super::client::OTHER_TERMINAL,
                terminal.describe()
            )
        })
    }

    fn run(
        &mut self,
        op: Op,
        json: bool,
        cwd: &Path,
        root: &Path,
        peer: peer::Peer,
        terminal: Option<Terminal>,
    ) -> (Answer, Flow) {
        if !same_path(root, &self.root) {
            return (
                Answer::Declined(format!("this session holds {}", self.root.display())),
                Flow::Go,
            );
        }
        if let Err(e) = self.make_current() {
            let why = format!("the unlock session ended: the store no longer verifies ({e:#})");
            return (Answer::Declined(why.clone()), Flow::Stop(why));
        }
        if let Err(e) = std::env::set_current_dir(cwd) {
            return (
                Answer::Declined(format!("cannot enter {}: {e}", cwd.display())),
                Flow::Go,
            );
        }
        let ctx = Context {
            store: Some(self.root.clone()),
            json,
            unlock: None,
            held: Some(Held(Rc::clone(&self.store))),
        };
        let (result, out) = crate::cli::output::capture(|| op.run(&ctx));
        // The kill test (debug builds): the session dies between its commit
        // and its answer.
        #[cfg(debug_assertions)]
        if std::env::var_os(ENV_TEST_DIE).is_some() {
            std::process::abort();
        }
        self.last = Instant::now();
        self.requests += 1;
        let mut stderr = self.first_sight.take().map_or_else(String::new, |t| format!("{t}\n"));
        stderr.push_str(&String::from_utf8_lossy(&out.stderr));
        let code = match result {
            Ok(()) => 0,
            Err(e) if crate::cli::output::broken_pipe(&e) => 0,
            Err(e) => {
                stderr.push_str(&crate::cli::output::error_text(&e));
                1
            }
        };
        if op.decides() {
            decisions::record(&self.root, &op, code, peer, terminal);
        }
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        (Answer::Ran { code, stdout, stderr }, Flow::Go)
    }

    /// The store as it is on disk now: opened again (and verified, and
    /// checked for a rollback, as any open) when the file was replaced (a
    /// checkout), when another branch was checked out, or when it was
    /// rewritten behind SQLite's back (an older copy put back in place);
    /// reloaded when another process committed.
    fn make_current(&mut self) -> Result<()> {
        let db = self.store.borrow().layout().db();
        let now = file_id(&db)?;
        let replaced = (now.dev, now.ino) != (self.db_file.dev, self.db_file.ino);
        // Another branch checked out: its record decides (git may have left
        // graph.db untouched when both branches hold the same file).
        let moved = self.store.borrow().scope_changed();
        if replaced || moved || (!self.store.borrow_mut().refresh()? && now != self.db_file) {
            let reopened = super::start::open_held(&self.root, &self.creds)?;
            // A branch seen for the first time is trusted: the next client
            // is told, as a process of its own would say it.
            self.first_sight = reopened.freshness().and_then(graphex_engine::store::first_sight_text);
            *self.store.borrow_mut() = reopened;
        } else if record_id(&self.store.borrow()) != self.record_file {
            // The record moved under it (`freshness accept` or `trust`, or
            // another process's commit): the verdict is taken again.
            self.store.borrow_mut().check_freshness_again();
        }
        self.db_file = file_id(&db)?;
        self.record_file = record_id(&self.store.borrow());
        Ok(())
    }

    /// Notes the file (and the record) as this session's own command left it.
    fn note_own_writes(&mut self) {
        let db = self.store.borrow().layout().db();
        if let Ok(id) = file_id(&db) {
            self.db_file = id;
        }
        self.record_file = record_id(&self.store.borrow());
    }

    /// After the one command human-only was unlocked for: the human-only
    /// passphrase is wiped and the store reopened at the master level.
    fn drop_human(&mut self) -> Flow {
        self.human = HumanHold::No;
        self.creds.human_passphrase = None;
        match super::start::open_held(&self.root, &self.creds) {
            Ok(store) => {
                *self.store.borrow_mut() = store;
                Flow::Go
            }
            Err(e) => Flow::Stop(format!("reopening at the master level failed: {e}")),
        }
    }

    fn info(&self) -> Info {
        let store = self.store.borrow();
        let (consoles, mcp_servers) = self.guests.counts();
        let level = match (store.level(), self.human) {
            (Level::Human, HumanHold::NextCommand) => "human (for the next command, then master)".to_owned(),
            (Level::Human, HumanHold::Until(t)) => format!(
                "human (for {}s more, then master)",
                t.saturating_duration_since(Instant::now()).as_secs()
            ),
            (level, _) => level.to_string(),
        };
        Info {
            root: self.root.clone(),
            level,
            pid: std::process::id(),
            since: self.since.to_rfc3339(),
            idle_limit_secs: self.idle.as_secs(),
            idle_left_secs: self.idle.saturating_sub(self.last.elapsed()).as_secs(),
            commit: store.seen_seq(),
            nodes: store.catalog().node_count(),
            requests: self.requests,
            consoles,
            mcp_servers,
            terminal: self.terminal.map(|t| t.describe()),
            memory: self.memory.clone(),
        }
    }
}

/// What the session last saw of graph.db: a checkout that replaces the file
/// changes its device and inode; a copy put back in place, its size or time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

fn file_id(path: &Path) -> Result<FileId> {
    let m = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(FileId {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    })
}

/// The freshness record the store was checked against, as a file.
fn record_id(store: &Store) -> Option<FileId> {
    let file = store.freshness()?.file.as_ref()?;
    file_id(file.path()).ok()
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Whether a process `pid` still exists (one of another user, such as the
/// login shell under `su` or `runuser`, answers "not permitted": it exists).
fn alive(pid: i32) -> bool {
    rustix::process::Pid::from_raw(pid).is_some_and(|p| {
        matches!(
            rustix::process::test_kill_process(p),
            Ok(()) | Err(rustix::io::Errno::PERM)
        )
    })
}

/// Waits up to `wait` for a client; true when one is waiting.
fn readable(listener: &UnixListener, wait: Duration) -> Result<bool> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(listener, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: i64::try_from(wait.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(wait.subsec_nanos()),
    };
    match poll(&mut fds, Some(&timeout)) {
        Ok(n) => Ok(n > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e).context("waiting for a client"),
    }
}
