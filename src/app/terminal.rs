//! The terminal: raw mode, the alternate screen, mouse and paste capture,
//! and their undoing on every way out (return, error, panic, a signal). The
//! panic hook restores the screen first and prints only the panic's place,
//! never state that may hold decrypted content. Every way out also wipes
//! the screen and the scrollback first, so decrypted text is not left on a
//! terminal that keeps the alternate screen (or has none).

use std::io::{IsTerminal, Write};

use anyhow::{Result, bail};
use crossterm::event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture};
use crossterm::terminal::{Clear, ClearType};
use crossterm::{cursor, execute, queue};
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::layout::{Position, Rect};
use tokio::signal::unix::{Signal, SignalKind, signal};

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

/// Clears the screen and the scrollback and makes the next frame draw in
/// full, without asking the terminal anything. `Terminal::clear` reads the
/// cursor position first, a reply that never comes while the event stream
/// reads the input (tmux shows it as "cursor position could not be read"):
/// locking must not depend on a terminal answering.
pub fn wipe<B: Backend>(term: &mut Terminal<B>, out: &mut impl Write) -> Result<()>
where
    B::Error: Send + Sync + 'static,
{
    queue!(
        out,
        Clear(ClearType::Purge),
        Clear(ClearType::All),
        cursor::MoveTo(0, 0)
    )?;
    out.flush()?;
    // The size comes from the kernel (an ioctl), not from the terminal.
    let size = term.size()?;
    // A full-screen resize clears the screen and forgets the last frame.
    term.resize(Rect::from((Position::ORIGIN, size)))?;
    Ok(())
}

/// The signals that end the console: each one wipes the screen and
/// restores the terminal on the way out instead of killing the process
/// with decrypted text on the screen.
pub struct Signals(Vec<(&'static str, Signal)>);

impl Signals {
    /// Takes over SIGTERM, SIGHUP, SIGINT and SIGQUIT (the last two come as
    /// keys in raw mode, but `kill` still sends them).
    pub fn catch() -> Result<Self> {
        let kinds = [
            ("SIGTERM", SignalKind::terminate()),
            ("SIGHUP", SignalKind::hangup()),
            ("SIGINT", SignalKind::interrupt()),
            ("SIGQUIT", SignalKind::quit()),
        ];
        let mut all = Vec::with_capacity(kinds.len());
        for (name, kind) in kinds {
            all.push((name, signal(kind)?));
        }
        Ok(Self(all))
    }

    /// Waits for the next signal and names it.
    pub async fn next(&mut self) -> &'static str {
        let waits = self.0.iter_mut().map(|(name, s)| {
            Box::pin(async move {
                s.recv().await;
                *name
            })
        });
        futures_util::future::select_all(waits).await.0
    }
}

/// Comes back to the console's screen after [`leave`] (an external
/// editor ran): raw mode, the alternate screen and the captures as at
/// [`enter`], and the next frame drawn whole.
pub fn resume<B: Backend>(term: &mut Terminal<B>, mouse: bool) -> Result<()>
where
    B::Error: Send + Sync + 'static,
{
    crossterm::terminal::enable_raw_mode()?;
    let mut out = std::io::stdout();
    execute!(out, crossterm::terminal::EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    wipe(term, &mut out)
}

/// Leaves the console's screen; safe to call more than once.
pub fn leave() {
    let mut out = std::io::stdout();
    // Wiped before leaving: a terminal without an alternate screen (or one
    // told to keep it) would otherwise keep the last frame.
    let _ = execute!(out, Clear(ClearType::Purge), Clear(ClearType::All));
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

#[cfg(test)]
mod tests {
    use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
    use ratatui::buffer::Cell;
    use ratatui::layout::{Position, Size};
    use ratatui::widgets::Paragraph;

    /// A terminal that never answers a question (tmux while the event
    /// stream reads the input): the cursor position cannot be read.
    struct Mute(TestBackend);

    fn mute() -> std::io::Error {
        std::io::Error::other("the cursor position could not be read")
    }

    impl Backend for Mute {
        type Error = std::io::Error;
        fn draw<'a, I: Iterator<Item = (u16, u16, &'a Cell)>>(&mut self, content: I) -> std::io::Result<()> {
            self.0.draw(content).map_err(|e| match e {})
        }
        fn hide_cursor(&mut self) -> std::io::Result<()> {
            self.0.hide_cursor().map_err(|e| match e {})
        }
        fn show_cursor(&mut self) -> std::io::Result<()> {
            self.0.show_cursor().map_err(|e| match e {})
        }
        fn get_cursor_position(&mut self) -> std::io::Result<Position> {
            Err(mute())
        }
        fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> std::io::Result<()> {
            self.0.set_cursor_position(position).map_err(|e| match e {})
        }
        fn clear(&mut self) -> std::io::Result<()> {
            self.0.clear().map_err(|e| match e {})
        }
        fn clear_region(&mut self, clear_type: ClearType) -> std::io::Result<()> {
            self.0.clear_region(clear_type).map_err(|e| match e {})
        }
        fn size(&self) -> std::io::Result<Size> {
            self.0.size().map_err(|e| match e {})
        }
        fn window_size(&mut self) -> std::io::Result<WindowSize> {
            Err(mute())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.0.flush().map_err(|e| match e {})
        }
    }

    #[test]
    fn wiping_clears_screen_and_scrollback_without_asking_the_terminal() {
        let mut term = ratatui::Terminal::new(Mute(TestBackend::new(30, 3))).unwrap();
        term.draw(|f| f.render_widget(Paragraph::new("canary-0b5e"), f.area()))
            .unwrap();
        // The call the lock used to make fails on such a terminal.
        assert!(term.clear().is_err(), "the mute terminal reproduces the failure");
        let mut out = Vec::new();
        super::wipe(&mut term, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("\x1b[3J"), "the scrollback is purged: {out:?}");
        assert!(out.contains("\x1b[2J"), "the screen is cleared: {out:?}");
        let shown = format!("{:?}", term.backend().0.buffer());
        assert!(!shown.contains("canary-0b5e"), "{shown}");
        // The next frame is drawn in full, not diffed against the old one.
        term.draw(|f| f.render_widget(Paragraph::new("after"), f.area()))
            .unwrap();
        assert!(format!("{:?}", term.backend().0.buffer()).contains("after"));
    }
}
