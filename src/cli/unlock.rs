//! `unlock`, `lock` and `session`: starting, ending and showing the store's
//! unlock session (see `hold`).

use std::time::Duration;

use anyhow::Result;
use graphex_engine::Credentials;
use serde::Serialize;

use super::Context;
use super::hold::terminal::Terminal;
use super::hold::wire::Info;
use super::hold::{client, paths, start};
use super::output::{emit, note};
use super::session::prompt_secret;
use super::unlock_args::{HoldLevel, ServeArgs, UnlockArgs};
use graphex_engine::keys::{ENV_HUMAN_PASSPHRASE, ENV_PASSPHRASE};

/// `graphex unlock`.
pub fn unlock(ctx: &Context, a: &UnlockArgs) -> Result<()> {
    if a.human_for.is_some() && a.level != HoldLevel::Human {
        anyhow::bail!("--human-for needs --level human");
    }
    let root = ctx.root()?.canonicalize()?;
    if let Some((socket, info)) = running(&root)? {
        let human_asked = a.level == HoldLevel::Human;
        if !human_asked {
            note(&format!(
                "an unlock session already holds {} at the {} level (process {}); `graphex lock` ends it",
                root.display(),
                info.level,
                info.pid
            ));
            return Ok(());
        }
        // Human-only is asked for again: a new session replaces this one.
        client::lock(&socket, &root)?;
    }
    let mut creds = Credentials::from_env();
    if a.level == HoldLevel::Agent {
        // The agent identity alone, whatever else the environment holds.
        let Some(identity) = creds.agent_identity_file.take() else {
            anyhow::bail!(
                "the agent level needs the agent identity: set GRAPHEX_AGENT_IDENTITY (`graphex keys export-agent FILE` writes it)"
            );
        };
        creds = Credentials {
            agent_identity_file: Some(identity),
            ..Credentials::none()
        };
    } else {
        creds.agent_identity_file = None;
        if !creds.has_master() {
            creds.passphrase = Some(prompt_secret(
                "Master passphrase: ",
                &format!("unlock needs the master key: set {ENV_PASSPHRASE} or GRAPHEX_IDENTITY, or run in a terminal"),
            )?);
        }
    }
    if a.level == HoldLevel::Human && creds.human_passphrase.is_none() {
        creds.human_passphrase = Some(prompt_secret(
            "Human-only passphrase: ",
            &format!("the human level needs {ENV_HUMAN_PASSPHRASE}, or run in a terminal"),
        )?);
    }
    let terms = start::Terms {
        level: a.level,
        idle: a.idle,
        human_for: a.human_for,
        any_terminal: a.any_terminal,
    };
    let pid = start::spawn(&root, terms, &creds)?;
    let serves = match (a.level, a.any_terminal) {
        (HoldLevel::Agent, _) => "any process of yours (it holds the agent identity alone)".to_owned(),
        (_, true) => "EVERY process of yours, in any terminal (--any-terminal): a coding agent running as you can \
                      read and decide at its level"
            .to_owned(),
        (_, false) => format!(
            "this terminal only ({}); a coding agent started in it shares it, as with sudo",
            Terminal::own().map_or_else(|| "?".to_owned(), |t| t.describe())
        ),
    };
    note(&format!(
        "unlocked {} at the {} level (session process {pid}), serving {serves}; it ends after {} without a command, \
         or with `graphex lock`",
        root.display(),
        match (a.level, a.human_for) {
            (HoldLevel::Agent, _) => "agent".to_owned(),
            (HoldLevel::Master, _) => "master".to_owned(),
            (HoldLevel::Human, None) => "human (for the next command only, then master)".to_owned(),
            (HoldLevel::Human, Some(h)) => format!("human (for {}, then master)", idle_text(h)),
        },
        idle_text(a.idle)
    ));
    Ok(())
}

/// `graphex lock`.
pub fn lock(ctx: &Context) -> Result<()> {
    let root = ctx.root()?.canonicalize()?;
    match running(&root)? {
        None => note(&format!("no unlock session holds {}", root.display())),
        Some((socket, info)) => {
            client::lock(&socket, &root)?;
            note(&format!(
                "locked: the session for {} (process {}) ended and wiped what it held",
                root.display(),
                info.pid
            ));
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct Shown {
    running: bool,
    #[serde(flatten)]
    info: Option<Info>,
}

/// `graphex session`.
pub fn session(ctx: &Context) -> Result<()> {
    let root = ctx.root()?.canonicalize()?;
    let info = running(&root)?.map(|(_, info)| info);
    let shown = Shown {
        running: info.is_some(),
        info,
    };
    emit(ctx.json, &shown, |s| match &s.info {
        None => format!(
            "no unlock session for {} (`graphex unlock` starts one)\n",
            root.display()
        ),
        Some(i) => format!(
            "store      {}\nlevel      {}\nserves     {}\nprocess    {}\nsince      {}\nidle left  {} of {}\ncommit     {}\nnodes      {}\ncommands   {}\nconsoles   {}\nmcp        {}\nmemory     {}\n",
            i.root.display(),
            i.level,
            i.terminal.as_deref().unwrap_or("any process of yours"),
            i.pid,
            i.since,
            idle_text(Duration::from_secs(i.idle_left_secs)),
            idle_text(Duration::from_secs(i.idle_limit_secs)),
            i.commit,
            i.nodes,
            i.requests,
            i.consoles,
            i.mcp_servers,
            i.memory
        ),
    })
}

/// The hidden `session-serve`: the session process.
pub fn serve(ctx: &Context, a: &ServeArgs) -> Result<()> {
    let terms = start::Terms {
        level: a.level,
        idle: Duration::from_secs(a.idle_secs),
        human_for: a.human_secs.map(Duration::from_secs),
        any_terminal: a.any_terminal,
    };
    start::serve(ctx.root()?, terms, a.login)
}

/// The session holding `root`, if one answers and proves it holds the
/// store's key. A socket left by a session that crashed is removed (and
/// said); one where something else listens is an error naming it.
fn running(root: &std::path::Path) -> Result<Option<(std::path::PathBuf, Info)>> {
    let Some(socket) = paths::existing_socket(root) else {
        return Ok(None);
    };
    match client::status(&socket, root) {
        Ok(info) => Ok(Some((socket, info))),
        Err(e) if e.downcast_ref::<client::Stale>().is_some() => {
            note(&format!("{e}"));
            Ok(None)
        }
        Err(e) if e.downcast_ref::<client::NotTheSession>().is_some() => Err(e.context(format!(
            "refused: nothing was sent to it; find what listens there (`ss -xlp | grep {}`), end it and remove the socket",
            socket.display()
        ))),
        Err(e) => Err(e.context(format!("the unlock session at {} does not answer", socket.display()))),
    }
}

fn idle_text(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}
