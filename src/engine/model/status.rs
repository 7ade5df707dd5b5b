//! Lifecycle: Proposed → Active → Deprecated → Archived, and restore.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Where a node is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Suggested by an agent or by inference, awaiting a human.
    Proposed,
    /// Queryable and projected.
    Active,
    /// Still visible but flagged; not projected to agents.
    Deprecated,
    /// Soft-deleted: recoverable, not visible by default.
    Archived,
}

impl Status {
    /// All statuses in lifecycle order.
    pub const ALL: [Status; 4] = [Status::Proposed, Status::Active, Status::Deprecated, Status::Archived];

    /// The status's name as written in the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Proposed => "proposed",
            Status::Active => "active",
            Status::Deprecated => "deprecated",
            Status::Archived => "archived",
        }
    }

    /// Whether the lifecycle allows moving from `self` to `to`.
    /// Restore (Deprecated/Archived → Active) is allowed; nothing returns to Proposed.
    pub fn can_become(self, to: Status) -> bool {
        use Status::*;
        matches!(
            (self, to),
            (Proposed, Active)
                | (Proposed, Archived)
                | (Active, Deprecated)
                | (Deprecated, Archived)
                | (Deprecated, Active)
                | (Archived, Active)
        )
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Status::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| Error::invalid("status", s, "expected one of proposed, active, deprecated, archived"))
    }
}

/// Moves `node` to `to` (lifecycle rules checked), with `reason`.
pub fn set_status(
    node: &mut super::Node,
    to: Status,
    reason: Option<String>,
    now: super::Timestamp,
) -> crate::error::Result<()> {
    if !node.status.can_become(to) {
        return Err(crate::error::Error::Transition {
            name: node.name.to_string(),
            from: node.status,
            to,
        });
    }
    node.status = to;
    node.status_reason = reason;
    node.updated = now;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Status::*;

    #[test]
    fn lifecycle_edges() {
        assert!(Proposed.can_become(Active));
        assert!(Active.can_become(Deprecated));
        assert!(Deprecated.can_become(Archived));
        assert!(Archived.can_become(Active), "restore from archived");
        assert!(Deprecated.can_become(Active), "restore from deprecated");
        assert!(!Active.can_become(Proposed));
        assert!(!Archived.can_become(Deprecated));
        assert!(!Active.can_become(Active));
        assert!(!Active.can_become(Archived), "deprecate first: the spec's lifecycle");
    }
}
