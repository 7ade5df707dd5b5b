//! Reading an input a line at a time (JSONL), never holding more than one
//! line of at most [`MAX_LINE_BYTES`]: a longer line is read through,
//! dropped and refused with its length, and reading goes on.

use std::io::BufRead;

use super::{MAX_LINE_BYTES, Mapped};
use crate::error::{Error, Result};

/// One line read: its bytes (without the newline), or only its length when
/// it was over the limit.
pub(super) enum Line {
    Text,
    TooLong(usize),
    End,
}

/// Reads the next line into `buf` (cleared first), keeping at most `max`
/// bytes of it.
pub(super) fn next_line(read: &mut dyn BufRead, buf: &mut Vec<u8>, max: usize, file: &str) -> Result<Line> {
    buf.clear();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = read.fill_buf().map_err(|e| read_error(file, &e))?;
        if chunk.is_empty() {
            return Ok(match (any, len > max) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong(len),
                (true, false) => Line::Text,
            });
        }
        any = true;
        let newline = chunk.iter().position(|b| *b == b'\n');
        let body = newline.unwrap_or(chunk.len());
        if len + body <= max {
            buf.extend_from_slice(&chunk[..body]);
        } else {
            buf.clear();
        }
        len += body;
        read.consume(newline.map_or(body, |n| n + 1));
        if newline.is_some() {
            return Ok(if len > max { Line::TooLong(len) } else { Line::Text });
        }
    }
}

/// An I/O error while reading `file` (a file over the import's cap is one).
pub(super) fn read_error(file: &str, e: &std::io::Error) -> Error {
    Error::Document {
        path: file.to_owned(),
        reason: format!("cannot read: {e}"),
    }
}

/// Calls `each` with the item name (`line N`, counted from `first`) and the
/// bytes of every non-blank line left in `read`; a line over
/// [`MAX_LINE_BYTES`] is refused instead.
pub(super) fn each_line(
    read: &mut dyn BufRead,
    file: &str,
    first: usize,
    m: &mut Mapped,
    mut each: impl FnMut(&mut Mapped, String, &[u8]),
) -> Result<()> {
    let mut buf = Vec::new();
    let mut number = first;
    loop {
        let item = format!("line {number}");
        number += 1;
        match next_line(read, &mut buf, MAX_LINE_BYTES, file)? {
            Line::End => return Ok(()),
            Line::TooLong(n) => m.refuse(file, item, format!("{n} bytes; a line holds at most {MAX_LINE_BYTES}")),
            Line::Text if buf.iter().all(u8::is_ascii_whitespace) => {}
            Line::Text => each(m, item, &buf),
        }
    }
}
