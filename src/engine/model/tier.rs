//! Access tiers, ordered from least to most secret.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Who may read a piece of content. `Public < AgentReadable < AgentRestricted < HumanOnly`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    Public,
    AgentReadable,
    AgentRestricted,
    HumanOnly,
}

impl Tier {
    /// All tiers, least secret first.
    pub const ALL: [Tier; 4] = [
        Tier::Public,
        Tier::AgentReadable,
        Tier::AgentRestricted,
        Tier::HumanOnly,
    ];

    /// The tier's name as written in the CLI and on disk.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Public => "public",
            Tier::AgentReadable => "agent-readable",
            Tier::AgentRestricted => "agent-restricted",
            Tier::HumanOnly => "human-only",
        }
    }

    /// Stable small integer stored in the index and bound into ciphertexts.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`Tier::code`].
    pub fn from_code(code: i64) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| i64::from(t.code()) == code)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Tier {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Tier::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| {
            Error::invalid(
                "tier",
                s,
                "expected one of public, agent-readable, agent-restricted, human-only",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_round_trip() {
        assert!(Tier::Public < Tier::AgentReadable && Tier::AgentRestricted < Tier::HumanOnly);
        for t in Tier::ALL {
            assert_eq!(t.as_str().parse::<Tier>().unwrap(), t);
            assert_eq!(Tier::from_code(i64::from(t.code())), Some(t));
        }
        assert!(
            "secret"
                .parse::<Tier>()
                .unwrap_err()
                .to_string()
                .contains("expected one of")
        );
        assert_eq!(Tier::from_code(9), None);
    }
}
