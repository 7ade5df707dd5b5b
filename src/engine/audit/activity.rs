//! The steps of an agent's work, on the record beside what it read: each
//! proposal and revision it submits, each comment it writes, each decision a
//! reviewer makes on its proposals, and each read that found no node it may
//! read. `audit list --agent NAME` then shows one agent's whole activity.
//!
//! A failed read is recorded the same way whether the name is absent or
//! above the agent's tier (the agent's own session can read its records, so
//! they must not tell the two apart); a reviewer's listing works out which it
//! was from the names that reviewer reads.

use serde::{Deserialize, Serialize};

use super::{AuditRecord, Kind};
use crate::error::Result;
use crate::model::{Tier, Timestamp};
use crate::store::Store;

/// What an agent (or a reviewer, on its proposal) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    Submitted,
    Revised,
    Commented,
    Accepted,
    Rejected,
    ChangesRequested,
    /// A read naming a node the agent may not read (absent or above its tier).
    NoSuchNode,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Submitted => "submitted",
            Action::Revised => "revised",
            Action::Commented => "commented",
            Action::Accepted => "accepted",
            Action::Rejected => "rejected",
            Action::ChangesRequested => "changes requested",
            Action::NoSuchNode => "no node it may read",
        }
    }

    /// The log's kind for this step.
    pub fn kind(self) -> Kind {
        match self {
            Action::Submitted | Action::Revised => Kind::Proposal,
            Action::Commented => Kind::Comment,
            Action::Accepted | Action::Rejected | Action::ChangesRequested => Kind::Decision,
            Action::NoSuchNode => Kind::FailedRead,
        }
    }
}

/// One step of an agent's work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    pub action: Action,
    /// The agent session it came from ("" when none was given).
    #[serde(default)]
    pub session: String,
    /// The proposal it concerns (its full id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
    /// The name a failed read asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// What else a reader needs: the proposal a revision revises, a
    /// decision's reason, the interface a failed read came through.
    #[serde(default)]
    pub detail: String,
}

/// A step of `agent`'s work, made with `trust` (when known) at `tier`.
pub struct Step<'a> {
    pub agent: &'a str,
    pub trust: Option<f64>,
    pub tier: Tier,
    pub activity: Activity,
}

/// Why a failed read found nothing, as a session that reads more tiers than
/// the agent tells: the name is absent, or names a node above the tier the
/// agent read at. `None` when this session cannot tell (it reads no more
/// than the agent did, or the record is no failed read).
pub fn failed_read_cause(catalog: &crate::store::Catalog, record: &AuditRecord, reads: Tier) -> Option<String> {
    let asked = record.activity.as_ref()?.asked.as_deref()?;
    if reads <= record.tier {
        return None;
    }
    Some(match catalog.by_name(asked) {
        Some(n) if n.tier > record.tier => format!("{asked} is {}: above the tier read at", n.tier),
        Some(_) => format!("{asked} is readable at {} now", record.tier),
        None => format!("no node is named {asked} at the tiers this session reads"),
    })
}

impl Store {
    /// Records a step of an agent's work in the audit log. A session with
    /// no key seals nothing, so it records nothing (`Ok(None)`): a keyless
    /// `graphex propose` leaves its proposal file as the only trace.
    pub fn audit_activity(&mut self, step: Step<'_>) -> Result<Option<u64>> {
        if self.level() == crate::Level::Locked {
            return Ok(None);
        }
        let record = AuditRecord {
            kind: step.activity.action.kind(),
            at: Timestamp::now(),
            agent: step.agent.to_owned(),
            trust: step.trust,
            local: false,
            tier: step.tier.min(self.level().max_tier()),
            center: step.activity.proposal.clone().unwrap_or_default(),
            budget: 0,
            tokens: 0,
            emitted: Vec::new(),
            cut: Vec::new(),
            projection_hash: String::new(),
            cost: None,
            activity: Some(step.activity),
        };
        self.audit_append(&record)
    }
}
