//! Running git: a command in a directory, and its output or what git said.
//! Graphex never talks to a remote itself; git does (its transport, its
//! credentials).

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// `git -C dir`.
pub fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir);
    c
}

/// Runs `c`; its standard output, trimmed, or what git said.
pub fn run(mut c: Command, what: &str) -> Result<String> {
    let out = c.output().with_context(|| format!("{what}: cannot run git"))?;
    if !out.status.success() {
        bail!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
