//! The sealed file form of a proposal and its content-addressed id.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use age::x25519;
use serde::{Deserialize, Serialize};

use super::submission::Submission;
use crate::crypto::sha256_hex;
use crate::error::{Error, Result};
use crate::keys::files;
pub use crate::keys::master_recipient;
use crate::model::{Name, Timestamp};

/// The format number written into every proposal.
pub const FORMAT: u8 = 1;

/// A proposal's id: the SHA-256 of its sealed file, in hex.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ProposalId(String);

impl ProposalId {
    /// The id of sealed file contents.
    pub fn of(bytes: &[u8]) -> Self {
        Self(sha256_hex(bytes))
    }
    /// The full hex id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The first 12 hex digits, as shown to people.
    pub fn short(&self) -> &str {
        &self.0[..12]
    }
    /// The file name in `pending/`.
    pub fn file_name(&self) -> String {
        format!("{}.proposal", self.0)
    }
    /// Parses a file name of the form `<64 hex>.proposal`.
    pub fn from_file_name(name: &str) -> Option<Self> {
        name.strip_suffix(".proposal")
            .and_then(|h| Self::try_from(h.to_owned()).ok())
    }
}

impl TryFrom<String> for ProposalId {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            Ok(Self(s))
        } else {
            Err(Error::invalid("proposal id", s, "64 lowercase hex digits"))
        }
    }
}

impl From<ProposalId> for String {
    fn from(id: ProposalId) -> String {
        id.0
    }
}

impl fmt::Display for ProposalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a proposal reached the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `graphex propose`.
    Cli,
    /// The MCP server.
    Mcp,
    /// `graphex infer`.
    Infer,
    /// A reviewer's edit of another proposal.
    Edit,
    /// The demo data.
    Demo,
    /// A node both branches of a git merge changed (see `graphex git`):
    /// built from the index's conflict rows, never read from a file.
    Merge,
}

/// What a proposal file holds once opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredProposal {
    pub format: u8,
    pub created: Timestamp,
    pub source: Source,
    /// The proposal this one edits, for a reviewer's edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_from: Option<ProposalId>,
    /// For every node the proposal mentions, its version as the proposer saw
    /// it (`null`: absent, or not readable by the proposer).
    pub bases: BTreeMap<Name, Option<u64>>,
    pub submission: Submission,
}

impl StoredProposal {
    /// Seals the proposal to the store's master recipient (see
    /// [`crate::keys::Keyring::proposal_recipient`]).
    pub fn seal(&self, recipient: &x25519::Recipient) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(self).map_err(|e| Error::integrity("proposal", e.to_string()))?;
        files::seal_to(&[recipient], &json)
    }

    /// Opens sealed proposal bytes with the master identity.
    pub fn open(path: &Path, bytes: &[u8], master: &x25519::Identity) -> Result<Self> {
        let json = files::open_with(path, bytes, master, "master identity")?;
        super::strict_json::check(&json)?;
        let p: StoredProposal = serde_json::from_slice(&json).map_err(|e| Error::Document {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        if p.format != FORMAT {
            return Err(Error::UnknownFormat {
                what: "proposal".into(),
                found: p.format,
            });
        }
        p.submission.validate()?;
        Ok(p)
    }
}
