//! Logs go to a file, never to the terminal: `$XDG_STATE_HOME/graphex/`
//! (or the platform's data directory), level from `GRAPHEX_LOG` (default
//! `info`). Log lines carry ids and counts, never node content.

use std::path::PathBuf;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// The directory holding `console.log`.
pub fn dir() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "graphex")?;
    Some(dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_path_buf())
}

/// Starts logging to the file; the guard flushes it when dropped. Without
/// a writable directory the console runs without a log.
pub fn start() -> Option<WorkerGuard> {
    let dir = dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let file = tracing_appender::rolling::never(&dir, "console.log");
    let (writer, guard) = tracing_appender::non_blocking(file);
    let filter = EnvFilter::try_from_env("GRAPHEX_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
