//! Revisions that answer the same request for changes. A conversation
//! ends when one revision of a proposal is decided (accepted, rejected,
//! edited); another revision of that proposal then enters as a new
//! proposal and its card says which revision was decided, so a reviewer
//! never re-decides a closed conversation unknowingly.

use std::collections::HashMap;

use super::decision::Outcome;
use super::stored::ProposalId;
use crate::error::Result;
use crate::store::Store;

/// For each proposal some file revises, the proposals that revise it.
pub type RevisionIndex = HashMap<ProposalId, Vec<ProposalId>>;

impl Store {
    /// Every proposal file in `pending/` (decided ones too) by the proposal
    /// it revises (master level; each file is opened, so callers build it
    /// once, and only when a revision is in the queue). Unreadable files
    /// are left out: the queue's scan quarantines them.
    pub fn revision_index(&self) -> Result<RevisionIndex> {
        let mut index = RevisionIndex::new();
        let master = self
            .keys()
            .master()
            .map_err(|_| self.keys().needs(crate::Level::Master, "reading proposals"))?;
        let Ok(entries) = std::fs::read_dir(self.layout().pending()) else {
            return Ok(index);
        };
        // Each file opened directly: one directory read in all.
        for id in entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().and_then(ProposalId::from_file_name))
        {
            if let Ok(p) = self.open_proposal_file(&id, master)
                && let Some(revises) = p.submission.revises
            {
                index.entry(revises).or_default().push(id);
            }
        }
        Ok(index)
    }

    /// What a card says of revision `id` of proposal `revises` when another
    /// revision of it was already decided or is pending too.
    pub fn sibling_problems(&self, index: &RevisionIndex, revises: &ProposalId, id: &ProposalId) -> Vec<String> {
        let mut out = Vec::new();
        for other in index.get(revises).into_iter().flatten().filter(|o| *o != id) {
            match self.decision(other).ok().flatten().map(|d| d.outcome) {
                Some(outcome @ (Outcome::Accepted | Outcome::Rejected | Outcome::Edited)) => out.push(format!(
                    "the conversation on {} already ended: its revision {} was {}; this one revises a decided \
                     conversation and is a new proposal",
                    revises.short(),
                    other.short(),
                    outcome.as_str()
                )),
                Some(Outcome::ChangesRequested) => out.push(format!(
                    "{} was revised before, by {} (sent back for changes in turn); this one branches the conversation",
                    revises.short(),
                    other.short()
                )),
                None => out.push(format!(
                    "{} has another pending revision, {}; decide one and the other revises a decided conversation",
                    revises.short(),
                    other.short()
                )),
            }
        }
        out
    }
}
