//! The private file `graphex edit` hands to the editor. It holds the
//! decrypted proposal, so it lives in a fresh 0700 directory as a 0600 file
//! (readable by nobody else, whatever the umask), and the directory is
//! removed however `graphex edit` ends: a normal return, an error, or
//! SIGHUP / SIGTERM while it runs (the editor is stopped first). SIGINT
//! while the editor runs belongs to the editor (vim uses ctrl-c), as it
//! does for git; at any other moment it ends the program, cleaning up too.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use anyhow::{Context as _, Result};

/// The directory to remove if a signal ends the program.
static CLEANUP: Mutex<Option<PathBuf>> = Mutex::new(None);
/// The running editor, stopped if a signal ends the program.
static EDITOR: Mutex<Option<Child>> = Mutex::new(None);
/// Set once the signal handlers are in place.
static WATCHING: OnceLock<std::result::Result<(), String>> = OnceLock::new();

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The edit's directory and file; removed when dropped.
pub struct Scratch {
    dir: Option<tempfile::TempDir>,
    file: PathBuf,
}

impl Scratch {
    /// Writes `text` to `<0700 dir>/<name>` (0600), with the signal
    /// handlers in place before a byte is written.
    pub fn new(name: &str, text: &str) -> Result<Self> {
        watch_signals()?;
        let dir = tempfile::Builder::new()
            .prefix("graphex-edit-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .context("cannot create a private temporary directory for the edit")?;
        *lock(&CLEANUP) = Some(dir.path().to_owned());
        let scratch = Self {
            file: dir.path().join(name),
            dir: Some(dir),
        };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&scratch.file)
            .with_context(|| format!("cannot create {}", scratch.file.display()))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .with_context(|| format!("cannot write {}", scratch.file.display()))?;
        Ok(scratch)
    }

    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Runs `editor` on the file and waits for it. The child is polled
    /// rather than waited on so that a signal handler can stop it.
    pub fn run(&self, editor: &str) -> Result<ExitStatus> {
        let child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("graphex-edit")
            .arg(&self.file)
            .spawn()
            .with_context(|| format!("cannot start the editor {editor:?} (set VISUAL or EDITOR)"))?;
        *lock(&EDITOR) = Some(child);
        loop {
            {
                let mut slot = lock(&EDITOR);
                let Some(child) = slot.as_mut() else {
                    // Only the signal thread takes the editor, and it ends
                    // the process with the signal's status once the file
                    // is gone: returning an error here would race it to
                    // `exit` with status 1.
                    drop(slot);
                    loop {
                        std::thread::park();
                    }
                };
                if let Some(status) = child.try_wait().context("waiting for the editor")? {
                    *slot = None;
                    return Ok(status);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Under the lock, so a signal arriving now finds either the
        // directory still registered or already gone.
        let mut cleanup = lock(&CLEANUP);
        *cleanup = None;
        if let Some(dir) = self.dir.take()
            && let Err(e) = dir.close()
        {
            eprintln!("warning: could not remove the edit's temporary directory: {e}");
        }
    }
}

/// Installs the handlers once, on a thread of their own (the CLI is
/// synchronous). They stay for the rest of the process, which ends soon
/// after an edit; outside an edit they end it as the default action would.
fn watch_signals() -> Result<()> {
    let ready = WATCHING.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("graphex-edit-signals".into())
            .spawn(move || signal_thread(&tx));
        match spawned {
            Ok(_) => rx.recv().unwrap_or_else(|_| Err("the signal thread stopped".into())),
            Err(e) => Err(e.to_string()),
        }
    });
    ready
        .clone()
        .map_err(|e| anyhow::anyhow!("cannot watch for signals during the edit: {e}"))
}

fn signal_thread(ready: &std::sync::mpsc::Sender<std::result::Result<(), String>>) {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            let _ = ready.send(Err(e.to_string()));
            return;
        }
    };
    runtime.block_on(async {
        let streams = (|| {
            Ok::<_, std::io::Error>((
                signal(SignalKind::hangup())?,
                signal(SignalKind::terminate())?,
                signal(SignalKind::interrupt())?,
            ))
        })();
        let (mut hup, mut term, mut int) = match streams {
            Ok(s) => s,
            Err(e) => {
                let _ = ready.send(Err(e.to_string()));
                return;
            }
        };
        let _ = ready.send(Ok(()));
        loop {
            let signo = tokio::select! {
                _ = hup.recv() => 1,
                _ = term.recv() => 15,
                _ = int.recv() => 2,
            };
            if signo == 2 && lock(&EDITOR).is_some() {
                continue;
            }
            end(signo);
        }
    });
}

/// Stops the editor, removes the edit's directory, and exits with the
/// status a shell reports for death by that signal.
fn end(signo: i32) -> ! {
    if let Some(mut child) = lock(&EDITOR).take() {
        let _ = child.kill();
        let _ = child.wait();
    }
    if let Some(dir) = lock(&CLEANUP).take() {
        let _ = std::fs::remove_dir_all(dir);
    }
    std::process::exit(128 + signo)
}
