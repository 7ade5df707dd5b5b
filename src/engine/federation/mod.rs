//! Federation (the spec's Federation Protocol): a project publishes a
//! subgraph as a signed bundle; other projects pull it as read-only nodes.
//!
//! - **What leaves** (`publish`): the nodes whose names match the subgraph's
//!   patterns, every field of their current version with its tier, never a
//!   human-only node nor one this project itself pulled from elsewhere; the
//!   edges among them only; a sequence number; tombstones for names
//!   published before and no longer.
//! - **Signing and pinning** (`bundle`): the publisher signs with an
//!   Ed25519 key derived from its master identity (its own purpose, not the
//!   seal's key); a consumer pins that public key in its approved settings
//!   and refuses a bundle signed by any other, altered, or older than the
//!   one it pulled last.
//! - **What a pull does** (`pull`): one commit through the store's import
//!   path: new nodes and new versions, a tier never lowered, tombstoned or
//!   vanished federated nodes archived, removed edges unlinked. Pulled nodes
//!   carry the property [`FEDERATED_FROM`] (`project/subgraph`) and a
//!   federated provenance, and the store refuses every local edit of them.
//! - **Settings** (`config`): `[graphex.federation]` is part of the
//!   settings the master approves, so an agent editing the file cannot add a
//!   source, swap a pinned key or widen what is published.

mod apply;
mod bundle;
pub mod config;
mod publish;
mod pull;
mod state;
#[cfg(test)]
mod tests;

pub use bundle::{BUNDLE_FORMAT, BUNDLE_VERSION, Bundle};
pub use config::{FederationConfig, Location, PublishConfig, SourceConfig, bundle_file, federation_ref};
pub use publish::{Publication, default_output, plan_publish, publisher_key, record_publish};
pub use pull::{PullReport, open_bundle, pull, read_bundle};

pub use crate::model::{FEDERATED_FROM, federated_origin as origin};
