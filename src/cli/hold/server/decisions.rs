//! The session's own record of the decisions it made for its clients, with
//! the terminal each came from: a line per accept, reject, request for
//! changes or undo, appended to `session-decisions.log` in the user's state
//! directory (0600). The store's timeline says what was decided; this says
//! from which terminal, since the key that signed it was the session's.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use graphex_engine::model::Timestamp;

use super::super::ops::Op;
use super::super::peer::Peer;
use super::super::terminal::Terminal;

/// The log's file name in the state directory.
pub const FILE: &str = "session-decisions.log";

/// Where the log lives.
pub fn path() -> Option<PathBuf> {
    graphex_engine::freshness::state_dir().map(|d| d.join(FILE))
}

/// One line: when, which store, what, its exit status, and from where.
pub fn line(root: &Path, op: &Op, code: u8, peer: Peer, terminal: Option<Terminal>) -> String {
    let what = op.decision();
    let from = terminal.map_or_else(|| "an unknown terminal".to_owned(), |t| t.describe());
    format!(
        "{} store={} {what:?} exit={code} pid={} from={from:?}\n",
        Timestamp::now().to_rfc3339(),
        root.display(),
        peer.pid
    )
}

/// Appends the line for a decision (best effort: a log that cannot be
/// written never undoes a decision made).
pub fn record(root: &Path, op: &Op, code: u8, peer: Peer, terminal: Option<Terminal>) {
    let Some(path) = path() else { return };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text = line(root, op, code, peer, terminal);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
    {
        // One write of one short line: appended whole.
        let _ = f.write_all(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_recorded_with_its_terminal() {
        let me = Peer {
            uid: 0,
            pid: i32::try_from(std::process::id()).expect("pid"),
        };
        let t = Terminal::own();
        let l = line(Path::new("/r"), &Op::Undo, 0, me, t);
        assert!(l.contains("store=/r \"undo\" exit=0"), "{l}");
        let from = t.map_or_else(|| "an unknown terminal".to_owned(), |t| t.describe());
        assert!(l.contains(&format!("from={from:?}")), "{l}");
        assert!(l.ends_with('\n') && l.matches('\n').count() == 1);
    }
}
