//! Review conversations: a reviewer asks an agent for changes (with a
//! comment on the whole proposal or on one change of it), the agent
//! answers ([`super::comment`]) and submits a revision that names the
//! proposal it revises. A revision is a proposal like any other; the queue
//! shows it with the rounds before it.
//!
//! A request for changes is a decision (signed by the master, sealed for
//! agents, covered by the seal like every decision): the proposal leaves the
//! queue and waits for its revision.

use super::comment::StoredComment;
use super::decision::{Decision, Outcome};
use super::stored::{ProposalId, StoredProposal};
use crate::error::{Error, Result};
use crate::model::Timestamp;
use crate::store::{Durability, Entry, Plan, Store};

/// The longest chain of revisions followed back.
pub const MAX_ROUNDS: usize = 32;

/// One round of a conversation: a proposal, what the reviewer decided on
/// it, and what the agent answered.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Round {
    pub id: ProposalId,
    pub proposal: StoredProposal,
    pub decision: Option<Decision>,
    /// The agent's comments on this proposal, oldest first.
    pub replies: Vec<StoredComment>,
}

impl Store {
    /// Asks the agent for changes to proposal `id`: `comment` says what, on
    /// the whole proposal or on `change` (1-based). The agent reads it with
    /// the proposal's status; its revision then enters the queue.
    pub fn request_changes(&mut self, id: &ProposalId, comment: &str, change: Option<usize>) -> Result<()> {
        self.require_writer("asking for changes")?;
        let comment = comment.trim();
        if comment.is_empty() {
            return Err(Error::invalid(
                "comment",
                "",
                "say what should change, for the proposing agent",
            ));
        }
        super::check_reason(comment)?;
        // The agent reads the comment: it must not name what the agent cannot.
        let named = super::Mentions::new(self).above(crate::model::Tier::AgentReadable, "", &[comment]);
        if let Some((name, tier)) = named.first() {
            return Err(Error::invalid(
                "comment",
                comment,
                format!("it names {name} ({tier}), which the proposing agent cannot read; rephrase it"),
            ));
        }
        let (_, p) = self.proposal(id.as_str())?;
        if p.source == super::Source::Merge {
            return Err(Error::invalid(
                "proposal",
                id.short().to_owned(),
                "a merge proposal comes from git, not an agent: nobody would answer; accept, reject or edit it",
            ));
        }
        if self.decision(id)?.is_some() {
            return Err(Error::AlreadyDecided(id.short().to_owned()));
        }
        let n = p.submission.changes.len();
        if let Some(c) = change
            && !(1..=n).contains(&c)
        {
            return Err(Error::invalid(
                "change",
                c.to_string(),
                format!("proposal {} has changes 1 to {n}", id.short()),
            ));
        }
        let mut plan = Plan {
            proposal: Some(id.to_string()),
            ..Plan::default()
        };
        plan.entries.push(Entry::plain("request-changes"));
        plan.decisions.push(self.decision_row(
            id,
            &Decision {
                outcome: Outcome::ChangesRequested,
                reason: Some(comment.to_owned()),
                applied: Vec::new(),
                edited_as: None,
                change,
                at: Timestamp::now(),
            },
        )?);
        self.commit(plan, Durability::Sync)?;
        self.record_decision(id, crate::audit::Action::ChangesRequested, comment.to_owned())
    }

    /// The rounds that led to proposal `id`, oldest first, ending with `id`
    /// itself (master level). A chain that does not hold together (a
    /// revision of a proposal nobody asked changes of, or of another agent's
    /// proposal) is still shown: [`conversation_problems`] names what is off.
    pub fn conversation(&self, id: &ProposalId) -> Result<Vec<Round>> {
        let mut rounds = Vec::new();
        let mut comments = self.comments()?;
        let mut next = Some(id.clone());
        while let Some(at) = next.take() {
            if rounds.len() >= MAX_ROUNDS || rounds.iter().any(|r: &Round| r.id == at) {
                break;
            }
            let (at, proposal) = match self.proposal(at.as_str()) {
                Ok(found) => found,
                // The revised proposal is gone (its file removed): the
                // chain stops there, and the problems say so.
                Err(Error::NotFound(_) | Error::NoProposal(_)) if !rounds.is_empty() => break,
                Err(e) => return Err(e),
            };
            next = proposal.submission.revises.clone();
            rounds.push(Round {
                decision: self.decision(&at)?,
                replies: comments.remove(&at).unwrap_or_default(),
                id: at,
                proposal,
            });
        }
        rounds.reverse();
        Ok(rounds)
    }

    /// Checks a revision's claim before it is stored (agent level): the
    /// proposal it names exists and a reviewer asked changes of it.
    pub(crate) fn check_revises(&self, revises: &ProposalId) -> Result<()> {
        let found = self.resolve_proposal(revises.as_str())?;
        match self.decision(&found)? {
            Some(d) if d.outcome == Outcome::ChangesRequested => Ok(()),
            Some(d) => Err(Error::invalid(
                "revises",
                revises.short().to_owned(),
                format!(
                    "that proposal was {}; only a proposal a reviewer asked changes of can be revised",
                    d.outcome.as_str()
                ),
            )),
            None => Err(Error::invalid(
                "revises",
                revises.short().to_owned(),
                "that proposal is still pending: no reviewer asked changes of it yet",
            )),
        }
    }
}

/// What does not hold in a conversation, for the card: a revision whose
/// predecessor is missing, was not sent back, or came from another agent.
pub fn conversation_problems(rounds: &[Round]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(first) = rounds.first()
        && let Some(missing) = &first.proposal.submission.revises
    {
        out.push(format!(
            "it names {} as the proposal it revises, which is not in this store",
            missing.short()
        ));
    }
    for pair in rounds.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if before.decision.as_ref().map(|d| d.outcome) != Some(Outcome::ChangesRequested) {
            out.push(format!(
                "{} revises {}, which no reviewer sent back for changes",
                after.id.short(),
                before.id.short()
            ));
        }
        if before.proposal.submission.agent != after.proposal.submission.agent {
            out.push(format!(
                "{} comes from {}, but the proposal it revises came from {}",
                after.id.short(),
                after.proposal.submission.agent,
                before.proposal.submission.agent
            ));
        }
    }
    out
}
