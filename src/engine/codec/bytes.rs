//! A bounds-checked reader and a writer for the fixed binary layouts.

use crate::error::{Error, Result};

/// A signed number as an unsigned one, small either way (for a varint).
pub(crate) fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// The signed number [`zigzag`] made `n` of.
pub(crate) fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// Reads fields from a byte slice; every read is bounds-checked.
pub struct Reader<'a> {
    buf: &'a [u8],
    what: &'a dyn Fn() -> String,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], what: &'a dyn Fn() -> String) -> Self {
        Self { buf, what }
    }

    fn short(&self) -> Error {
        Error::integrity((self.what)(), "truncated record")
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(self.short());
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.take(N)?.try_into().map_err(|_| self.short())
    }

    /// Reads the layout byte and checks it is `expected`.
    pub fn layout(&mut self, expected: u8) -> Result<()> {
        let found = self.u8()?;
        if found != expected {
            return Err(Error::UnknownFormat {
                what: (self.what)(),
                found,
            });
        }
        Ok(())
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    /// A u16-length-prefixed byte string.
    pub fn short_bytes(&mut self) -> Result<&'a [u8]> {
        let n = usize::from(self.u16()?);
        self.take(n)
    }
    /// A u32-length-prefixed byte string.
    pub fn long_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// UTF-8 text, u32-length-prefixed.
    pub fn string(&mut self) -> Result<String> {
        let raw = self.long_bytes()?;
        String::from_utf8(raw.to_vec()).map_err(|_| Error::integrity((self.what)(), "text is not UTF-8"))
    }
    /// An unsigned LEB128 number (at most ten bytes, no redundant zeros).
    pub fn varint(&mut self) -> Result<u64> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            out |= bits << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    break;
                }
                return Ok(out);
            }
        }
        Err(Error::integrity((self.what)(), "malformed number"))
    }
    /// A varint-length-prefixed byte string.
    pub fn var_bytes(&mut self) -> Result<&'a [u8]> {
        let n = usize::try_from(self.varint()?).unwrap_or(usize::MAX);
        self.take(n)
    }
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

/// Appends fields to a byte vector.
pub trait Writer {
    fn short_bytes(&mut self, b: &[u8]);
    fn long_bytes(&mut self, b: &[u8]);
    fn varint(&mut self, n: u64);
}

impl Writer for Vec<u8> {
    fn short_bytes(&mut self, b: &[u8]) {
        let n = u16::try_from(b.len()).unwrap_or(u16::MAX);
        self.extend_from_slice(&n.to_le_bytes());
        self.extend_from_slice(&b[..usize::from(n)]);
    }
    fn long_bytes(&mut self, b: &[u8]) {
        let n = u32::try_from(b.len()).unwrap_or(u32::MAX);
        self.extend_from_slice(&n.to_le_bytes());
        self.extend_from_slice(&b[..n as usize]);
    }
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.push(n as u8);
    }
}
