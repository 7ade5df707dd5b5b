//! Copying to the clipboard the terminal's way: an OSC 52 sequence, which
//! the terminal turns into a clipboard write. It works over ssh, and in
//! tmux with `set -g set-clipboard on`. No clipboard library, no display
//! server needed.

use std::io::Write;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes the OSC 52 sequence that puts `text` on the clipboard.
pub fn copy(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    write!(out, "\x1b]52;c;{}\x07", base64(text.as_bytes()))?;
    out.flush()
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_and_the_sequence() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), coded);
        }
        let mut out = Vec::new();
        super::copy(&mut out, "a\x1b[31m").unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s, "\x1b]52;c;YRtbMzFt\x07", "the text travels encoded, never raw");
    }
}
