//! Stable identifiers. Ids are time-ordered UUIDv7s; they are the only thing
//! about a non-public node that the index shows in the clear.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::Error;

macro_rules! id_type {
    ($(#[$doc:meta])* $ty:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $ty(pub Uuid);

        impl $ty {
            /// A fresh time-ordered id.
            pub fn generate() -> Self {
                Self(Uuid::now_v7())
            }

            /// The 16 raw bytes, as bound into ciphertexts.
            pub fn as_bytes(&self) -> &[u8; 16] {
                self.0.as_bytes()
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($ty), self.0)
            }
        }

        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                Uuid::parse_str(s)
                    .map(Self)
                    .map_err(|e| Error::invalid($what, s, e.to_string()))
            }
        }
    };
}

id_type!(
    /// Identifies a node across renames and versions.
    NodeId,
    "node id"
);
id_type!(
    /// Identifies an edge.
    EdgeId,
    "edge id"
);
