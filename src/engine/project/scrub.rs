//! Scrub patterns: regular expressions (from configuration) whose matches are
//! replaced before anything is projected, and counted.

use regex::Regex;

use crate::error::{Error, Result};

/// What replaces a scrubbed match.
pub const REDACTED: &str = "[redacted]";

/// Compiled scrub patterns.
#[derive(Clone, Debug, Default)]
pub struct Scrubber {
    patterns: Vec<Regex>,
}

/// Patterns always applied: common credential shapes.
pub const BUILT_IN: &[&str] = &[
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"AKIA[0-9A-Z]{16}",
    r"gh[pousr]_[A-Za-z0-9]{36,}",
    r"xox[baprs]-[A-Za-z0-9-]{10,}",
    r"sk-[A-Za-z0-9]{20,}",
    r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
];

impl Scrubber {
    /// The built-in patterns plus `extra` (each a regular expression).
    pub fn new(extra: &[String]) -> Result<Self> {
        let mut patterns = Vec::new();
        for p in BUILT_IN.iter().copied().chain(extra.iter().map(String::as_str)) {
            let re = Regex::new(p).map_err(|e| Error::invalid("scrub pattern", p, e.to_string()))?;
            if re.is_match("") {
                return Err(Error::invalid(
                    "scrub pattern",
                    p,
                    "it matches empty text, so it would redact between every character",
                ));
            }
            patterns.push(re);
        }
        Ok(Self { patterns })
    }

    /// `text` with every match replaced, and how many matches there were.
    pub fn scrub(&self, text: &str) -> (String, usize) {
        let mut out = text.to_owned();
        let mut count = 0;
        for p in &self.patterns {
            let n = p.find_iter(&out).count();
            if n > 0 {
                count += n;
                out = p.replace_all(&out, REDACTED).into_owned();
            }
        }
        (out, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_counts() {
        let s = Scrubber::new(&["ERR-[0-9]{4}".into()]).unwrap();
        let (out, n) = s.scrub("key AKIAABCDEFGHIJKLMNOP and ERR-1234, ERR-5678");
        assert_eq!((out.as_str(), n), ("key [redacted] and [redacted], [redacted]", 3));
        assert!(
            Scrubber::new(&["(".into()])
                .unwrap_err()
                .to_string()
                .contains("scrub pattern")
        );
        assert!(
            Scrubber::new(&["\\s*".into()])
                .unwrap_err()
                .to_string()
                .contains("matches empty text")
        );
    }
}
