//! A pending proposal named the way a reviewer thinks of it: by an id
//! prefix, or by the node it adds or changes (`graphex accept retry-queue`)
//! when exactly one pending proposal touches that node.

use super::stored::ProposalId;
use crate::error::{Error, Result};
use crate::store::Store;

/// The most candidates an ambiguous name lists.
const LISTED: usize = 10;

impl Store {
    /// The proposal `arg` names: an id prefix (as [`Store::resolve_proposal`]),
    /// else the one pending proposal that adds or changes a node named `arg`.
    /// An ambiguous name lists the candidates (master level, to read them).
    pub fn resolve_proposal_or_node(&self, arg: &str) -> Result<ProposalId> {
        let by_id = self.resolve_proposal(arg);
        let looks_like_id = arg.len() >= 4 && arg.bytes().all(|b| b.is_ascii_hexdigit());
        match by_id {
            Ok(id) => return Ok(id),
            Err(e) if looks_like_id && !matches!(e, Error::NoProposal(_)) => return Err(e),
            Err(_) => {}
        }
        let touching: Vec<_> = self
            .pending()?
            .pending
            .into_iter()
            .filter(|p| p.proposal.submission.changes.iter().any(|c| adds_or_changes(c, arg)))
            .collect();
        match touching.as_slice() {
            [one] => Ok(one.id.clone()),
            [] if looks_like_id => Err(Error::NoProposal(arg.to_owned())),
            [] => Err(Error::invalid(
                "proposal",
                arg,
                "no pending proposal has an id starting so or adds or changes a node of that name (`graphex pending` lists them)",
            )),
            many => {
                let listed: Vec<String> = many
                    .iter()
                    .take(LISTED)
                    .map(|p| format!("{} (by {})", p.id.short(), p.proposal.submission.agent))
                    .collect();
                let more = many.len().saturating_sub(LISTED);
                Err(Error::invalid(
                    "proposal",
                    arg,
                    format!(
                        "{} pending proposals touch it: {}{}; give one's id",
                        many.len(),
                        listed.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    ),
                ))
            }
        }
    }
}

/// Whether change `c` adds, or writes, the node named `name` (an edge that
/// merely links to it does not count).
fn adds_or_changes(c: &super::Change, name: &str) -> bool {
    match c {
        super::Change::AddNode { name: added, .. } => added.as_str() == name,
        other => other.modifies().iter().any(|n| n.as_str() == name),
    }
}
