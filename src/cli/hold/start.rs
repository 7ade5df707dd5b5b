//! Starting a session: `graphex unlock` runs this program again, detached,
//! as the session process; hands it the passphrases it asked for over a pipe
//! (never in arguments or the environment, which other processes may read);
//! and waits until it has opened and verified the store and listens.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use graphex_engine::age_secret::{ExposeSecret, SecretString};
use graphex_engine::keys::{ENV_HUMAN_PASSPHRASE, ENV_PASSPHRASE};
use graphex_engine::{Credentials, Store};
use serde::{Deserialize, Serialize};
use zeroize::Zeroize;

use super::terminal::Terminal;
use super::{client, paths};
use crate::cli::hold::server::{HumanHold, Session};
use crate::cli::unlock_args::HoldLevel;

/// The passphrases the session process reads from its stdin.
#[derive(Default, Serialize, Deserialize)]
struct Secrets {
    passphrase: Option<String>,
    human: Option<String>,
}

/// What a session is asked to hold, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Terms {
    pub level: HoldLevel,
    /// Ends after this long without a command.
    pub idle: Duration,
    /// At the human level: human-only for this long (else for the next command).
    pub human_for: Option<Duration>,
    /// Serve any process of the user, not only the terminal that unlocked.
    pub any_terminal: bool,
}

/// Starts the session process for the store at `root` and waits until it
/// answers; returns its process id.
pub fn spawn(root: &Path, terms: Terms, creds: &Credentials) -> Result<u32> {
    let Terms {
        level,
        idle,
        human_for,
        any_terminal,
    } = terms;
    let exe = std::env::current_exe().context("cannot find this program to start the session")?;
    let level_word = match level {
        HoldLevel::Agent => "agent",
        HoldLevel::Master => "master",
        HoldLevel::Human => "human",
    };
    let mut cmd = Command::new(exe);
    cmd.arg("--store")
        .arg(root)
        .args(["session-serve", "--level", level_word, "--idle-secs"])
        .arg(idle.as_secs().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // The passphrases go over the pipe below, never in the session's
    // environment (nor its children's).
    for var in [ENV_PASSPHRASE, ENV_HUMAN_PASSPHRASE] {
        cmd.env_remove(var);
    }
    if any_terminal {
        cmd.arg("--any-terminal");
    }
    if let Some(h) = human_for {
        cmd.arg("--human-secs").arg(h.as_secs().to_string());
    }
    if let Some(sid) = login_session() {
        cmd.arg("--login").arg(sid.to_string());
    }
    let mut child = cmd.spawn().context("cannot start the session process")?;
    let mut secrets = Secrets {
        passphrase: creds.passphrase.as_ref().map(|s| s.expose_secret().to_owned()),
        human: creds.human_passphrase.as_ref().map(|s| s.expose_secret().to_owned()),
    };
    let mut line = serde_json::to_string(&secrets)?;
    line.push('\n');
    let sent = child
        .stdin
        .take()
        .context("no pipe to the session process")?
        .write_all(line.as_bytes());
    line.zeroize();
    secrets.passphrase.zeroize();
    secrets.human.zeroize();
    sent.context("cannot hand the passphrase to the session process")?;
    let mut answer = String::new();
    let out = child.stdout.take().context("no pipe from the session process")?;
    BufReader::new(out)
        .read_line(&mut answer)
        .context("cannot hear from the session process")?;
    match answer.trim_end().strip_prefix("ready") {
        Some(said) => {
            if !said.trim().is_empty() {
                crate::cli::output::note(said.trim());
            }
            Ok(child.id())
        }
        None => {
            let _ = child.wait();
            match answer.trim_end() {
                "" => bail!("the session process ended without saying why"),
                why => bail!("{}", why.strip_prefix("error: ").unwrap_or(why)),
            }
        }
    }
}

/// The leader of this process's login session, when it can be watched: read
/// from `/proc/self/stat`, since a session whose leader lives outside this
/// process's pid namespace (a container) has the id 0, which `getsid`
/// wrappers may refuse.
fn login_session() -> Option<i32> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    session_of(&stat)
}

/// The session field of a `/proc/PID/stat` line; `None` when absent or 0.
/// The command name may hold spaces and parentheses, so fields are counted
/// after its last `)`: state, ppid, pgrp, session.
fn session_of(stat: &str) -> Option<i32> {
    let (_, rest) = stat.rsplit_once(')')?;
    let sid: i32 = rest.split_whitespace().nth(3)?.parse().ok()?;
    (sid > 0).then_some(sid)
}

/// The session process itself (`graphex session-serve`, run by `spawn`):
/// reads the passphrases, leaves the terminal's session, opens and verifies
/// the store, listens, says `ready` and serves until it ends.
pub fn serve(root: PathBuf, terms: Terms, login: Option<i32>) -> Result<()> {
    let mut out = std::io::stdout();
    match open_and_listen(root, terms) {
        Ok((mut session, listener)) => {
            session.idle = terms.idle;
            session.login = login;
            if let (Some(h), HumanHold::NextCommand) = (terms.human_for, session.human) {
                session.human = HumanHold::Until(std::time::Instant::now() + h);
            }
            // What a first sight of the branch trusts is said by `unlock`.
            let first = session
                .store
                .borrow()
                .freshness()
                .and_then(graphex_engine::store::first_sight_text);
            match first {
                Some(text) => writeln!(out, "ready {}", text.replace('\n', " "))?,
                None => writeln!(out, "ready")?,
            }
            out.flush()?;
            // Nothing more goes to the parent: stdin and stdout are closed.
            let null = std::fs::File::options().read(true).write(true).open("/dev/null")?;
            rustix::stdio::dup2_stdin(&null)?;
            rustix::stdio::dup2_stdout(&null)?;
            session.serve(&listener).map(|_| ())
        }
        Err(e) => {
            writeln!(out, "error: {e:#}")?;
            Ok(())
        }
    }
}

fn open_and_listen(root: PathBuf, terms: Terms) -> Result<(Session, UnixListener)> {
    let level = terms.level;
    let mut raw = String::new();
    std::io::stdin()
        .lock()
        .take(64 * 1024)
        .read_line(&mut raw)
        .context("cannot read the passphrase")?;
    let parsed: Result<Secrets, _> = serde_json::from_str(&raw);
    raw.zeroize();
    let secrets = parsed.context("the passphrase line does not parse")?;
    // The terminal that unlocked (this process is still in its session).
    let terminal = match (terms.any_terminal, Terminal::own()) {
        (true, _) => None,
        (false, Some(t)) => Some(t),
        (false, None) => bail!(
            "cannot tell which terminal this is (its session leader is not visible here): give --any-terminal to \
             let every process of yours use the session"
        ),
    };
    // Out of the terminal's session: closing the terminal does not end
    // this process (the login-session check does, if it is asked).
    let _ = rustix::process::setsid();
    let memory = lock_memory();
    let mut creds = Credentials::from_env();
    if let Some(p) = secrets.passphrase {
        creds.passphrase = Some(SecretString::from(p));
    }
    match (level, secrets.human) {
        (HoldLevel::Human, Some(h)) => creds.human_passphrase = Some(SecretString::from(h)),
        (HoldLevel::Human, None) if creds.human_passphrase.is_some() => {}
        (HoldLevel::Human, None) => bail!("the human level needs the human-only passphrase"),
        (HoldLevel::Master | HoldLevel::Agent, _) => creds.human_passphrase = None,
    }
    // Key files named from where `unlock` ran: each command the session runs
    // moves it to that command's directory.
    for file in [&mut creds.identity_file, &mut creds.agent_identity_file]
        .into_iter()
        .flatten()
    {
        *file = std::path::absolute(&*file).with_context(|| format!("cannot find {}", file.display()))?;
    }
    if level == HoldLevel::Agent {
        // The agent identity alone, as an agent's own server holds it.
        creds.passphrase = None;
        creds.identity_file = None;
        if creds.agent_identity_file.is_none() {
            bail!("the agent level needs the agent identity (GRAPHEX_AGENT_IDENTITY)");
        }
    } else {
        creds.agent_identity_file = None;
        if !creds.has_master() {
            bail!("an unlock session needs the master key");
        }
    }
    let store = open_held(&root, &creds)?;
    if let Some(rb) = store.rolled_back() {
        bail!(
            "the store went back, so no session was started: {}",
            graphex_engine::store::rollback_text(&root, rb)
        );
    }
    // Loaded once, before the first projection asks for it.
    graphex_engine::config::Counter::Bpe.warm();
    let socket = paths::socket_for(&root)?;
    let listener = bind(&socket, &root)?;
    let mut session = Session::new(root, socket, store, creds)?;
    session.memory = memory;
    session.terminal = terminal;
    Ok((session, listener))
}

/// Listens on `socket`: a session already answering there is an error, and
/// so is anything else that listens there (it is never replaced unseen); a
/// socket left by one that died is replaced.
fn bind(socket: &Path, root: &Path) -> Result<UnixListener> {
    if socket.exists() {
        match client::status(socket, root) {
            Ok(_) => bail!("a session already runs for this store (`graphex lock` ends it)"),
            Err(e) if e.downcast_ref::<client::Stale>().is_some() => {}
            Err(e) => bail!("{e:#}: no session was started"),
        }
    }
    let listener = UnixListener::bind(socket).with_context(|| format!("cannot listen on {}", socket.display()))?;
    paths::make_private(socket)?;
    Ok(listener)
}

/// Locks the process's memory against swapping when the limit allows all
/// of it; says what was done.
fn lock_memory() -> String {
    use rustix::process::{Resource, getrlimit};
    let limit = getrlimit(Resource::Memlock);
    if limit.current.is_some() {
        let mib = limit.current.unwrap_or(0) / (1024 * 1024);
        return format!(
            "not locked: the memory-lock limit is {mib} MiB (`ulimit -l unlimited` lifts it); use encrypted swap"
        );
    }
    use rustix::mm::{MlockAllFlags, mlockall};
    match mlockall(MlockAllFlags::CURRENT | MlockAllFlags::FUTURE) {
        Ok(()) => "locked (never swapped), not in core dumps".to_owned(),
        Err(e) => format!("not locked ({e}); use encrypted swap"),
    }
}

/// The store a session holds: it keeps what applying other processes'
/// commits row by row needs, and syncs its own commits with the log it
/// empties before each answer.
pub(super) fn open_held(root: &std::path::Path, creds: &graphex_engine::Credentials) -> Result<Store> {
    let store = Store::open_tracking(root, creds)?;
    store.sync_commits_with_the_log()?;
    // `status` counted before the first command asks (a scan of the
    // timeline for its last update: 0.3 s at a million nodes).
    let _ = store.status();
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::session_of;

    #[test]
    fn the_session_is_read_after_the_command_name() {
        assert_eq!(session_of("4242 (graphex) S 1 4242 4100 0 -1"), Some(4100));
        // A name holding spaces and parentheses does not shift the fields.
        assert_eq!(session_of("7 (a b) (c)) R 1 7 55 0"), Some(55));
        // A leader outside this pid namespace reads as 0: nothing to watch.
        assert_eq!(session_of("9 (sh) S 0 1 0 0"), None);
        assert_eq!(session_of("garbage"), None);
    }
}
