//! An agent's comment on a proposal: its answer to a reviewer's request
//! for changes. Like a proposal, it is sealed to the master recipient (no
//! other agent reads it) and written to `pending/<sha256>.comment`, the
//! one place an agent may write. A reviewer reads it with the proposal's
//! conversation; a file that is not a well-formed comment of this store is
//! quarantined like a bad proposal.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stored::{FORMAT, ProposalId};
use super::{MAX_FILE_BYTES, check_text};
use crate::error::{Error, Result};
use crate::hygiene::visible_line;
use crate::keys::files;
use crate::model::{MAX_DESCRIPTION, Timestamp};
use crate::store::Store;

/// The file extension of a comment in `pending/`.
const EXTENSION: &str = "comment";

/// What a comment file holds once opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredComment {
    pub format: u8,
    pub created: Timestamp,
    pub agent: String,
    #[serde(default)]
    pub session: String,
    /// The proposal it is on.
    pub on: ProposalId,
    /// The 1-based change it is on; none for the whole proposal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<usize>,
    pub text: String,
}

/// Whether a file name in `pending/` is a comment's (`<64 hex>.comment`).
pub(crate) fn is_comment_file(name: &str) -> bool {
    comment_id(name).is_some()
}

fn comment_id(name: &str) -> Option<ProposalId> {
    name.strip_suffix(".comment")
        .and_then(|h| ProposalId::try_from(h.to_owned()).ok())
}

impl Store {
    /// Stores an agent's comment on proposal `on` (an id prefix): its
    /// answer to the reviewer, on the whole proposal or on `change`. Needs
    /// only the agent identity. Returns the comment's id.
    pub fn comment(
        &self,
        agent: &str,
        session: &str,
        on: &str,
        change: Option<usize>,
        text: &str,
    ) -> Result<ProposalId> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::invalid("comment", "", "an empty comment says nothing"));
        }
        check_text("comment", text, text, MAX_DESCRIPTION)?;
        check_text("session", session, session, 128)?;
        super::submission::check_agent(agent)?;
        if change == Some(0) {
            return Err(Error::invalid("change", "0", "changes are numbered from 1"));
        }
        let on = self.resolve_proposal(on)?;
        let stored = StoredComment {
            format: FORMAT,
            created: Timestamp::now(),
            agent: agent.to_owned(),
            session: session.to_owned(),
            on,
            change,
            text: text.to_owned(),
        };
        let json = serde_json::to_vec(&stored).map_err(|e| Error::integrity("comment", e.to_string()))?;
        let recipient = self.keys().proposal_recipient(&self.layout().keys())?;
        let sealed = files::seal_to(&[&recipient], &json)?;
        super::pending::write_as(&self.layout().pending(), &sealed, EXTENSION)
    }

    /// The agents' comments on proposal `on`, oldest first (master level).
    /// A comment file that is not well formed is quarantined with a reason.
    pub fn comments_on(&self, on: &ProposalId) -> Result<Vec<StoredComment>> {
        Ok(self.comments()?.remove(on).unwrap_or_default())
    }

    /// Every agent comment in `pending/`, by the proposal it is on, each
    /// list oldest first (master level): one read of the directory for a
    /// whole conversation. Malformed files are quarantined with a reason.
    pub(crate) fn comments(&self) -> Result<HashMap<ProposalId, Vec<StoredComment>>> {
        let master = self
            .keys()
            .master()
            .map_err(|_| self.keys().needs(crate::Level::Master, "reading comments"))?;
        let dir = self.layout().pending();
        let mut out: HashMap<ProposalId, Vec<StoredComment>> = HashMap::new();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(out);
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(comment_id) else {
                continue;
            };
            let path = entry.path();
            match read_comment(&path, &id, master) {
                Ok(c) => out.entry(c.on.clone()).or_default().push(c),
                // Unreadable for now (permissions): left for a later read.
                Err(super::pending::Fail::Transient(_)) => {}
                Err(super::pending::Fail::Bad(reason)) => {
                    let reason = visible_line(&reason).into_owned();
                    let _ = super::pending::quarantine(&dir, &path, &format!("{id}.{EXTENSION}"), &reason);
                }
            }
        }
        for list in out.values_mut() {
            list.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.text.cmp(&b.text)));
        }
        Ok(out)
    }
}

/// Reads and opens one comment file, or says why it is not one.
fn read_comment(
    path: &Path,
    id: &ProposalId,
    master: &age::x25519::Identity,
) -> std::result::Result<StoredComment, super::pending::Fail> {
    let bytes = super::pending::read_capped(path, MAX_FILE_BYTES)?;
    read_opened(path, id, &bytes, master).map_err(super::pending::Fail::Bad)
}

fn read_opened(
    path: &Path,
    id: &ProposalId,
    bytes: &[u8],
    master: &age::x25519::Identity,
) -> std::result::Result<StoredComment, String> {
    if ProposalId::of(bytes) != *id {
        return Err("its content does not match the hash in its name".into());
    }
    let json = files::open_with(path, bytes, master, "master identity").map_err(|e| match e {
        Error::WrongSecret(..) => "it is not sealed to this store's master key".to_owned(),
        other => other.to_string(),
    })?;
    super::strict_json::check(&json).map_err(|e| e.to_string())?;
    let c: StoredComment = serde_json::from_slice(&json).map_err(|e| format!("not a valid comment: {e}"))?;
    if c.format != FORMAT {
        return Err(format!("format {} is not one this version reads", c.format));
    }
    check_text("comment", &c.text, &c.text, MAX_DESCRIPTION).map_err(|e| e.to_string())?;
    Ok(c)
}
