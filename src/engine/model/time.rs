//! Timestamps: UTC instants with millisecond precision, shown as RFC 3339.

use std::fmt;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::{Error, Result};

/// Milliseconds since the Unix epoch, UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time.
    pub fn now() -> Self {
        let now = OffsetDateTime::now_utc();
        Self((now.unix_timestamp_nanos() / 1_000_000) as i64)
    }

    /// Parses RFC 3339 (`2026-03-15T10:00:00Z`) or a plain date (`2026-03-15`, midnight UTC).
    pub fn parse(raw: &str) -> Result<Self> {
        let text = if raw.len() == 10 {
            format!("{raw}T00:00:00Z")
        } else {
            raw.to_owned()
        };
        let dt = OffsetDateTime::parse(&text, &Rfc3339)
            .map_err(|e| Error::invalid("time", raw, format!("expected RFC 3339 or YYYY-MM-DD ({e})")))?;
        Ok(Self((dt.unix_timestamp_nanos() / 1_000_000) as i64))
    }

    /// RFC 3339 text in UTC, seconds precision (`2026-03-15T10:00:00Z`).
    pub fn to_rfc3339(self) -> String {
        let secs = self.0.div_euclid(1000);
        OffsetDateTime::from_unix_timestamp(secs)
            .ok()
            .and_then(|dt| dt.format(&Rfc3339).ok())
            .unwrap_or_else(|| format!("@{}ms", self.0))
    }

    /// For `#[serde(serialize_with)]` in views people and scripts read: RFC
    /// 3339 text, as every command prints times (stored formats keep milliseconds).
    pub fn serialize_rfc3339<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.to_rfc3339())
    }

    /// The calendar date part (`2026-03-15`).
    pub fn date(self) -> String {
        let full = self.to_rfc3339();
        full.get(..10).unwrap_or(&full).to_owned()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// Writes a time as RFC 3339 text, for the JSON people and agents read
/// (`#[serde(serialize_with = "crate::model::rfc3339")]`); what is stored
/// keeps milliseconds.
pub fn rfc3339<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format() {
        let t = Timestamp::parse("2026-03-15T10:00:00Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-03-15T10:00:00Z");
        assert_eq!(Timestamp::parse("2026-03-15").unwrap().date(), "2026-03-15");
        assert!(Timestamp::parse("yesterday").is_err());
    }
}
