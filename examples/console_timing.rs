//! Times the real console in a pseudo-terminal, as a user sees it:
//! - start to first frame (the shell drawn),
//! - start to the queue frame (store open, queue read and drawn),
//! - start to the lints shown (they follow the queue),
//! - key to frame: `j`/`k` in the queue until the card shows the next
//!   proposal (includes the pseudo-terminal and the emulator reading it).
//!
//! usage: console_timing RUNS PROGRAM [ARGS...]
//! Variables named GRAPHEX_* are passed on, e.g. GRAPHEX_IDENTITY.
//! scripts/bench.sh runs it on the demo store and on the 100k store.

#[allow(dead_code, clippy::unwrap_used)]
#[path = "../tests/cli/pty.rs"]
mod pty;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow};
use pty::{Console, PATIENCE};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args
        .next()
        .context("RUNS missing")?
        .parse()
        .context("RUNS must be a number")?;
    let program = PathBuf::from(args.next().context("PROGRAM missing")?);
    let rest: Vec<String> = args.collect();
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    let env: Vec<(String, String)> = std::env::vars().filter(|(k, _)| k.starts_with("GRAPHEX_")).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let home = tempfile::tempdir()?;
    let (mut first, mut queue, mut lints, mut keys) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut c = Console::start(&program, home.path(), &rest, &env, 120, 36);
        c.try_wait_for("the first frame", PATIENCE, |s| s.contains("1 Queue"))
            .map_err(|e| anyhow!(e))?;
        first.push(t0.elapsed());
        c.try_wait_for("the queue", PATIENCE, |s| {
            s.contains("[1/") || s.contains("No proposals waiting")
        })
        .map_err(|e| anyhow!(e))?;
        queue.push(t0.elapsed());
        c.try_wait_for("the lints", PATIENCE, |s| !s.contains("[checking]"))
            .map_err(|e| anyhow!(e))?;
        lints.push(t0.elapsed());
        let n = pending(&c.screen());
        for i in 0..if n > 1 { 30 } else { 0 } {
            let before = card_title(&c.screen());
            let key = if (i / (n - 1)).is_multiple_of(2) { "j" } else { "k" };
            let t = Instant::now();
            c.send(key);
            c.try_wait_for("the next card", PATIENCE, |s| card_title(s) != before)
                .map_err(|e| anyhow!(e))?;
            keys.push(t.elapsed());
        }
        c.send("q");
        c.wait_exit();
    }
    report("start to first frame", &mut first);
    report("start to queue frame", &mut queue);
    report("start to lints shown", &mut lints);
    report("key to frame (j/k)", &mut keys);
    Ok(())
}

/// The number of proposals in the tab title "Queue (N)" or "Queue (N · M≠)".
fn pending(screen: &str) -> usize {
    screen
        .split_once("Queue (")
        .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The card's title line: "Proposal <id>".
fn card_title(screen: &str) -> String {
    screen
        .split_once("Proposal ")
        .map(|(_, rest)| rest.chars().take(12).collect())
        .unwrap_or_default()
}

fn report(what: &str, samples: &mut [Duration]) {
    if samples.is_empty() {
        println!("{what}: no samples");
        return;
    }
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what}: median {:.1} ms, min {:.1} ms, max {:.1} ms ({} samples)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
}
