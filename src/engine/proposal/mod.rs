//! Proposals: how agents change the graph. An agent never writes to the
//! graph; it submits a [`Submission`], which is checked, sealed to the master
//! recipient (so no agent can read another's proposal) and stored as
//! `.gpp/graphex/pending/<sha256>.proposal`. A reviewer holding the master
//! key lists them with lints and stale-base checks, then accepts (all or some
//! changes, in one transaction), rejects with a reason, or edits. Each
//! decision is recorded in the index, sealed so the proposing agent can read
//! its outcome, and can be undone.
//!
//! Files in `pending/` that are not well-formed proposals of this store are
//! moved to `pending/quarantine/` with a reason and never stop the queue.

mod by_name;
mod change;
mod check;
mod comment;
mod conversation;
mod decide;
mod decision;
mod impact;
mod into_existing;
mod ledger;
mod lint;
mod merged;
pub(crate) mod pending;
mod pending_scans;
mod proposed;
mod queue;
mod recorded;
mod review;
mod siblings;
mod stored;
mod strict_json;
mod submission;
mod undo;

pub use change::{Change, FieldSet, Triple, supersedes};
pub use check::{check, check_with};
pub use comment::StoredComment;
pub use conversation::{MAX_ROUNDS, Round, conversation_problems};
pub use decide::{AcceptOptions, Accepted};
pub use decision::{Decision, Outcome, check_reason};
pub use impact::{AGENT_TIERS, TierImpact, after_accept, impact, tier_impact};
pub use into_existing::merged_into;
pub use ledger::{Ledger, LedgerEntry, ReviewItem};
pub use lint::{Lint, Mentions, credential_in, lint, lint_with, mentions_above};
pub use merged::{MERGE_AGENT, MergeSides};
pub use pending::{Pending, QUARANTINE, Quarantined, ScanResult, quarantined, submit};
pub use pending_scans::{PendingScans, listing_signature};
pub use proposed::{ProposedLink, ProposedNode, proposed_around, proposed_nodes};
pub use queue::{ProposalStatus, edit_text};
pub use review::{Card, Group, StaleNode, batch_digest, cards, cards_unlinted, stale_versions};
pub use stored::{ProposalId, Source, StoredProposal, master_recipient};
pub use submission::{INFERRED, SCHEMA, Submission};
pub use undo::Undone;

use crate::error::{Error, Result};

/// The largest submission accepted, in bytes of JSON.
pub const MAX_SUBMISSION_BYTES: usize = 512 * 1024;
/// The largest file read from `pending/`.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The most changes one proposal may carry.
pub const MAX_CHANGES: usize = 200;
/// The most suggested edges one new node may carry.
pub const MAX_EDGES_PER_NODE: usize = 64;

/// Checks a free-text field: length and no control characters other than
/// newline and tab.
pub(crate) fn check_text(what: &'static str, value: &str, text: &str, max: usize) -> Result<()> {
    if text.len() > max {
        return Err(Error::invalid(what, shorten(value), format!("at most {max} bytes")));
    }
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n' && *c != '\t') {
        return Err(Error::invalid(
            what,
            shorten(value),
            format!("contains the control character U+{:04X}", u32::from(c)),
        ));
    }
    Ok(())
}

/// The most secret tier the author of `sub` reads: its trust score under
/// the settings in force (agent-readable when they cannot be read), never
/// above agent-readable (`graphex propose` takes no local runtime).
pub(crate) fn proposer_tier(store: &crate::store::Store, sub: &Submission) -> crate::model::Tier {
    let access = crate::project::Access::Trust {
        score: sub.trust,
        local: false,
    };
    store
        .config()
        .and_then(|c| c.config.projection_settings())
        .map_or(crate::model::Tier::AgentReadable, |s| s.policy.max_tier(access))
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod apply_check_tests;
#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod conversation_tests;
#[cfg(test)]
mod hidden_undo_tests;
#[cfg(test)]
mod quarantine_tests;
#[cfg(test)]
mod recorded_tests;
#[cfg(test)]
mod remove_edge_tests;
#[cfg(test)]
mod restore_tests;
#[cfg(test)]
pub(crate) mod tests;
