//! Printing: JSON when `--json` is given, aligned text otherwise. Messages for
//! people go to stderr so stdout stays clean for pipes. Everything printed
//! passes through here, so node text (which an agent may have written) is
//! made visible in one place: terminal escapes, controls, bidirectional and
//! zero-width characters are shown escaped, never sent raw.

use std::cell::RefCell;
use std::io::Write;

use anyhow::Result;
use graphex_engine::hygiene::{json_safe, visible_line, visible_text};
use serde::Serialize;

/// What a command printed, when it ran for an unlock session's client
/// rather than on this process's own stdout and stderr.
#[derive(Debug, Default)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// Runs `f` with everything this module prints kept aside, and returns it
/// with `f`'s result (the unlock session answers its clients this way).
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Captured) {
    CAPTURE.with(|c| *c.borrow_mut() = Some(Captured::default()));
    let result = f();
    let captured = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (result, captured)
}

/// Writes `bytes` to stdout, or to the capture when one is running.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let kept = CAPTURE.with(|c| c.borrow_mut().as_mut().map(|c| c.stdout.extend_from_slice(bytes)));
    if kept.is_none() {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
    }
    Ok(())
}

/// Writes `text` and a line break to stderr, or to the capture.
pub fn write_stderr_line(text: &str) {
    let kept = CAPTURE.with(|c| {
        c.borrow_mut().as_mut().map(|c| {
            c.stderr.extend_from_slice(text.as_bytes());
            c.stderr.push(b'\n');
        })
    });
    if kept.is_none() {
        eprintln!("{text}");
    }
}

/// Prints `value` as JSON, or runs `text` to print it for people.
pub fn emit<T: Serialize>(json: bool, value: &T, text: impl FnOnce(&T) -> String) -> Result<()> {
    if json {
        // serde escapes C0 controls but leaves DEL, C1 and bidi raw.
        let json = serde_json::to_string_pretty(value)?;
        write_stdout(format!("{}\n", json_safe(&json)).as_bytes())
    } else {
        write_stdout(visible_text(&text(value)).as_bytes())
    }
}

/// Prints text of our own (not node content) to stdout; an error (a closed
/// pipe) is returned, never a panic.
pub fn say(text: &str) -> Result<()> {
    write_stdout(text.as_bytes())
}

/// Whether `e` is a write to a reader that went away (`graphex list | head`):
/// not a failure, the reader has what it wanted.
pub fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A note for people on stderr (never part of machine output).
pub fn note(msg: &str) {
    write_stderr_line(&visible_text(msg));
}

/// What the process prints on stderr for a command that failed: the error
/// (its text may quote agent text, so it is made visible) and a hint.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut s = format!("error: {}\n", visible_text(&format!("{e:#}")));
    if let Some(hint) = super::hints::for_error(e) {
        s.push_str(&format!("hint: {hint}\n"));
    }
    s
}

/// Renders rows as left-aligned columns; the last column is not padded.
/// A cell is one line: a line break in it is shown as `\n`, so it cannot
/// start a row of its own.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| visible_line(c).into_owned()).collect())
        .collect();
    let rows = &rows;
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, cell) in cells.enumerate() {
            if i + 1 == cols {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

/// Cuts `s` to `max` characters with an ellipsis.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The settings in force (the ones the master approved), with a warning on
/// stderr when `.gpp/config.toml` differs from them.
pub fn config_in_force(store: &graphex_engine::store::Store) -> Result<graphex_engine::config::Config> {
    let c = store.config()?;
    if let Some(w) = c.warning() {
        note(&format!("warning: {w}"));
    }
    Ok(c.config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = table(
            &["a", "bb"],
            &[vec!["long".into(), "x".into()], vec!["s".into(), "y".into()]],
        );
        assert_eq!(t, "a     bb\nlong  x\ns     y\n");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
