//! Node types and edge relations: the spec's vocabulary plus custom lowercase
//! terms. Both share one shape, defined once by a macro.

use crate::error::{Error, Result};

/// Longest custom type or relation.
pub const MAX_TERM_LEN: usize = 64;

/// Checks a custom term: lowercase ASCII letter first, then letters, digits, `-`.
pub(crate) fn validate_term(what: &'static str, raw: &str, known: &[&str]) -> Result<()> {
    let ok_shape = !raw.is_empty()
        && raw.len() <= MAX_TERM_LEN
        && raw.starts_with(|c: char| c.is_ascii_lowercase())
        && raw
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok_shape {
        return Ok(());
    }
    Err(Error::invalid(
        what,
        raw,
        format!(
            "custom values are lowercase words (a-z, 0-9, '-', starting with a letter, at most {MAX_TERM_LEN}); known ones: {}",
            known.join(", ")
        ),
    ))
}

macro_rules! vocabulary {
    ($(#[$doc:meta])* $ty:ident, $what:literal, [$($known:literal),* $(,)?]) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[serde(try_from = "String", into = "String")]
        // A thin pointer (8 bytes, where `Arc<str>` takes 16): every edge
        // holds a relation, and a catalog holds hundreds of thousands.
        pub struct $ty(std::sync::Arc<Box<str>>);

        impl $ty {
            /// The spec's values, in the spec's order.
            pub const KNOWN: &'static [&'static str] = &[$($known),*];

            /// Validates a known or custom value. `_` is read as `-`, as
            /// imports do, so `similar_to` (Cortex, kgraph) and `similar-to`
            /// are one spelling everywhere.
            pub fn new(raw: &str) -> $crate::error::Result<Self> {
                let raw = raw.replace('_', "-");
                $crate::model::vocabulary::validate_term($what, &raw, Self::KNOWN)?;
                Ok(Self(std::sync::Arc::new(raw.into_boxed_str())))
            }

            /// The value as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The identity of the shared text: values with equal ids are
            /// equal (equal values may have different ids, when decoded
            /// apart). For counting without comparing text.
            pub fn shared_id(&self) -> usize {
                std::sync::Arc::as_ptr(&self.0) as usize
            }

            /// Whether this value is one of the spec's.
            pub fn is_known(&self) -> bool {
                Self::KNOWN.contains(&self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::error::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::new(s)
            }
        }

        impl TryFrom<String> for $ty {
            type Error = $crate::error::Error;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                Self::new(&s)
            }
        }

        impl From<$ty> for String {
            fn from(v: $ty) -> String {
                v.0.to_string()
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

vocabulary!(
    /// What a node is: one of the spec's types or a custom lowercase one.
    NodeType,
    "type",
    [
        "service", "module", "concept", "convention", "external-system", "person", "team",
        "policy", "schema", "glossary", "decision", "database",
    ]
);

vocabulary!(
    /// What an edge means: one of the spec's relations or a custom lowercase one.
    Relation,
    "relation",
    [
        "depends-on", "communicates-with", "owned-by", "implements-policy", "contains", "uses",
        "contradicts", "supersedes", "related-to", "federated-from",
    ]
);

impl Relation {
    /// The `supersedes` relation: a link of it also deprecates its target.
    pub fn supersedes() -> Relation {
        Relation::new("supersedes").unwrap_or_else(|_| unreachable!("a known relation"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_custom_values() {
        assert!(NodeType::new("service").unwrap().is_known());
        let custom = NodeType::new("runbook").unwrap();
        assert!(!custom.is_known());
        assert!(Relation::new("depends-on").unwrap().is_known());
        assert!(Relation::new("blocks").is_ok());
        assert_eq!(
            Relation::new("similar_to").unwrap().as_str(),
            "similar-to",
            "as an import spells it"
        );
    }

    #[test]
    fn bad_values_list_the_known_ones() {
        for bad in ["Service", "", "1st", "has space", "_lead"] {
            let msg = NodeType::new(bad).unwrap_err().to_string();
            assert!(msg.contains("known ones: service, module"), "{bad:?}: {msg}");
        }
        assert!(
            Relation::new("DependsOn")
                .unwrap_err()
                .to_string()
                .contains("depends-on")
        );
    }
}
