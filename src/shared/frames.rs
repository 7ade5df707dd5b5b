//! Length-prefixed JSON frames over a stream: what the unlock session and
//! its clients (a command line, a console) send each other. A frame over
//! the reader's limit is refused before it is read.

use std::io::{Read, Write};
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use graphex_engine::keys::channel::{ChannelKey, Direction};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

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

/// Reads one frame's bytes, unparsed (what a session's first request is
/// kept as: the channel key is bound to exactly these bytes).
pub fn receive_bytes(r: &mut impl Read, max: usize) -> Result<Zeroizing<Vec<u8>>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).context("the other end closed the connection")?;
    let len = usize::try_from(u32::from_be_bytes(len))?;
    if len > max {
        bail!("a frame of {len} bytes (the limit is {max})");
    }
    let mut body = Zeroizing::new(Vec::new());
    r.take(u64::try_from(len)?).read_to_end(&mut body)?;
    if body.len() < len {
        bail!("the frame ended early");
    }
    Ok(body)
}

/// Writes `body` as one frame.
pub fn send_bytes(w: &mut impl Write, body: &[u8]) -> Result<()> {
    let len = u32::try_from(body.len()).context("a frame over 4 GiB")?;
    w.write_all(&len.to_be_bytes())?;
    w.write_all(body)?;
    w.flush()?;
    Ok(())
}

/// One direction of a connection whose frames are encrypted under the
/// channel key ([`graphex_engine::keys::channel`]), numbered from 0, so a
/// frame that was read, forged, replayed, dropped or reordered is refused.
pub struct Tagged {
    key: Arc<ChannelKey>,
    direction: Direction,
    counter: u64,
}

impl Tagged {
    /// Frames going `direction`, the next one numbered `counter`.
    pub fn new(key: Arc<ChannelKey>, direction: Direction, counter: u64) -> Self {
        Tagged {
            key,
            direction,
            counter,
        }
    }

    /// Writes `value`, encrypted.
    pub fn send<T: Serialize>(&mut self, w: &mut impl Write, value: &T) -> Result<()> {
        let body = Zeroizing::new(serde_json::to_vec(value)?);
        let sealed = self.key.seal(self.direction, self.counter, &body)?;
        send_bytes(w, &sealed)?;
        self.counter += 1;
        Ok(())
    }

    /// Reads a frame, refusing one the channel key does not open.
    pub fn receive<T: for<'de> Deserialize<'de>>(&mut self, r: &mut impl Read, max: usize) -> Result<T> {
        let sealed = receive_bytes(r, max)?;
        let Some(body) = self.key.open(self.direction, self.counter, &sealed) else {
            bail!("a frame the channel key does not open (forged, replayed or out of order)");
        };
        self.counter += 1;
        serde_json::from_slice(&body).context("the frame does not parse")
    }
}

/// A connection whose frames are encrypted both ways: the session's end of
/// a console's connection, or the console's.
pub struct Channel {
    pub stream: std::os::unix::net::UnixStream,
    pub sending: Tagged,
    pub receiving: Tagged,
}

impl Channel {
    /// Two ends of a socket pair under one random key, the first the
    /// client's (tests).
    pub fn pair() -> Result<(Channel, Channel)> {
        let (a, b) = std::os::unix::net::UnixStream::pair()?;
        let key = Arc::new(ChannelKey::random()?);
        let end = |stream, send, receive| Channel {
            stream,
            sending: Tagged::new(Arc::clone(&key), send, 0),
            receiving: Tagged::new(Arc::clone(&key), receive, 0),
        };
        Ok((
            end(a, Direction::ToSession, Direction::ToClient),
            end(b, Direction::ToClient, Direction::ToSession),
        ))
    }
}
