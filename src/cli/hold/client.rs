//! The client side: a command line asks the store's session to run it and
//! prints what comes back, or runs on its own when there is no session,
//! when it names its own key, or when the command is not one the session
//! runs.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use graphex_engine::Credentials;

use super::paths;
use super::wire::{self, Answer, Info, MAX_ANSWER, Request};
use crate::cli::args::Command;
use crate::cli::{Cli, Context};

/// Set to run a command on its own even when a session is open.
pub const ENV_NO_SESSION: &str = "GRAPHEX_NO_SESSION";

/// Whether the session runs `command`: the reads and the writes that
/// neither prompt, nor read stdin, nor start an editor.
pub fn served(command: &Command) -> bool {
    reads(command) || writes(command)
}

/// The writes the session runs (the same transaction, seal and audit
/// record as a process of its own would write).
pub fn writes(command: &Command) -> bool {
    matches!(
        command,
        Command::Add(_)
            | Command::Update(_)
            | Command::Link(_)
            | Command::Unlink { .. }
            | Command::Supersede { .. }
            | Command::Deprecate(_)
            | Command::Archive(_)
            | Command::Restore(_)
            | Command::Accept(_)
            | Command::Reject(_)
            | Command::RequestChanges(_)
            | Command::Undo
    ) || matches!(command, Command::History { revert: true, .. })
        || matches!(command, Command::Propose { file: Some(f), schema: false } if f.as_os_str() != "-")
}

fn reads(command: &Command) -> bool {
    matches!(
        command,
        Command::Show { .. }
            | Command::List(_)
            | Command::Status
            | Command::Query(_)
            | Command::Path(_)
            | Command::Neighbors(_)
            | Command::Subgraph(_)
            | Command::Project(_)
            | Command::Search { .. }
            | Command::Contradictions { .. }
            | Command::Glossary { .. }
            | Command::Conventions { .. }
            | Command::Timeline { .. }
            | Command::Exposure { .. }
            | Command::Pending { .. }
            | Command::ProposalStatus { .. }
    ) || matches!(command, Command::History { revert: false, .. })
}

/// Runs `argv` (without the program name) through the store's session when
/// one serves it; `None`: the caller runs it itself.
pub fn forward(cli: &Cli, argv: &[OsString]) -> Option<ExitCode> {
    let command = cli.command.as_ref()?;
    if !served(command) || cli.unlock.is_some() || set(ENV_NO_SESSION) {
        return None;
    }
    let creds = Credentials::from_env();
    let test_run = uses_session(&creds)?;
    let argv: Vec<String> = argv
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    let ctx = Context {
        store: cli.store.clone(),
        json: cli.json,
        unlock: None,
        held: None,
    };
    let root = ctx.root().ok()?.canonicalize().ok()?;
    if test_run && paths::existing_socket(&root).is_none_or(|s| status(&s).is_err()) {
        let idle = std::time::Duration::from_secs(20);
        let terms = super::start::Terms {
            level: crate::cli::unlock_args::HoldLevel::Master,
            idle,
            human_for: None,
        };
        super::start::spawn(&root, terms, &creds).ok()?;
    }
    let socket = paths::existing_socket(&root)?;
    if paths::check_private_socket(&socket).is_err() {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let answer = match ask(&socket, &Request::Run { argv, cwd, root }) {
        Ok(answer) => answer,
        // A read is simply run here; a write may have been committed
        // before the session went away, so it is not run twice.
        Err(_) if !writes(command) => return None,
        Err(e) => {
            crate::cli::output::note(&format!(
                "error: the unlock session ended before it answered ({e:#}); the change may or may not have been \
                 made: `graphex timeline` shows the last ones"
            ));
            return Some(ExitCode::from(1));
        }
    };
    match answer {
        Answer::Ran { code, stdout, stderr } => {
            // A reader that went away has what it wanted.
            let _ = std::io::stdout().lock().write_all(stdout.as_bytes());
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().lock().write_all(stderr.as_bytes());
            Some(ExitCode::from(code))
        }
        Answer::Declined(why) => {
            if why.starts_with("the unlock session ended") {
                crate::cli::output::note(&why);
            }
            None
        }
        _ => None,
    }
}

/// The store's session, ready to host the console's worker: `None` (the
/// console opens the store itself) when there is none, when the
/// environment names a key or `GRAPHEX_NO_SESSION` is set, or when the
/// session declines (another store, a store that no longer verifies: then
/// it says why).
pub fn console(root: &Path) -> Option<UnixStream> {
    let stream = ask_to_host(root, |root| Request::Console { root })?;
    match handshake(&stream)? {
        Answer::Console => Some(stream),
        Answer::Declined(why) => {
            if why.starts_with("the unlock session ended") {
                crate::cli::output::note(&why);
            }
            None
        }
        _ => None,
    }
}

/// `graphex mcp` with no key in its environment: served by the store's
/// session on its key (a `--local` server by any session, an agent's own
/// by an agent-level one), this process relaying the protocol between its
/// stdio and the session. `None`: it serves on its own (no session, a key
/// named, or the session declined, which is said on stderr, the runtime's
/// log).
pub fn mcp(root: &Path, agent: &crate::mcp::AgentConfig) -> Option<Result<()>> {
    let agent = agent.clone();
    let stream = ask_to_host(root, |root| Request::Mcp { root, agent })?;
    match handshake(&stream)? {
        Answer::Mcp => Some(relay(stream)),
        Answer::Declined(why) => {
            eprintln!("graphex mcp: not served by the unlock session ({why}); serving on its own");
            None
        }
        _ => None,
    }
}

/// Connects to the session for the store at `root` and sends it `request`
/// (made from the canonical root): `None` when the environment names a
/// key, `GRAPHEX_NO_SESSION` is set, or no private socket answers.
fn ask_to_host(root: &Path, request: impl FnOnce(std::path::PathBuf) -> Request) -> Option<UnixStream> {
    if set(ENV_NO_SESSION) || uses_session_plainly(&Credentials::from_env()).is_none() {
        return None;
    }
    let root = root.canonicalize().ok()?;
    let socket = paths::existing_socket(&root)?;
    paths::check_private_socket(&socket).ok()?;
    let mut stream = UnixStream::connect(&socket).ok()?;
    wire::send(&mut stream, &request(root)).ok()?;
    Some(stream)
}

/// The session's answer to a console or an MCP server asking to be hosted
/// (it may first open the store: a minute at most), the connection then
/// left without a timeout.
fn handshake(mut stream: &UnixStream) -> Option<Answer> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60))).ok()?;
    let answer = wire::receive(&mut stream, MAX_ANSWER).ok()?;
    stream.set_read_timeout(None).ok()?;
    Some(answer)
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

/// What the session at `socket` holds.
pub fn status(socket: &Path) -> Result<Info> {
    match ask(socket, &Request::Status)? {
        Answer::Status(info) => Ok(info),
        other => bail!("the session answered {other:?}"),
    }
}

/// Ends the session at `socket`.
pub fn lock(socket: &Path) -> Result<()> {
    match ask(socket, &Request::Lock)? {
        Answer::Locked => Ok(()),
        other => bail!("the session answered {other:?}"),
    }
}

fn ask(socket: &Path, request: &Request) -> Result<Answer> {
    let mut stream = UnixStream::connect(socket)?;
    wire::send(&mut stream, request)?;
    wire::receive(&mut stream, MAX_ANSWER)
}
