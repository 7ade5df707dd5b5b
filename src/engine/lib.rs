//! # graphex-engine
//!
//! The engine of Graphex: an encrypted, versioned, tiered knowledge graph kept
//! inside a repository (`.gpp/graphex/` and `.gpp/objects/`). It holds the
//! graph model, the key hierarchy, the on-disk formats and the store. It has no
//! terminal and no async runtime: every call is synchronous and returns owned
//! results; calls that are CPU-heavy say so in their docs.
//!
//! Start with [`store::Store::open`]; see the [`store`] module for the disk
//! exposure design (what a copy of the repository without keys reveals).

#[cfg(test)]
mod agent_reads_tests;
pub mod as_of;
pub mod audit;
pub mod codec;
pub mod compare;
pub mod config;
pub mod crypto;
pub mod curate;
pub mod doctor;
pub mod durable;
pub mod error;
pub mod exposure;
pub mod federation;
pub mod freshness;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod hygiene;
pub mod infer;
pub mod interchange;
pub mod keys;
pub mod lookup;
pub mod merge;
pub mod model;
pub mod parallel;
pub mod project;
pub mod proposal;
pub mod query;
pub mod query_history;
pub mod rollback;
pub mod rotate;
pub mod seed;
pub mod store;
pub mod traverse;

pub mod synth;
#[cfg(test)]
pub(crate) mod testkit;

pub use error::{Error, Result};
pub use keys::{Credentials, KdfCost, Level};
pub use model::{Edge, NewEdge, NewNode, Node, NodePatch, NodeSummary, Status, Tier};
pub use store::Store;

/// Secret string types used in the engine's API (re-exported from age).
pub mod age_secret {
    pub use age::secrecy::{ExposeSecret, SecretString};
}
