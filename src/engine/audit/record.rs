//! What an audit record says: who asked, for what, at which tier, what was
//! emitted and what was cut (with node versions, so the text can be rebuilt),
//! and the hash of the exact text.

use serde::{Deserialize, Serialize};

use crate::model::{NodeId, Tier, Timestamp};

/// Projection for an agent, preview by a person, the tokens an agent
/// reports it spent on one of its projections, or a step of an agent's
/// work: a proposal or revision submitted, a comment, a reviewer's
/// decision, a read that found nothing the agent may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Projection,
    Preview,
    Cost,
    Proposal,
    Comment,
    Decision,
    FailedRead,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Projection => "projection",
            Kind::Preview => "preview",
            Kind::Cost => "cost",
            Kind::Proposal => "proposal",
            Kind::Comment => "comment",
            Kind::Decision => "decision",
            Kind::FailedRead => "failed-read",
        }
    }

    /// Every kind, for checks of a stored kind's name.
    pub const ALL: [Kind; 7] = [
        Kind::Projection,
        Kind::Preview,
        Kind::Cost,
        Kind::Proposal,
        Kind::Comment,
        Kind::Decision,
        Kind::FailedRead,
    ];

    /// Whether a record of this kind holds a text an agent received (or a
    /// person previewed), which `audit replay` rebuilds.
    pub fn is_text(self) -> bool {
        matches!(self, Kind::Projection | Kind::Preview)
    }

    /// Whether `s` names a kind.
    pub fn is_known(s: &str) -> bool {
        Kind::ALL.iter().any(|k| k.as_str() == s)
    }
}

/// A node and the version that was used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeRef {
    pub id: NodeId,
    pub version: u64,
    /// The node's tier when it was projected (a later raise re-seals old
    /// versions under the new tier; replay needs the tier of that time).
    pub tier: Tier,
}

/// One audit record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub kind: Kind,
    pub at: Timestamp,
    pub agent: String,
    pub trust: Option<f64>,
    pub local: bool,
    pub tier: Tier,
    /// The query, or `node:NAME:DEPTH`.
    pub center: String,
    pub budget: usize,
    pub tokens: usize,
    pub emitted: Vec<NodeRef>,
    pub cut: Vec<NodeRef>,
    /// SHA-256 (hex) of the exact projected text (for a cost record, of
    /// the projection the cost is reported for).
    pub projection_hash: String,
    /// For a cost record: the tokens the agent reports it spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<TokenCost>,
    /// For a step of an agent's work: what was done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<super::Activity>,
}

/// Tokens an agent reports it spent on a projection, as its model counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCost {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
}

impl AuditRecord {
    /// The tier a session whose most secret tier is `most` seals this
    /// record under: its most secret for what an agent received (a query
    /// may name anything that session reads), agent-readable for a step of
    /// an agent's work, which holds nothing an agent may not read (the
    /// agent's own words, a proposal id, a reason checked to name nothing
    /// above agent-readable), so the agent can list its whole record.
    pub fn sealing_tier(&self, most: Tier) -> Tier {
        match self.activity {
            Some(_) => most.min(Tier::AgentReadable),
            None => most,
        }
    }

    /// Whether two records describe the same projection (for preview dedup).
    pub fn same_as(&self, other: &AuditRecord) -> bool {
        self.agent == other.agent
            && self.tier == other.tier
            && self.center == other.center
            && self.projection_hash == other.projection_hash
    }
}
