//! Unlock levels: which tiers a session can read.

use std::fmt;

use serde::Serialize;

use crate::model::Tier;

/// How far a session is unlocked. Each level reads its tiers and all below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// No keys: public content only.
    Locked,
    /// The agent identity: public and agent-readable.
    Agent,
    /// The master identity: everything but human-only. Can write.
    Master,
    /// Master plus the human passphrase: every tier.
    Human,
}

impl Level {
    /// The most secret tier this level reads.
    pub fn max_tier(self) -> Tier {
        match self {
            Level::Locked => Tier::Public,
            Level::Agent => Tier::AgentReadable,
            Level::Master => Tier::AgentRestricted,
            Level::Human => Tier::HumanOnly,
        }
    }

    /// Whether this level reads `tier`.
    pub fn reads(self, tier: Tier) -> bool {
        tier <= self.max_tier()
    }

    /// The lowest level that reads `tier`.
    pub fn needed_for(tier: Tier) -> Level {
        match tier {
            Tier::Public => Level::Locked,
            Tier::AgentReadable => Level::Agent,
            Tier::AgentRestricted => Level::Master,
            Tier::HumanOnly => Level::Human,
        }
    }

    /// Name as shown to users.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Locked => "locked",
            Level::Agent => "agent",
            Level::Master => "master",
            Level::Human => "human",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_reads_its_tiers() {
        for level in [Level::Locked, Level::Agent, Level::Master, Level::Human] {
            let readable: Vec<Tier> = Tier::ALL.into_iter().filter(|t| level.reads(*t)).collect();
            assert_eq!(readable.len(), level as usize + 1, "{level}");
            assert_eq!(Level::needed_for(level.max_tier()), level);
        }
    }
}
