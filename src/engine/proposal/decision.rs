//! The recorded outcome of a proposal, as its agent can read it.

use serde::{Deserialize, Serialize};

use super::stored::ProposalId;
use crate::error::{Error, Result};
use crate::model::{MAX_DESCRIPTION, Timestamp};

/// How a proposal was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Accepted,
    Rejected,
    /// A reviewer edited it; the edit was accepted as another proposal.
    Edited,
    /// A reviewer asked the agent for changes: it waits for a revision
    /// (a proposal that names it in `revises`).
    #[serde(rename = "changes-requested")]
    ChangesRequested,
}

impl Outcome {
    /// The word stored in the index.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::Rejected => "rejected",
            Outcome::Edited => "edited",
            Outcome::ChangesRequested => "changes-requested",
        }
    }

    /// Reads the stored word.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "accepted" => Ok(Outcome::Accepted),
            "rejected" => Ok(Outcome::Rejected),
            "edited" => Ok(Outcome::Edited),
            "changes-requested" => Ok(Outcome::ChangesRequested),
            other => Err(Error::integrity("decision", format!("unknown outcome {other:?}"))),
        }
    }
}

/// A decision's details, sealed under the agent-readable tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// 1-based numbers of the changes applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_as: Option<ProposalId>,
    /// For a request for changes: the 1-based change the reviewer's
    /// comment (in `reason`) is on; none when it is on the whole proposal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<usize>,
    pub at: Timestamp,
}

/// Checks a reviewer's reason.
pub fn check_reason(reason: &str) -> Result<()> {
    super::check_text("reason", reason, reason, MAX_DESCRIPTION)
}
