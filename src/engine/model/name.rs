//! Node names: the human handle of a node, unique in a store.
//! Rules: lowercase ASCII letters, digits, `-`, `_`, `.`; 1 to 128 characters.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Longest accepted name, in bytes (names are ASCII).
pub const MAX_NAME_LEN: usize = 128;

/// A validated node name.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Name(std::sync::Arc<str>);

impl Name {
    /// Validates `raw` as a node name.
    pub fn new(raw: &str) -> Result<Self> {
        if raw.is_empty() {
            return Err(Error::invalid("name", raw, "a name cannot be empty"));
        }
        if raw.len() > MAX_NAME_LEN {
            return Err(Error::invalid(
                "name",
                truncate_for_message(raw),
                format!(
                    "a name has at most {MAX_NAME_LEN} characters (this one has {})",
                    raw.chars().count()
                ),
            ));
        }
        if let Some(bad) = raw.chars().find(|c| !is_name_char(*c)) {
            let hint = if bad.is_ascii_uppercase() {
                format!("uppercase {bad:?} is not allowed; try {:?}", raw.to_ascii_lowercase())
            } else {
                format!("character {bad:?} is not allowed (use a-z, 0-9, '-', '_', '.')")
            };
            return Err(Error::invalid("name", raw, hint));
        }
        Ok(Self(std::sync::Arc::from(raw)))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
}

fn truncate_for_message(raw: &str) -> String {
    let cut: String = raw.chars().take(40).collect();
    format!("{cut}...")
}

impl TryFrom<String> for Name {
    type Error = Error;
    fn try_from(value: String) -> Result<Self> {
        Self::new(&value)
    }
}

impl From<Name> for String {
    fn from(n: Name) -> Self {
        n.0.to_string()
    }
}

// Equal names are equal strings, and hash and order as their strings do,
// so a map keyed by names is looked up by a `&str`.
impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_allowed_alphabet() {
        for ok in ["a", "orders-service", "v1.2_beta", &"x".repeat(128)] {
            assert_eq!(Name::new(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn rejects_bad_names_with_a_reason() {
        let cases = [
            ("", "empty"),
            ("Orders", "uppercase"),
            ("a b", "' '"),
            ("café", "'é'"),
            ("../etc", "'/'"),
        ];
        for (bad, needle) in cases {
            let msg = Name::new(bad).unwrap_err().to_string();
            assert!(msg.contains(needle), "{bad:?}: {msg}");
        }
        assert!(
            Name::new(&"x".repeat(129))
                .unwrap_err()
                .to_string()
                .contains("at most 128")
        );
    }
}
