//! Freshness: what this machine last saw of a store, so that a store put
//! back as it was (an older, validly sealed `graph.db`, through git or a
//! file copy) is a detected event and never a silent rollback.
//!
//! Each statement of the master's seal names the statements it follows
//! (the store's seal log), so a store's history is a chain that can be walked.
//! Each machine keeps, per work tree, per line of history (the branch
//! checked out, or the commit of a detached `HEAD`) and per kind of session
//! (master, agent), the last statement it opened or wrote and the git commit
//! checked out then ([`Record`]), in the user's state directory (never in
//! the repository). At every open with a key that authenticates the seal,
//! [`decide`] compares the store with the record of the branch checked out:
//!
//! - the store's statement is the recorded one, or descends from it: fresh;
//!   the record moves forward;
//! - it does not: whatever moved the branch (a merge, pull, `pull --rebase`,
//!   rebase, `reset --hard`, cherry-pick, revert, a fetched force push) or
//!   the file (a copy put back in place), the branch's graph went back: the
//!   store opens read-only until a person restores the newer store or
//!   accepts the older.
//!
//! Another branch has its own record, so switching branches is no error;
//! a branch (or detached commit) seen for the first time is trusted, and
//! said so. A record from before records were kept per branch (no scope)
//! is read where a branch has none yet, with the older rule: git moved
//! *elsewhere* (the commit checked out does not descend from the recorded
//! one) means another store is expected, and the record follows.
//!
//! The record is a file anyone running as the user can delete: deleting it
//! loses the protection (and `doctor` says so), never data.

mod backup;
#[cfg(test)]
pub(crate) use backup::TEST_COPY_WITHIN;
mod decide;
pub mod git;
mod record;

pub use backup::{
    COPY_WITHIN, Check, How, Kept, Stamp, Stop, Unchecked, aside_path, backup_holds, backup_path, copy_owed,
    keep_backup, link_path,
};
pub use decide::{Current, Rollback, Verdict, decide};
pub use record::{
    Kind, Record, RecordFile, pinned_signers, pinned_signers_in, scope_of, scoped_key, state_dir, work_tree_key,
};
pub(crate) use record::{private_dir, write_private};
