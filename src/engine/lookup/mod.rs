//! Look-ups for people and agents: fuzzy search over names and descriptions,
//! glossary terms, and the conventions that apply to a file or module (the
//! spec's `graphex_glossary` and `graphex_conventions`).

mod conventions;
mod glossary;
mod search;

pub use conventions::{Applicable, conventions_for, conventions_within};
pub use glossary::{glossary, normalize_term};
pub use search::{SearchHit, search};

#[cfg(test)]
mod tests;
