//! Freshness: what this machine last saw of a store, so that a store put
//! back as it was (an older, validly sealed `graph.db`, through git or a
//! file copy) is a detected event and never a silent rollback.
//!
//! Each statement of the master's seal names the statements it follows
//! (the store's seal log), so a store's history is a chain that can be walked.
//! Each machine keeps, per work tree and per kind of session (master, agent),
//! the last statement it opened or wrote and the git commit checked out then
//! ([`Record`]), in the user's state directory (never in the repository).
//! At every open with a key that authenticates the seal, [`decide`] compares:
//!
//! - the store's statement is the recorded one, or descends from it: fresh;
//!   the record moves forward;
//! - it does not, and git moved *forward* (the commit checked out descends
//!   from the recorded one: a merge, pull, fast-forward, or a rebase onto it):
//!   git forward and the store backward is the attack: the store opens
//!   read-only until a person restores the newer store or accepts the older;
//! - it does not, and git moved *elsewhere* (another branch, an old commit,
//!   bisect, reset): an older or different store is expected; the record
//!   follows;
//! - it does not, and git did not move (or there is no git): the file was
//!   replaced in place: read-only, as for the attack.
//!
//! The record is a file anyone running as the user can delete: deleting it
//! loses the protection (and `doctor` says so), never data.

mod backup;
mod decide;
pub mod git;
mod record;

pub use backup::{aside_path, backup_holds, backup_path, keep_backup};
pub use decide::{Current, Rollback, Verdict, decide};
pub use record::{Kind, Record, RecordFile, state_dir, work_tree_key};
pub(crate) use record::{private_dir, write_private};
