//! The terminal console: terminal setup, events, actions, keymap, state,
//! the pure `update`, the engine worker and the panes.
//!
//! Flow: one `tokio::select!` loop over terminal events, engine replies and
//! signals (a signal wipes the screen and ends the console). Keys become [`action::Action`]s through the keymap; `update`
//! changes the state and returns effects; requests go to the one engine
//! worker thread; the screen is drawn from the state only when something
//! changed.

pub mod action;
pub mod clipboard;
pub mod component;
pub mod config;
#[cfg(test)]
mod conversation_snapshots;
mod dialog_keys;
#[cfg(test)]
mod direction;
pub mod effect;
pub mod filter_line;
pub mod highlight;
pub mod keymap;
pub mod layout;
pub mod logging;
pub mod new_file;
pub mod palette;
pub mod panes;
mod quit;
#[cfg(test)]
mod snapshots;
#[cfg(test)]
mod snapshots_80x24;
pub mod state;
pub mod subject;
pub mod terminal;
#[cfg(test)]
pub(crate) mod tests;
pub mod text_input;
pub mod theme;
pub mod update;
pub mod view;
pub mod worker;

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use crossterm::event::{Event, EventStream, MouseEventKind};
use futures_util::StreamExt as _;
use graphex_engine::Credentials;
use graphex_engine::model::Timestamp;

use config::ConsoleConfig;
use state::AppState;
use update::{Effect, Msg, update};
use worker::Request;

/// What the console opens.
pub struct Options {
    pub root: PathBuf,
    pub creds: Credentials,
    /// The unlock session that hosts the worker (its keys stay there);
    /// `None`: the console opens the store itself with `creds`.
    pub session: Option<crate::shared::frames::Channel>,
    /// A revision range for the Projection pane to compare with (`graphex
    /// diff --console`): the base revision and the range's name.
    pub range: Option<(String, String)>,
}

/// True when `NO_COLOR` asks for no colour.
pub fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Runs the console until the user quits.
pub fn run(opts: Options) -> Result<()> {
    terminal::require_tty()?;
    let _log = logging::start();
    tracing::info!("console start");
    let config = ConsoleConfig::load(Some(&opts.root), no_color())?;
    for note in &config.notes {
        tracing::warn!(%note, "store config");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the event loop")?;
    let mut term = terminal::enter(config.mouse)?;
    let result = runtime.block_on(event_loop(&mut term, opts, config));
    terminal::leave();
    tracing::info!(ok = result.is_ok(), "console stop");
    result
}

/// Turns a terminal event into a message; `None` for events that change
/// nothing on screen (mouse motion, focus).
pub fn message(e: Event) -> Option<Msg> {
    match e {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Mouse(m) if matches!(m.kind, MouseEventKind::Moved | MouseEventKind::Drag(_)) => None,
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        Event::Paste(p) => Some(Msg::Paste(p)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::FocusGained | Event::FocusLost => None,
    }
}

/// The next terminal event if one is already waiting, else `None` at once.
/// The stream is polled from this task (never with a throwaway waker such
/// as `now_or_never`'s): crossterm arms one wake-up per pending poll, and a
/// wake-up sent to a dead waker would leave later keys unread.
async fn waiting_event(events: &mut EventStream) -> Option<std::io::Result<Event>> {
    tokio::select! {
        biased;
        ev = events.next() => ev,
        () = std::future::ready(()) => None,
    }
}

/// Runs the loop with its engine worker; on the way out, however the loop
/// ended, the worker finishes the decisions already asked for before the
/// console closes, so quitting never leaves a batch half applied.
async fn event_loop(term: &mut ratatui::DefaultTerminal, opts: Options, config: ConsoleConfig) -> Result<()> {
    let (reply_tx, replies) = tokio::sync::mpsc::unbounded_channel();
    let worker = match opts.session {
        Some(stream) => {
            worker::remote::remote(stream, opts.root.clone(), reply_tx).context("cannot talk to the unlock session")?
        }
        None => worker::spawn(opts.root.clone(), opts.creds, reply_tx),
    };
    let range = opts.range.map(|(rev, label)| panes::projection::RangeAsked {
        rev,
        label,
        open: false,
    });
    let result = serve(term, &opts.root, config, &worker.tx, replies, range).await;
    let _ = worker.tx.send(Request::Shutdown);
    drop(worker.tx);
    if worker.thread.join().is_err() {
        tracing::error!("the engine thread panicked");
    }
    result
}

async fn serve(
    term: &mut ratatui::DefaultTerminal,
    root: &std::path::Path,
    config: ConsoleConfig,
    tx: &std::sync::mpsc::Sender<Request>,
    mut replies: tokio::sync::mpsc::UnboundedReceiver<worker::Reply>,
    range: Option<panes::projection::RangeAsked>,
) -> Result<()> {
    let send = |r: Request| tx.send(r).map_err(|_| anyhow::anyhow!("the engine thread stopped"));
    send(Request::Open)?;
    // The highlighter is warmed off the UI thread once the store is open
    // (not while it opens: on two cores it would slow the first queue frame).
    let mut warmed = false;
    let styles = config.styles;
    let mut state = AppState::new(config.keymap, root.display().to_string());
    state.mouse = config.mouse;
    state.projection.range = range;
    // What the store's config tried to set and was refused is shown, not
    // silently dropped: the reviewer learns the repository asked for it.
    if let Some(first) = config.notes.first() {
        let more = config.notes.len() - 1;
        let tail = if more > 0 {
            format!(" (+{more} more in the log)")
        } else {
            String::new()
        };
        state.say(format!("{first}{tail}"), crate::widgets::Tone::Warn);
    }
    let size = term.size()?;
    state.size = (size.width, size.height);
    let mut events = EventStream::new();
    let mut signals = terminal::Signals::catch().context("cannot watch for signals")?;
    let mut dirty = true;
    loop {
        if dirty {
            state.now_ms = Timestamp::now().0;
            term.draw(|f| view::draw(f, &state, &styles))?;
            dirty = false;
        }
        let first = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(e)) => message(e),
                Some(Err(e)) => return Err(e).context("reading the terminal"),
                None => return Ok(()),
            },
            r = replies.recv() => match r {
                Some(r) => Some(Msg::Reply(r)),
                None => anyhow::bail!("the engine thread stopped"),
            },
            name = signals.next() => {
                // Wiped at once, before the worker is waited for; the
                // terminal itself is restored by `run` on the way out.
                if let Err(e) = terminal::wipe(term, &mut std::io::stdout()) {
                    tracing::warn!(error = %e, "wiping the screen");
                }
                tracing::info!(signal = name, "stopped by a signal");
                anyhow::bail!("stopped by {name}; the screen was cleared");
            }
        };
        // Everything already queued is applied before one draw.
        let mut batch: Vec<Msg> = first.into_iter().collect();
        while let Some(Ok(e)) = waiting_event(&mut events).await {
            batch.extend(message(e));
        }
        while let Ok(r) = replies.try_recv() {
            batch.push(Msg::Reply(r));
        }
        if !warmed
            && batch.iter().any(|m| {
                matches!(
                    m,
                    Msg::Reply(worker::Reply::Queue(_) | worker::Reply::Sealed { .. } | worker::Reply::OpenFailed(_))
                )
            })
        {
            warmed = true;
            std::thread::spawn(highlight::warm);
        }
        for msg in batch {
            #[cfg(debug_assertions)]
            test_panic(&msg);
            dirty = true;
            for effect in update(&mut state, msg) {
                match effect {
                    Effect::Request(r) => send(r)?,
                    Effect::Clipboard(text) => {
                        if let Err(e) = clipboard::copy(&mut std::io::stdout(), &text) {
                            state.error(format!("the clipboard: {e}"));
                        }
                    }
                    Effect::ClearScreen => {
                        // Locking has already dropped the keys; a screen that
                        // cannot be cleared is reported, never fatal.
                        if let Err(e) = terminal::wipe(term, &mut std::io::stdout()) {
                            tracing::warn!(error = %e, "clearing the screen");
                            state.error(format!("locked, but the screen could not be cleared: {e}"));
                        }
                    }
                    Effect::ExternalEdit { name, text } => {
                        let text = zeroize::Zeroizing::new(text);
                        // The editor reads the keys now: the stream that read
                        // them stops first (its reader thread lets go of the
                        // terminal's input when dropped), and a new one starts
                        // once the editor is done.
                        drop(events);
                        terminal::leave();
                        let result = crate::shared::external_edit::edit(&name, &text);
                        events = EventStream::new();
                        terminal::resume(term, state.mouse)?;
                        for effect in update(&mut state, Msg::Edited(result)) {
                            if let Effect::Request(r) = effect {
                                send(r)?;
                            }
                        }
                    }
                    // Routed by `update` before the effects reach the loop.
                    Effect::Go(_) => {}
                    Effect::Quit => {
                        if let Some(b) = state.busy.take() {
                            state.message = None;
                            state.busy = Some(format!("finishing: {b}; closing after it"));
                            term.draw(|f| view::draw(f, &state, &styles))?;
                        }
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Debug builds only: with `GRAPHEX_TEST_PANIC` set, F12 panics with a
/// canary in the payload, so the tests can prove that a panic restores the
/// terminal and prints nothing of the payload.
#[cfg(debug_assertions)]
fn test_panic(msg: &Msg) {
    if let Msg::Key(k) = msg
        && k.code == crossterm::event::KeyCode::F(12)
        && std::env::var_os("GRAPHEX_TEST_PANIC").is_some()
    {
        panic!("test panic: canary-7f3a9c");
    }
}
