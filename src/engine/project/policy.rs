//! Who sees which tier: a fixed tier, or a trust score mapped to a tier by
//! thresholds from the store's configuration (defaults from the spec's
//! security model). Human-only content is never projected.

use serde::{Deserialize, Serialize};

use crate::model::Tier;

/// The thresholds that map an agent's trust score to a tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrustPolicy {
    /// Below this score an agent sees public content only.
    pub low: f64,
    /// Above this score an agent also sees agent-readable content.
    pub high: f64,
    /// Whether scores from `low` to `high` also see agent-readable content.
    pub readable_between: bool,
}

impl Default for TrustPolicy {
    fn default() -> Self {
        Self {
            low: 70.0,
            high: 90.0,
            readable_between: false,
        }
    }
}

/// How an agent's access is stated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Access {
    /// An explicit tier (human-only is lowered to agent-restricted: never projected).
    Tier(Tier),
    /// A trust score, and whether the agent runs in a trusted local runtime.
    Trust { score: f64, local: bool },
}

impl TrustPolicy {
    /// The most secret tier `access` may receive.
    pub fn max_tier(&self, access: Access) -> Tier {
        match access {
            Access::Tier(t) => t.min(Tier::AgentRestricted),
            Access::Trust { score, local } => {
                let readable = score > self.high || (score >= self.low && self.readable_between);
                match (readable, local) {
                    (false, _) => Tier::Public,
                    // The spec: agent-restricted only for an agent in a trusted local runtime.
                    (true, true) => Tier::AgentRestricted,
                    (true, false) => Tier::AgentReadable,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_map_to_tiers_as_the_spec_says() {
        let p = TrustPolicy::default();
        let t = |score, local| p.max_tier(Access::Trust { score, local });
        assert_eq!(t(50.0, false), Tier::Public);
        assert_eq!(t(80.0, false), Tier::Public);
        assert_eq!(t(94.2, false), Tier::AgentReadable);
        assert_eq!(t(94.2, true), Tier::AgentRestricted);
        assert_eq!(t(50.0, true), Tier::Public, "local alone grants nothing");
        let open = TrustPolicy {
            readable_between: true,
            ..p.clone()
        };
        assert_eq!(
            open.max_tier(Access::Trust {
                score: 80.0,
                local: false
            }),
            Tier::AgentReadable
        );
        assert_eq!(
            p.max_tier(Access::Tier(Tier::HumanOnly)),
            Tier::AgentRestricted,
            "human-only never"
        );
    }
}
