//! The queue as a store sees it: pending proposals (master level), finding a
//! proposal by id prefix, the status an agent may ask about, and a
//! reviewer's edit.

use std::collections::BTreeSet;

use super::decision::Decision;
use super::pending::{Pending, ScanResult, scan, write};
use super::stored::{FORMAT, ProposalId, Source, StoredProposal};
use super::submission::Submission;
use crate::error::{Error, Result};
use crate::model::Timestamp;
use crate::proposal::Accepted;
use crate::store::Store;

/// Where a proposal stands, as its agent may learn it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ProposalStatus {
    Pending {
        id: ProposalId,
    },
    Decided {
        id: ProposalId,
        #[serde(serialize_with = "crate::model::times_rfc3339")]
        decision: Decision,
    },
    Quarantined {
        id: String,
        reason: String,
    },
}

impl Store {
    /// Undecided proposals, oldest first; malformed files are quarantined.
    pub fn pending(&self) -> Result<ScanResult> {
        let master = self
            .keys()
            .master()
            .map_err(|_| self.keys().needs(crate::Level::Master, "reviewing proposals"))?;
        let decided = self.decided()?;
        let mut found = scan(&self.layout().pending(), master, &decided)?;
        found.pending.extend(self.merge_pending(&decided)?);
        Ok(found)
    }

    /// The proposal whose id starts with `prefix` (at least 4 hex digits),
    /// opened with the master key, pending or decided.
    pub fn proposal(&self, prefix: &str) -> Result<(ProposalId, StoredProposal)> {
        let master = self
            .keys()
            .master()
            .map_err(|_| self.keys().needs(crate::Level::Master, "reading proposals"))?;
        let id = self.resolve_proposal(prefix)?;
        let path = self.layout().pending().join(id.file_name());
        // No file: a merge proposal, built from the index.
        if !path.exists()
            && let Some((p, _)) = self.merge_proposal(&id)?
        {
            return Ok((id, p));
        }
        // A decided merge proposal has no file, and once its changes are in
        // the graph nothing is left to build it from.
        if !path.exists() && self.decided()?.contains(id.as_str()) {
            return Err(Error::invalid(
                "proposal",
                id.short().to_owned(),
                "it was decided, and as a merge proposal its changes are in the graph now: nothing is left to \
                 show (`graphex proposal-status` gives its decision; `graphex undo` takes it back)",
            ));
        }
        let p = self.open_proposal_file(&id, master)?;
        Ok((id, p))
    }

    /// The proposal file of `id` in `pending/`, read (capped), checked
    /// against its id and opened with the master key.
    pub(super) fn open_proposal_file(&self, id: &ProposalId, master: &age::x25519::Identity) -> Result<StoredProposal> {
        let path = self.layout().pending().join(id.file_name());
        let bytes = super::pending::read_capped(&path, super::MAX_FILE_BYTES).map_err(|f| match f {
            super::pending::Fail::Bad(reason) | super::pending::Fail::Transient(reason) => {
                Error::integrity(format!("proposal {}", id.short()), reason)
            }
        })?;
        if ProposalId::of(&bytes) != *id {
            return Err(Error::integrity(
                format!("proposal {}", id.short()),
                "its content does not match its id",
            ));
        }
        StoredProposal::open(&path, &bytes, master)
    }

    /// The full id for `prefix`, among files in `pending/` and decisions.
    pub fn resolve_proposal(&self, prefix: &str) -> Result<ProposalId> {
        let prefix = prefix.trim().to_ascii_lowercase();
        if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::invalid(
                "proposal id",
                prefix,
                "at least 4 hex digits of the id `graphex pending` shows",
            ));
        }
        let mut found: BTreeSet<ProposalId> = self
            .decided()?
            .into_iter()
            .filter(|d| d.starts_with(&prefix))
            .filter_map(|d| ProposalId::try_from(d).ok())
            .collect();
        found.extend(
            self.merge_ids()
                .into_iter()
                .filter(|id| id.as_str().starts_with(&prefix)),
        );
        let dir = self.layout().pending();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            found.extend(
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().to_str().and_then(ProposalId::from_file_name))
                    .filter(|id| id.as_str().starts_with(&prefix)),
            );
        }
        match found.len() {
            1 => Ok(found.into_iter().next().unwrap_or_else(|| unreachable!())),
            0 => Err(Error::NoProposal(prefix)),
            n => Err(Error::invalid(
                "proposal id",
                prefix,
                format!("{n} proposals start with it; give more digits"),
            )),
        }
    }

    /// Where the proposal `prefix` stands. Needs only the agent identity:
    /// it reads the decision (sealed for agents), never the proposal.
    pub fn proposal_status(&self, prefix: &str) -> Result<ProposalStatus> {
        match self.resolve_proposal(prefix) {
            Ok(id) => Ok(match self.decision(&id)? {
                Some(decision) => ProposalStatus::Decided { id, decision },
                None => ProposalStatus::Pending { id },
            }),
            Err(Error::NoProposal(_)) => {
                let held = super::quarantined(&self.layout().pending())?;
                let p = prefix.trim().to_ascii_lowercase();
                held.into_iter()
                    .find(|q| q.file.starts_with(&p))
                    .map(|q| ProposalStatus::Quarantined {
                        id: q.file,
                        reason: q.reason,
                    })
                    .ok_or(Error::NoProposal(p))
            }
            Err(e) => Err(e),
        }
    }

    /// How many proposal files in `pending/` have no decision, without
    /// opening them (malformed ones count until a review quarantines them),
    /// plus the merge proposals at the master level.
    pub fn pending_count(&self) -> Result<usize> {
        let decided = self.decided()?;
        let merges = self
            .merge_ids()
            .into_iter()
            .filter(|id| !decided.contains(id.as_str()))
            .count();
        let Ok(entries) = std::fs::read_dir(self.layout().pending()) else {
            return Ok(merges);
        };
        Ok(merges
            + entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().and_then(ProposalId::from_file_name))
                .filter(|id| !decided.contains(id.as_str()))
                .count())
    }

    /// Every undecided proposal of one agent session.
    pub fn session_proposals(&self, agent: Option<&str>, session: &str) -> Result<Vec<Pending>> {
        Ok(self
            .pending()?
            .pending
            .into_iter()
            .filter(|p| {
                p.proposal.submission.session == session && agent.is_none_or(|a| p.proposal.submission.agent == a)
            })
            .collect())
    }

    /// Accepts a reviewer's edit of `original`: `text` is the edited
    /// submission (the form [`edit_text`] gives). The edit is stored as a
    /// proposal of its own, then accepted with the original marked edited.
    pub fn accept_edit(&mut self, original: &ProposalId, text: &str, force: bool) -> Result<(ProposalId, Accepted)> {
        let (_, before) = self.proposal(original.as_str())?;
        if self.decision(original)?.is_some() {
            return Err(Error::AlreadyDecided(original.short().to_owned()));
        }
        let sub = Submission::from_json(text.as_bytes())?;
        let mut bases = before.bases.clone();
        super::pending::record_bases(self, &sub, &mut bases);
        let edited = StoredProposal {
            format: FORMAT,
            created: Timestamp::now(),
            source: Source::Edit,
            edited_from: Some(original.clone()),
            bases,
            submission: sub,
        };
        let id = write(
            &self.layout().pending(),
            &edited.seal(&self.keys().proposal_recipient(&self.layout().keys())?)?,
        )?;
        match self.accept_edited(original, &id, &edited, force) {
            Ok(a) => Ok((id, a)),
            Err(e) => {
                let _ = std::fs::remove_file(self.layout().pending().join(id.file_name()));
                Err(e)
            }
        }
    }

    /// After an undo, an edit's own proposal file is dropped so only the
    /// original returns to the queue.
    pub(crate) fn forget_edit(&self, id: &str) {
        if let Ok(id) = ProposalId::try_from(id.to_owned())
            && let Ok((_, p)) = self.proposal(id.as_str())
            && p.source == Source::Edit
        {
            let _ = std::fs::remove_file(self.layout().pending().join(id.file_name()));
        }
    }
}

/// The text a reviewer edits: the submission as indented JSON.
pub fn edit_text(p: &StoredProposal) -> String {
    serde_json::to_string_pretty(&p.submission).unwrap_or_default()
}
