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

/// For `#[serde(serialize_with)]` on a view field holding stored types
/// (a proposal, a decision, a comment, an audit record): the value as JSON
/// with each time in it (`created`, `updated`, `at`) written as RFC 3339, as
/// every command prints times; what is stored keeps milliseconds.
pub fn times_rfc3339<T: serde::Serialize, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize as _;
    let mut value = serde_json::to_value(v).map_err(serde::ser::Error::custom)?;
    times_in(&mut value);
    value.serialize(s)
}

/// The keys the stored types name their times by.
const TIME_KEYS: [&str; 3] = ["created", "updated", "at"];

fn times_in(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(fields) => {
            for (k, x) in fields.iter_mut() {
                match x.as_i64() {
                    Some(ms) if TIME_KEYS.contains(&k.as_str()) => {
                        *x = serde_json::Value::String(Timestamp(ms).to_rfc3339());
                    }
                    _ => times_in(x),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(times_in),
        _ => {}
    }
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
