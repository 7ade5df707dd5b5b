//! Length-prefixed JSON frames over a stream: what the unlock session and
//! its clients (a command line, a console) send each other. A frame over
//! the reader's limit is refused before it is read.

use std::io::{Read, Write};

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};

/// Writes one frame. Its bytes are wiped once written (a frame may hold a
/// passphrase on its way to the session).
pub fn send<T: Serialize>(w: &mut impl Write, value: &T) -> Result<()> {
    let body = zeroize::Zeroizing::new(serde_json::to_vec(value)?);
    let len = u32::try_from(body.len()).context("a frame over 4 GiB")?;
    w.write_all(&len.to_be_bytes())?;
    w.write_all(&body)?;
    w.flush()?;
    Ok(())
}

/// Reads one frame of at most `max` bytes, its buffer growing with what
/// arrives (a header alone reserves nothing) and wiped once parsed.
pub fn receive<T: for<'de> Deserialize<'de>>(r: &mut impl Read, max: usize) -> Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).context("the other end closed the connection")?;
    let len = usize::try_from(u32::from_be_bytes(len))?;
    if len > max {
        bail!("a frame of {len} bytes (the limit is {max})");
    }
    let mut body = zeroize::Zeroizing::new(Vec::new());
    r.take(u64::try_from(len)?).read_to_end(&mut body)?;
    if body.len() < len {
        bail!("the frame ended early");
    }
    serde_json::from_slice(&body).context("the frame does not parse")
}
