//! An agent's comment on a proposal: its answer to a reviewer's request
//! for changes. Like a proposal, it is sealed to the master recipient (no
//! other agent reads it) and written to `pending/<sha256>.comment`, the
//! one place an agent may write. A reviewer reads it with the proposal's
//! conversation; a file that is not a well-formed comment of this store is
//! quarantined like a bad proposal.
//!
//! A comment speaks in an agent's name, so it needs the agent's key: it
//! carries a MAC under a key only the holders of the agent identity and the
//! master derive (their X25519 shared secret), so a process with write
//! access alone cannot put words in an agent's mouth. A comment without a
//! valid MAC is quarantined, never shown.

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
    /// The MAC of every field above under the master and agent's shared
    /// key, hex (empty before it is computed).
    #[serde(default)]
    pub mac: String,
}

impl StoredComment {
    /// The MAC over the comment's fields (its `mac` left out).
    fn mac_of(&self, key: &crate::crypto::SymmetricKey) -> Result<hmac::Hmac<sha2::Sha256>> {
        use hmac::{KeyInit, Mac};
        let unsigned = StoredComment {
            mac: String::new(),
            ..self.clone()
        };
        let json = serde_json::to_vec(&unsigned).map_err(|e| Error::integrity("comment", e.to_string()))?;
        let mut m = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        m.update(b"graphex/comment/v1\0");
        m.update(&json);
        Ok(m)
    }

    fn tag(&self, key: &crate::crypto::SymmetricKey) -> Result<String> {
        use hmac::Mac;
        Ok(crate::crypto::hex(&self.mac_of(key)?.finalize().into_bytes()))
    }

    /// Whether its MAC is the one only the agent's or master's key makes
    /// (in constant time).
    fn verifies(&self, key: &crate::crypto::SymmetricKey) -> bool {
        use hmac::Mac;
        match (crate::crypto::unhex(&self.mac), self.mac_of(key)) {
            (Some(tag), Ok(m)) => m.verify_slice(&tag).is_ok(),
            _ => false,
        }
    }
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
    /// the agent identity (or the master key): a session with no key is
    /// refused. The comment is recorded in the audit log. Returns the comment's
    /// id.
    pub fn comment(
        &mut self,
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
        let Some(key) = self.keys().master_agent_key(crate::crypto::Purpose::CommentAuth) else {
            return Err(self.keys().needs(
                crate::Level::Agent,
                "commenting in an agent's name (GRAPHEX_AGENT_IDENTITY)",
            ));
        };
        let on = self.resolve_proposal(on)?;
        let mut stored = StoredComment {
            format: FORMAT,
            created: Timestamp::now(),
            agent: agent.to_owned(),
            session: session.to_owned(),
            on,
            change,
            text: text.to_owned(),
            mac: String::new(),
        };
        stored.mac = stored.tag(&key)?;
        let json = serde_json::to_vec(&stored).map_err(|e| Error::integrity("comment", e.to_string()))?;
        let recipient = self.keys().proposal_recipient(&self.layout().keys())?;
        let sealed = files::seal_to(&[&recipient], &json)?;
        let id = super::pending::write_as(&self.layout().pending(), &sealed, EXTENSION)?;
        self.record_commented(agent, session, &stored.on, &id)?;
        Ok(id)
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
        let key = self
            .keys()
            .master_agent_key(crate::crypto::Purpose::CommentAuth)
            .ok_or_else(|| self.keys().needs(crate::Level::Master, "reading comments"))?;
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
            match read_comment(&path, &id, master, &key) {
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
    key: &crate::crypto::SymmetricKey,
) -> std::result::Result<StoredComment, super::pending::Fail> {
    let bytes = super::pending::read_capped(path, MAX_FILE_BYTES)?;
    read_opened(path, id, &bytes, master, key).map_err(super::pending::Fail::Bad)
}

fn read_opened(
    path: &Path,
    id: &ProposalId,
    bytes: &[u8],
    master: &age::x25519::Identity,
    key: &crate::crypto::SymmetricKey,
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
    if !c.verifies(key) {
        return Err(format!(
            "it is not signed with the agent's key: a comment in {}'s name written without it",
            visible_line(&c.agent)
        ));
    }
    Ok(c)
}
