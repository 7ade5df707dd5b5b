//! The client side: a command line asks the store's session to run it and
//! prints what comes back, or runs on its own when there is no session,
//! when it names its own key, or when the command is not one the session
//! runs.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, bail};
use graphex_engine::keys::channel::{self, Direction, Hello};
use graphex_engine::{Credentials, Level};

use super::ops::Op;
use super::paths;
use super::wire::{Answer, Info, MAX_ANSWER, Opening, Request};
use crate::cli::{Cli, Context};
use crate::shared::frames::{self, Tagged};

/// Set to run a command on its own even when a session is open.
pub const ENV_NO_SESSION: &str = "GRAPHEX_NO_SESSION";

/// Runs the command line's operation through the store's session when one
/// serves it, and prints what it printed; `None`: the caller runs it itself.
pub fn forward(cli: &Cli) -> Option<ExitCode> {
    let command = cli.command.as_ref()?;
    if cli.unlock.is_some() || crate::cli::pending_ask::asks(command, cli.json) {
        return None;
    }
    let ran = forward_op(cli.store.clone(), Op::of(command)?, cli.json)?;
    // A reader that went away has what it wanted.
    let _ = std::io::stdout().lock().write_all(ran.stdout.as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().lock().write_all(ran.stderr.as_bytes());
    Some(ExitCode::from(ran.code))
}

/// What an operation printed, and its exit status.
#[derive(Debug, Default)]
pub struct Ran {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// Runs one operation through the session of the store at `store` (or the
/// one found from here) when one serves it; `None`: the caller runs it
/// itself.
pub fn forward_op(store: Option<std::path::PathBuf>, op: Op, json: bool) -> Option<Ran> {
    if set(ENV_NO_SESSION) {
        return None;
    }
    let creds = Credentials::from_env();
    let test_run = uses_session(&creds)?;
    let ctx = Context {
        store,
        json,
        unlock: None,
        held: None,
    };
    let root = ctx.root().ok()?.canonicalize().ok()?;
    if test_run && paths::existing_socket(&root).is_none_or(|s| status(&s, &root).is_err()) {
        let idle = std::time::Duration::from_secs(20);
        let terms = super::start::Terms {
            level: crate::cli::unlock_args::HoldLevel::Master,
            idle,
            human_for: None,
            any_terminal: super::terminal::Terminal::own().is_none(),
        };
        super::start::spawn(&root, terms, &creds).ok()?;
    }
    let socket = paths::existing_socket(&root)?;
    if paths::check_private_socket(&socket).is_err() {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let writes = op.writes();
    let request = Request::Op {
        op,
        json,
        cwd,
        root: root.clone(),
    };
    let mut connection = match Connection::open(&socket, &root, None) {
        Ok(c) => c,
        Err(e) => {
            warn_if_impostor(&e);
            return None;
        }
    };
    // A keyless command runs at the master level through a session, or on
    // its own: an agent-level session (which any holder of the agent
    // identity could pose as) is for MCP servers only, and hears nothing.
    if connection.level != Level::Master {
        return None;
    }
    let answer = match connection.ask(&request) {
        Ok(answer) => answer,
        // A read is simply run here; a write may have been committed
        // before the session went away, so it is not run twice.
        Err(_) if !writes => return None,
        Err(e) => {
            return Some(Ran {
                code: 1,
                stdout: String::new(),
                stderr: format!(
                    "error: the unlock session ended before it answered ({e:#}); the change may or may not have \
                     been made: `graphex timeline` shows the last ones\n"
                ),
            });
        }
    };
    match answer {
        Answer::Ran { code, stdout, stderr } => Some(Ran { code, stdout, stderr }),
        Answer::Declined(why) => {
            if why.starts_with("the unlock session ended") || why.starts_with(OTHER_TERMINAL) {
                crate::cli::output::note(&why);
            }
            None
        }
        _ => None,
    }
}

/// Said by the session to a process of another terminal.
pub const OTHER_TERMINAL: &str = "no unlock session for this terminal";

/// Says on stderr that what listens on the session's socket is not the
/// session (the caller goes on without it).
fn warn_if_impostor(e: &anyhow::Error) {
    if let Some(not) = e.downcast_ref::<NotTheSession>() {
        crate::cli::output::note(&format!("warning: {not}; going on without it"));
    }
}

/// What listens on a session's socket but cannot prove it holds the
/// store's key: never believed, never sent a request.
#[derive(Debug)]
pub struct NotTheSession(pub std::path::PathBuf);

impl std::fmt::Display for NotTheSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is not this store's unlock session: what answers there cannot prove it holds the store's key (a \
             process of yours took the session's place?)",
            self.0.display()
        )
    }
}

impl std::error::Error for NotTheSession {}

/// A socket nothing listened on any more (a session that crashed); it was
/// removed.
#[derive(Debug)]
pub struct Stale(pub std::path::PathBuf);

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "removed {}: the unlock session that listened there has ended",
            self.0.display()
        )
    }
}

impl std::error::Error for Stale {}

/// A connection to the store's session that proved it holds the store's
/// key: every frame each way is tagged under the channel key.
pub struct Connection {
    pub stream: UnixStream,
    /// The key the session proved: master (at master or human level) or agent.
    pub level: Level,
    pub from_session: Tagged,
    pub to_session: Tagged,
}

impl Connection {
    /// Connects to `socket` and has the session prove it holds a key of the
    /// store at `root` before anything is asked (`wait`: how long the proof
    /// may take; `None`, as long as it takes).
    pub fn open(socket: &Path, root: &Path, wait: Option<std::time::Duration>) -> Result<Connection> {
        Self::open_pinned(socket, root, wait, &graphex_engine::freshness::pinned_signers(root))
    }

    /// [`Connection::open`], checking a master session's signature with
    /// the master keys `pinned` (hex) rather than this machine's records.
    pub fn open_pinned(
        socket: &Path,
        root: &Path,
        wait: Option<std::time::Duration>,
        pinned: &[String],
    ) -> Result<Connection> {
        let hello = Hello::new()?;
        let opening = serde_json::to_vec(&Opening {
            hello: graphex_engine::crypto::hex(&hello.public()),
        })?;
        let keys = hello.keys_for(&graphex_engine::store::Layout::new(root).keys(), &opening)?;
        let mut stream = match UnixStream::connect(socket) {
            Ok(stream) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                // Nothing listens: a session that crashed left its socket.
                let _ = std::fs::remove_file(socket);
                bail!(Stale(socket.to_owned()));
            }
            Err(e) => return Err(e.into()),
        };
        stream.set_read_timeout(wait)?;
        frames::send_bytes(&mut stream, &opening)?;
        let not_it = || anyhow::Error::new(NotTheSession(socket.to_owned()));
        let sealed = frames::receive_bytes(&mut stream, MAX_ANSWER).map_err(|e| not_it().context(format!("{e:#}")))?;
        let proven = keys
            .into_iter()
            .find_map(|(level, k)| k.open(Direction::ToClient, 0, &sealed).map(|body| (level, k, body)));
        let Some((level, key, body)) = proven else {
            return Err(not_it());
        };
        let Ok(Answer::Ready { nonce, signature }) = serde_json::from_slice(&body) else {
            return Err(not_it());
        };
        let nonce: [u8; 32] = graphex_engine::crypto::unhex(&nonce)
            .and_then(|n| n.try_into().ok())
            .ok_or_else(not_it)?;
        // The master's key is checked against the one this machine pinned,
        // not against keyring.auth, which anyone who writes to the
        // repository can rewrite.
        if level == Level::Master {
            let message = channel::ready_message(&opening, &key, &nonce);
            let signed = signature
                .as_deref()
                .and_then(graphex_engine::crypto::unhex)
                .is_some_and(|sig| channel::master_signed(pinned, &message, &sig));
            if !signed {
                return Err(not_it());
            }
        }
        stream.set_read_timeout(None)?;
        let key = Arc::new(key.rekey(&nonce));
        Ok(Connection {
            stream,
            level,
            from_session: Tagged::new(Arc::clone(&key), Direction::ToClient, 0),
            to_session: Tagged::new(key, Direction::ToSession, 0),
        })
    }

    /// The connection as a console's worker uses it.
    pub fn into_channel(self) -> frames::Channel {
        frames::Channel {
            stream: self.stream,
            sending: self.to_session,
            receiving: self.from_session,
        }
    }

    /// Sends `request` and reads the answer.
    pub fn ask(&mut self, request: &Request) -> Result<Answer> {
        self.to_session.send(&mut self.stream, request)?;
        self.from_session.receive(&mut self.stream, MAX_ANSWER)
    }
}

/// The store's session, ready to host the console's worker: `None` (the
/// console opens the store itself) when there is none, when the
/// environment names a key or `GRAPHEX_NO_SESSION` is set, when what
/// listens cannot prove it holds the store's key, or when the session
/// declines (another store or terminal, a store that no longer verifies:
/// then it says why).
pub fn console(root: &Path) -> Option<frames::Channel> {
    let (connection, answer) = ask_to_host(root, Level::Master, |root| Request::Console { root })?;
    match answer {
        Answer::Console => Some(connection.into_channel()),
        Answer::Declined(why) => {
            if why.starts_with("the unlock session ended") || why.starts_with(OTHER_TERMINAL) {
                crate::cli::output::note(&why);
            }
            None
        }
        _ => None,
    }
}

/// `graphex mcp` with no key in its environment: served by the store's
/// agent-level session on the agent identity it holds (a master session
/// serves no MCP server), this process relaying the protocol between its
/// stdio and the session. `None`: it serves on its own (no session, a key
/// named, or the session declined, which is said on stderr, the runtime's
/// log).
pub fn mcp(root: &Path, agent: &crate::mcp::AgentConfig) -> Option<Result<()>> {
    let agent = agent.clone();
    let (connection, answer) = ask_to_host(root, Level::Agent, |root| Request::Mcp { root, agent })?;
    match answer {
        Answer::Mcp => Some(relay(connection.stream)),
        Answer::Declined(why) => {
            eprintln!("graphex mcp: not served by the unlock session ({why}); serving on its own");
            None
        }
        _ => None,
    }
}

/// Connects to the session for the store at `root`, has it prove it holds
/// the key of `level`, and sends it `request` (made from the canonical
/// root): `None` when the environment names a key, `GRAPHEX_NO_SESSION` is
/// set, or no private socket answers with that key (said on stderr; a
/// session of another level is asked nothing). The session may first open
/// the store: a minute at most.
fn ask_to_host(
    root: &Path,
    level: Level,
    request: impl FnOnce(std::path::PathBuf) -> Request,
) -> Option<(Connection, Answer)> {
    if set(ENV_NO_SESSION) || uses_session_plainly(&Credentials::from_env()).is_none() {
        return None;
    }
    let root = root.canonicalize().ok()?;
    let socket = paths::existing_socket(&root)?;
    paths::check_private_socket(&socket).ok()?;
    let wait = Some(std::time::Duration::from_secs(60));
    let mut connection = match Connection::open(&socket, &root, wait) {
        Ok(c) => c,
        Err(e) => {
            warn_if_impostor(&e);
            return None;
        }
    };
    if connection.level != level {
        return None;
    }
    connection.stream.set_read_timeout(wait).ok()?;
    let answer = connection.ask(&request(root)).ok()?;
    connection.stream.set_read_timeout(None).ok()?;
    Some((connection, answer))
}

/// Copies stdin to the session and the session's lines to stdout until
/// the session closes the connection (after stdin ended, or when it ends).
fn relay(stream: UnixStream) -> Result<()> {
    use std::io::Read as _;
    let mut up = stream.try_clone()?;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut up);
        let _ = up.shutdown(std::net::Shutdown::Write);
    });
    let mut down = stream;
    let mut out = std::io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = down.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(&buf[..n])?;
        out.flush()?;
    }
}

/// Debug builds, for running the CLI tests through sessions: see
/// [`uses_session`].
pub const ENV_TEST_VIA: &str = "GRAPHEX_TEST_VIA_SESSION";

/// Whether a command with these credentials asks a session (`None`: it
/// runs on its own), and whether it is a test run that starts one when none
/// runs. A command whose environment names a key runs at that key's level,
/// never at the session's. In a test run (debug builds with
/// `GRAPHEX_TEST_VIA_SESSION`) it is the other way round: exactly the
/// commands holding the master key alone go through a session.
fn uses_session(c: &Credentials) -> Option<bool> {
    let master_only = c.has_master() && c.human_passphrase.is_none() && c.agent_identity_file.is_none();
    match cfg!(debug_assertions) && set(ENV_TEST_VIA) {
        true => master_only.then_some(true),
        false => uses_session_plainly(c),
    }
}

/// Outside test runs: a command asks a session only when its environment
/// names no key.
fn uses_session_plainly(c: &Credentials) -> Option<bool> {
    let names_a_key = c.has_master() || c.human_passphrase.is_some() || c.agent_identity_file.is_some();
    (!names_a_key).then_some(false)
}

/// Whether `var` is set to something.
fn set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// What the session at `socket` holds, once it proved it holds a key of
/// the store at `root`; its level is the one it proved.
pub fn status(socket: &Path, root: &Path) -> Result<Info> {
    let mut connection = Connection::open(socket, root, Some(std::time::Duration::from_secs(60)))?;
    let proven = connection.level;
    match connection.ask(&Request::Status)? {
        Answer::Status(mut info) => {
            if proven < Level::Master {
                info.level = proven.to_string();
            }
            Ok(info)
        }
        other => bail!("the session answered {other:?}"),
    }
}

/// Ends the session at `socket`.
pub fn lock(socket: &Path, root: &Path) -> Result<()> {
    match ask(socket, root, &Request::Lock)? {
        Answer::Locked => Ok(()),
        other => bail!("the session answered {other:?}"),
    }
}

fn ask(socket: &Path, root: &Path, request: &Request) -> Result<Answer> {
    Connection::open(socket, root, Some(std::time::Duration::from_secs(60)))?.ask(request)
}
