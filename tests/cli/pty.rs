//! Runs a program in a pseudo-terminal and reads its screen through a
//! terminal emulator, waiting on conditions (new output), never sleeping.
//! Shared by the console's end-to-end tests and `examples/console_timing.rs`.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};

/// How long a screen may take to show what a test waits for.
pub const PATIENCE: Duration = Duration::from_secs(30);

struct Shared {
    parser: vt100::Parser,
    closed: bool,
}

/// A running console in a pseudo-terminal.
pub struct Console {
    shared: Arc<(Mutex<Shared>, Condvar)>,
    writer: Box<dyn std::io::Write + Send>,
    child: Box<dyn Child + Send + Sync>,
}

impl Console {
    /// Starts `program` with `args` in `cwd` on a `cols`×`rows` terminal,
    /// with a clean environment: `PATH`, `TERM`, a home under `cwd/home`,
    /// and `env`.
    pub fn start(program: &Path, cwd: &Path, args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.cwd(cwd);
        cmd.env_clear();
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
        cmd.env("TERM", "xterm-256color");
        cmd.env("HOME", cwd.join("home"));
        cmd.env("XDG_CONFIG_HOME", cwd.join("home/config"));
        cmd.env("XDG_STATE_HOME", cwd.join("home/state"));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let shared = Arc::new((
            Mutex::new(Shared {
                parser: vt100::Parser::new(rows.try_into().unwrap(), cols.try_into().unwrap(), 0),
                closed: false,
            }),
            Condvar::new(),
        ));
        let feed = Arc::clone(&shared);
        std::thread::spawn(move || {
            // The master must stay alive while the child writes.
            let _master = pty.master;
            let mut buf = [0u8; 8192];
            loop {
                let n = reader.read(&mut buf).unwrap_or(0);
                let (lock, cv) = &*feed;
                let mut s = lock.lock().unwrap();
                if n == 0 {
                    s.closed = true;
                } else {
                    s.parser.process(&buf[..n]);
                }
                cv.notify_all();
                if n == 0 {
                    return;
                }
            }
        });
        Self { shared, writer, child }
    }

    /// The screen's text, one line per row.
    pub fn screen(&self) -> String {
        self.shared.0.lock().unwrap().parser.screen().contents()
    }

    /// The started program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    /// Types `keys` as bytes.
    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits until the screen satisfies `ok`; the error names `what` and
    /// shows the screen.
    pub fn try_wait_for(&self, what: &str, within: Duration, ok: impl Fn(&str) -> bool) -> Result<(), String> {
        let deadline = Instant::now() + within;
        let (lock, cv) = &*self.shared;
        let mut s = lock.lock().unwrap();
        loop {
            let text = s.parser.screen().contents();
            if ok(&text) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline || s.closed {
                let why = if s.closed { "the program ended" } else { "timed out" };
                return Err(format!("{why} waiting for {what}; the screen was:\n{text}"));
            }
            s = cv.wait_timeout(s, deadline - now).unwrap().0;
        }
    }

    /// Waits until `text` is on screen, or fails the test.
    pub fn wait_for(&self, text: &str) {
        if let Err(e) = self.try_wait_for(&format!("{text:?}"), PATIENCE, |s| s.contains(text)) {
            panic!("{e}");
        }
    }

    /// After the program ended: the terminal as it was before (main
    /// screen, cursor shown, no mouse reporting), else what is left on.
    pub fn restored(&self) -> Result<(), String> {
        let s = self.shared.0.lock().unwrap();
        let screen = s.parser.screen();
        let mut left = Vec::new();
        if screen.alternate_screen() {
            left.push("the alternate screen");
        }
        if screen.hide_cursor() {
            left.push("a hidden cursor");
        }
        if screen.mouse_protocol_mode() != vt100::MouseProtocolMode::None {
            left.push("mouse reporting");
        }
        if screen.bracketed_paste() {
            left.push("bracketed paste");
        }
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("the terminal was left with {}", left.join(", ")))
        }
    }

    /// Waits until `text` is gone from the screen, or fails the test.
    pub fn wait_gone(&self, text: &str) {
        if let Err(e) = self.try_wait_for(&format!("{text:?} to go"), PATIENCE, |s| !s.contains(text)) {
            panic!("{e}");
        }
    }

    /// Waits for the program to end and returns its exit code. The end is
    /// the output closing, not the process exiting: a process can be gone
    /// while the last of what it wrote (leaving the alternate screen,
    /// showing the cursor) is still on its way to the screen, and
    /// [`Console::restored`] must see it.
    pub fn wait_exit(&mut self) -> u32 {
        let deadline = Instant::now() + PATIENCE;
        let (lock, cv) = &*self.shared;
        let mut s = lock.lock().unwrap();
        while !s.closed {
            let now = Instant::now();
            assert!(
                now < deadline,
                "the console did not exit:\n{}",
                s.parser.screen().contents()
            );
            s = cv.wait_timeout(s, deadline - now).unwrap().0;
        }
        drop(s);
        self.child.wait().unwrap().exit_code()
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}
