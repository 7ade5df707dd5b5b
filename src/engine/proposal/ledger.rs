//! What an agent remembers of its own proposals. Proposals are sealed to
//! the master, so an agent cannot list the queue to find its own; its MCP
//! server or CLI records each id it submits (and the one it revises) in the
//! user's state directory, 0600, written atomically, never in the
//! repository. [`Store::review_list`] then reads each one's state from the
//! decisions, which agents may read.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::decision::{Decision, Outcome};
use super::queue::ProposalStatus;
use super::stored::ProposalId;
use crate::error::{Error, Result};
use crate::freshness::{private_dir, state_dir, work_tree_key, write_private};
use crate::model::Timestamp;
use crate::store::Store;

/// The most proposals one ledger keeps (the oldest are dropped).
const MAX_ENTRIES: usize = 1000;

/// One submitted proposal, as its agent recorded it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub id: ProposalId,
    pub at: Timestamp,
    /// A one-line summary the agent gave (its first change).
    #[serde(default)]
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revises: Option<ProposalId>,
}

/// An agent's ledger for one store.
pub struct Ledger {
    path: PathBuf,
}

impl Ledger {
    /// The ledger of `agent` for the store at `root`, under the user's state
    /// directory; `None` when there is none (no home).
    pub fn for_store(root: &Path, agent: &str) -> Option<Ledger> {
        super::submission::check_agent(agent).ok()?;
        state_dir().map(|s| Ledger {
            path: s.join("agents").join(work_tree_key(root)).join(format!("{agent}.json")),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> Result<Vec<LedgerEntry>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                Error::integrity(
                    self.path.display().to_string(),
                    format!("the agent's list of its proposals does not parse ({e}); delete it to start a new one"),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }

    /// Adds proposal `id`, just submitted as `sub`.
    pub fn record_submitted(&self, id: &ProposalId, sub: &super::Submission) -> Result<()> {
        self.record(LedgerEntry {
            id: id.clone(),
            at: Timestamp::now(),
            summary: summary(sub),
            revises: sub.revises.clone(),
        })
    }

    /// Adds a submitted proposal. Two servers of one agent may add at
    /// once: the read, change and write happen under the lock file beside
    /// the ledger, so neither loses the other's entry.
    pub fn record(&self, entry: LedgerEntry) -> Result<()> {
        private_dir(self.path.parent().unwrap_or(Path::new(".")))?;
        let _held = self.lock()?;
        let mut all = self.entries()?;
        all.retain(|e| e.id != entry.id);
        all.push(entry);
        let drop = all.len().saturating_sub(MAX_ENTRIES);
        all.drain(..drop);
        let bytes = serde_json::to_vec_pretty(&all).map_err(|e| Error::io(&self.path, std::io::Error::other(e)))?;
        write_private(&self.path, &bytes)
    }

    /// Waits for and takes the ledger's lock: `AGENT.json.lock` beside it,
    /// 0600, held until the file returned is dropped (the system frees it
    /// if the process dies).
    fn lock(&self) -> Result<File> {
        let path = self.path.with_extension("json.lock");
        let mut opts = OpenOptions::new();
        opts.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let file = opts.open(&path).map_err(|e| Error::io(&path, e))?;
        file.lock().map_err(|e| Error::io(&path, e))?;
        Ok(file)
    }
}

/// Where one of an agent's proposals stands in review.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewItem {
    pub id: ProposalId,
    #[serde(serialize_with = "Timestamp::serialize_rfc3339")]
    pub submitted: Timestamp,
    pub summary: String,
    /// `pending`, `accepted`, `rejected`, `edited`, `changes-requested`,
    /// `revised` (a revision of it was submitted) or `quarantined`.
    pub state: String,
    /// The reviewer's reason or comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The change the comment is on (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<usize>,
    /// The revision submitted in answer, for `revised`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revised_by: Option<ProposalId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revises: Option<ProposalId>,
}

impl Store {
    /// The state of each proposal in `entries` (an agent's ledger), newest
    /// first. Needs only the agent identity.
    pub fn review_list(&self, entries: &[LedgerEntry]) -> Result<Vec<ReviewItem>> {
        let mut out = Vec::new();
        for e in entries.iter().rev() {
            let revised_by = entries
                .iter()
                .find(|o| o.revises.as_ref() == Some(&e.id))
                .map(|o| o.id.clone());
            let (state, decision): (String, Option<Decision>) = match self.proposal_status(e.id.as_str()) {
                Ok(ProposalStatus::Pending { .. }) => ("pending".into(), None),
                Ok(ProposalStatus::Decided { decision, .. }) => {
                    let state = if decision.outcome == Outcome::ChangesRequested && revised_by.is_some() {
                        "revised".to_owned()
                    } else {
                        decision.outcome.as_str().to_owned()
                    };
                    (state, Some(decision))
                }
                Ok(ProposalStatus::Quarantined { reason, .. }) => {
                    out.push(item(e, "quarantined".into(), None, revised_by));
                    if let Some(last) = out.last_mut() {
                        last.comment = Some(reason);
                    }
                    continue;
                }
                // Gone from this clone (another branch, a pruned file).
                Err(Error::NotFound(_) | Error::NoProposal(_)) => ("unknown to this store".into(), None),
                Err(other) => return Err(other),
            };
            out.push(item(e, state, decision, revised_by));
        }
        Ok(out)
    }
}

/// `add_node retry-queue (+1 more)`: the first change, and how many follow.
fn summary(sub: &super::Submission) -> String {
    let Some(first) = sub.changes.first() else {
        return String::new();
    };
    let name = first.names().first().map(ToString::to_string).unwrap_or_default();
    let more = sub.changes.len() - 1;
    let more = if more > 0 {
        format!(" (+{more} more)")
    } else {
        String::new()
    };
    format!("{} {name}{more}", first.op())
}

fn item(e: &LedgerEntry, state: String, decision: Option<Decision>, revised_by: Option<ProposalId>) -> ReviewItem {
    ReviewItem {
        id: e.id.clone(),
        submitted: e.at,
        summary: e.summary.clone(),
        state,
        change: decision.as_ref().and_then(|d| d.change),
        comment: decision.and_then(|d| d.reason),
        revised_by,
        revises: e.revises.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_servers_adding_at_once_lose_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents").join("store").join("claude-code.json");
        let add = |server: usize| {
            let ledger = Ledger { path: path.clone() };
            move || {
                for i in 0..150 {
                    let id = ProposalId::of(format!("{server}-{i}").as_bytes());
                    ledger
                        .record(LedgerEntry {
                            id,
                            at: Timestamp::now(),
                            summary: String::new(),
                            revises: None,
                        })
                        .unwrap();
                }
            }
        };
        let servers: Vec<_> = (0..2).map(|s| std::thread::spawn(add(s))).collect();
        for s in servers {
            s.join().unwrap();
        }
        let kept: std::collections::HashSet<ProposalId> = Ledger { path: path.clone() }
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        for server in 0..2 {
            for i in 0..150 {
                assert!(
                    kept.contains(&ProposalId::of(format!("{server}-{i}").as_bytes())),
                    "{server}-{i}"
                );
            }
        }
        use std::os::unix::fs::PermissionsExt as _;
        let lock = std::fs::metadata(path.with_extension("json.lock")).unwrap();
        assert_eq!(lock.permissions().mode() & 0o777, 0o600);
    }
}
