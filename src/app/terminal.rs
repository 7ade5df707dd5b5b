//! The terminal: raw mode, the alternate screen, mouse and paste capture,
//! and their undoing on every way out (return, error, panic, Ctrl-C). The
//! panic hook restores the screen first and prints only the panic's place,
//! never state that may hold decrypted content.

use std::io::{IsTerminal, Write};

use anyhow::{Result, bail};
use crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture};
use crossterm::execute;

/// Refuses to start without a terminal on both ends.
pub fn require_tty() -> Result<()> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "the console needs a terminal (stdin and stdout are not one here); use the CLI commands in scripts, e.g. `graphex status` or `graphex pending --json`"
        );
    }
    Ok(())
}

/// Enters the console's screen; `mouse` turns on mouse reporting.
pub fn enter(mouse: bool) -> Result<ratatui::DefaultTerminal> {
    install_panic_hook();
    let terminal = ratatui::try_init()?;
    let mut out = std::io::stdout();
    execute!(out, EnableBracketedPaste)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    Ok(terminal)
}

/// Leaves the console's screen; safe to call more than once.
pub fn leave() {
    let mut out = std::io::stdout();
    let _ = execute!(out, DisableMouseCapture, DisableBracketedPaste);
    ratatui::restore();
    let _ = out.flush();
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // The screen belongs to the main thread: a panic elsewhere (the
            // engine worker) ends the loop through its closed channel, and
            // the terminal is restored on that way out.
            if std::thread::current().name() == Some("main") {
                leave();
            }
            // The payload may quote state; only the location is printed.
            let place = info
                .location()
                .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
            eprintln!("graphex: internal error{place}; the terminal was restored. The log file has details.");
            tracing::error!(location = %place, "panic");
        }));
    });
}
