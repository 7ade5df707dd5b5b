//! What the console and the command line both show or do: proposal cards
//! and outcome notes, the audit record of a projection, the demo store.
//! Neither front end reaches into the other; both use this.

pub mod audit_log;
pub mod audit_text;
pub mod cards;
pub mod conversation;
pub mod demo;
mod demo_proposals;
pub mod external_edit;
pub mod frames;
pub mod git_revision;
pub mod git_run;
pub mod secret_text;
pub mod three_way;
