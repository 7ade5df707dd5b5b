//! Where a node or edge came from.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The origin of a piece of knowledge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Provenance {
    /// Written by a person through the console or the CLI.
    #[default]
    Human,
    /// Proposed by an AI agent and accepted by a human.
    Agent { id: String, session: String, trust: f64 },
    /// Inferred from code or documents.
    Inferred { source: String },
    /// Pulled from another project's published subgraph.
    /// `project` is the source's project; `subgraph` its published
    /// subgraph (absent in nodes written before federation was built).
    Federated {
        project: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        subgraph: String,
    },
}

impl Provenance {
    /// `self` behind an `Arc`, as edges hold it: the common human
    /// provenance is one allocation shared by every edge, not one per edge.
    pub fn shared(&self) -> std::sync::Arc<Provenance> {
        static HUMAN: std::sync::OnceLock<std::sync::Arc<Provenance>> = std::sync::OnceLock::new();
        match self {
            Provenance::Human => HUMAN.get_or_init(|| std::sync::Arc::new(Provenance::Human)).clone(),
            other => std::sync::Arc::new(other.clone()),
        }
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Human => f.write_str("human"),
            Provenance::Agent { id, session, trust } => {
                write!(f, "agent:{id} (session {session}, trust {trust:.1})")
            }
            Provenance::Inferred { source } => write!(f, "inferred from {source}"),
            Provenance::Federated { project, subgraph } if subgraph.is_empty() => {
                write!(f, "federated from {project}")
            }
            Provenance::Federated { project, subgraph } => write!(f, "federated from {project}/{subgraph}"),
        }
    }
}
