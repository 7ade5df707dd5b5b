//! Look-ups for people and agents: the one fuzzy matcher every picker and
//! search ranks with (`matcher`), fuzzy search over names and descriptions,
//! glossary terms, and the conventions that apply to a file or module (the
//! spec's `graphex_glossary` and `graphex_conventions`), with an index of
//! node bodies for searches that reach into them; and the name
//! matching they share with the proposal lint and the curator lists:
//! near-duplicate names and names mentioned in text.

mod bodies;
mod conventions;
mod glossary;
pub mod matcher;
mod mentions;
mod near;
mod search;

pub use bodies::Bodies;
pub use conventions::{Applicable, conventions_for, conventions_within};
pub use glossary::{glossary, normalize_term};
pub use matcher::{Hit, Kind, Matcher, by_rank};
pub use mentions::NameScan;
pub use near::NearNames;
pub use search::{SearchHit, search, search_with_bodies, search_within};

#[cfg(test)]
mod tests;
