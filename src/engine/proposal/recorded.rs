//! Proposals, comments and decisions on the audit record (see
//! [`crate::audit::Activity`]): who proposed, which session, what was
//! decided and why. Each is recorded at agent-readable, the tier it is
//! sealed under: the agent reads its whole record.

use super::stored::ProposalId;
use crate::audit::{Action, Activity, Step};
use crate::error::Result;
use crate::store::Store;

/// Who did a step on a proposal, and in which session.
struct By<'a> {
    agent: &'a str,
    trust: Option<f64>,
    session: &'a str,
}

impl Store {
    /// Records `action` on proposal `on` by `by`, with `detail`.
    fn record_on_proposal(&mut self, by: By<'_>, on: &ProposalId, action: Action, detail: String) -> Result<()> {
        self.audit_activity(Step {
            agent: by.agent,
            trust: by.trust,
            tier: crate::model::Tier::AgentReadable,
            activity: Activity {
                action,
                session: by.session.to_owned(),
                proposal: Some(on.to_string()),
                asked: None,
                detail,
            },
        })?;
        Ok(())
    }

    /// Records `action` on proposal `id` (already committed) in the audit
    /// log, naming the proposing agent and its session.
    pub(crate) fn record_decision(&mut self, id: &ProposalId, action: Action, detail: String) -> Result<()> {
        // A proposal file removed meanwhile still leaves its decision here.
        let submission = self.proposal(id.as_str()).ok().map(|(_, p)| p.submission);
        let by = By {
            agent: submission.as_ref().map_or("(proposal file gone)", |s| s.agent.as_str()),
            trust: submission.as_ref().map(|s| s.trust),
            session: submission.as_ref().map_or("", |s| s.session.as_str()),
        };
        self.record_on_proposal(by, id, action, detail)
    }

    /// Records that `sub` was submitted as proposal `id` (a revision when
    /// it names the proposal it revises). A keyless session records nothing.
    pub fn record_submitted(&mut self, id: &ProposalId, sub: &super::Submission) -> Result<()> {
        let (action, detail) = match &sub.revises {
            Some(r) => (Action::Revised, format!("revises {}", r.short())),
            None => (Action::Submitted, format!("{} change(s)", sub.changes.len())),
        };
        let by = By {
            agent: &sub.agent,
            trust: Some(sub.trust),
            session: &sub.session,
        };
        self.record_on_proposal(by, id, action, detail)
    }

    /// Records `agent`'s comment `comment` on proposal `on`.
    pub fn record_commented(
        &mut self,
        agent: &str,
        session: &str,
        on: &ProposalId,
        comment: &ProposalId,
    ) -> Result<()> {
        let by = By {
            agent,
            trust: None,
            session,
        };
        self.record_on_proposal(by, on, Action::Commented, format!("comment {}", comment.short()))
    }
}
