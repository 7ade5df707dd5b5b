//! Scrub patterns: regular expressions (from configuration) whose matches are
//! replaced before anything is projected, and counted.

use std::sync::OnceLock;

use regex::Regex;

use crate::error::{Error, Result};

/// What replaces a scrubbed match.
pub const REDACTED: &str = "[redacted]";

/// Compiled scrub patterns.
#[derive(Clone, Debug, Default)]
pub struct Scrubber {
    patterns: Vec<Regex>,
}

/// Credential shapes, with the words a lint uses for them. One table: the
/// scrubber redacts these from every projection, and the proposal lint
/// flags them, so a shape the lint knows is never projected, and the
/// reverse. A pattern covers the whole secret, so redaction leaves none of it.
pub const CREDENTIALS: &[(&str, &str)] = &[
    // With its END line, or (cut off) the key material up to the end.
    (
        "a private key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s:,-]*)",
    ),
    // AKIA: long-term keys; ASIA: temporary (STS) keys.
    ("an AWS access key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "a GitHub token",
        r"\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}",
    ),
    ("a Slack token", r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
    ("an Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("an OpenAI project key", r"\bsk-proj-[A-Za-z0-9_-]{20,}"),
    ("an API secret key", r"\bsk-[A-Za-z0-9_-]{20,}"),
    ("an age secret key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    // header.payload.signature, each base64url; the header is JSON, so
    // it starts `eyJ` (`{"`).
    (
        "a JSON web token",
        r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    ),
    // `password=...`, `DB_PASSWORD: ...`, `secret = "..."`: the name
    // (with any prefix such as `db_`) and the value, quoted or not.
    (
        "a password or token assignment",
        r#"(?i)\b[A-Za-z0-9_.-]*?(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\b\s*[:=]\s*['"]?[^\s'"]{6,}['"]?"#,
    ),
];

/// The credential patterns, compiled once.
pub fn credential_patterns() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        CREDENTIALS
            .iter()
            // The table is a constant: a test compiles every entry.
            .filter_map(|(kind, re)| Regex::new(re).ok().map(|r| (*kind, r)))
            .collect()
    })
}

/// The kind of credential `text` seems to contain, if any.
pub fn credential_in(text: &str) -> Option<&'static str> {
    credential_patterns()
        .iter()
        .find(|(_, re)| re.is_match(text))
        .map(|(kind, _)| *kind)
}

impl Scrubber {
    /// The credential patterns plus `extra` (each a regular expression).
    pub fn new(extra: &[String]) -> Result<Self> {
        let mut patterns: Vec<Regex> = credential_patterns().iter().map(|(_, re)| re.clone()).collect();
        for p in extra.iter().map(String::as_str) {
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
    fn every_credential_pattern_compiles() {
        assert_eq!(credential_patterns().len(), CREDENTIALS.len());
    }

    /// Each shape is redacted whole (nothing of the secret is left) and
    /// named by the lint.
    #[test]
    fn every_credential_shape_is_redacted_and_named() {
        let s = Scrubber::new(&[]).unwrap();
        let cases = [
            (
                "sk-ant-api03-Zq8vX2mN4pL7rT1wY5kB9cD3fG6hJ0aS-xQeRtYuIoP",
                "an Anthropic API key",
                "Zq8vX2",
            ),
            (
                "sk-proj-Ab3De5Gh7Jk9Mn1Pq3Rs5Tu7Vw9Xy1Za3",
                "an OpenAI project key",
                "Ab3De5",
            ),
            ("ASIAY34FZKBOKMUTVV7A", "an AWS access key", "ASIAY34"),
            ("AKIAIOSFODNN7EXAMPLE", "an AWS access key", "AKIAIOS"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "a JSON web token",
                "dozjgN",
            ),
            ("password=hunter22", "a password or token assignment", "hunter22"),
            ("DB_PASSWD: Tr0ub4dor&3", "a password or token assignment", "Tr0ub4dor"),
            (
                "client secret = \"s3cr3t-value\"",
                "a password or token assignment",
                "s3cr3t",
            ),
            ("secret=abcdef123456", "a password or token assignment", "abcdef123456"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq9\nZxY2w3v4u5t6s7r8q9p0==\n-----END RSA PRIVATE KEY-----",
                "a private key",
                "MIIEpA",
            ),
            // Cut off before its END line (a paste that stopped short).
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5",
                "a private key",
                "AAAAC3Nz",
            ),
        ];
        for (secret, kind, part) in cases {
            let text = format!("config: {secret} (rotate it)");
            let (out, n) = s.scrub(&text);
            assert!(n >= 1 && !out.contains(part), "{secret:?} left in {out:?}");
            assert!(out.contains(REDACTED) && out.starts_with("config: "), "{out:?}");
            assert_eq!(credential_in(&text), Some(kind), "{secret:?}");
        }
        // Words about secrets are not secrets.
        for plain in ["the password is never logged", "secret: none", "see the secretary"] {
            assert_eq!(s.scrub(plain), (plain.to_owned(), 0), "{plain}");
            assert_eq!(credential_in(plain), None, "{plain}");
        }
    }

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
