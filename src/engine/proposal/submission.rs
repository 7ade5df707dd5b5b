//! What an agent submits: the JSON document `graphex propose` reads and the
//! MCP tools build. Parsing is strict: unknown fields, duplicate keys, bad
//! names and oversized input are errors that name the problem.

use serde::{Deserialize, Serialize};

use super::change::Change;
use super::{MAX_CHANGES, MAX_SUBMISSION_BYTES, check_text};
use crate::error::{Error, Result};
use crate::model::{MAX_DESCRIPTION, Provenance};

/// A proposal as an agent writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// The proposing agent's id (`claude-code`), or `inferred`.
    pub agent: String,
    /// The agent's trust score, 0 to 100.
    pub trust: f64,
    /// The agent session the proposal comes from.
    #[serde(default)]
    pub session: String,
    /// Why the agent proposes this.
    #[serde(default)]
    pub rationale: String,
    /// What to change, applied in order.
    pub changes: Vec<Change>,
    /// The proposal this one revises: one a reviewer asked changes of
    /// (`graphex request-changes`). The queue shows it in place of that one,
    /// with the conversation so far and what changed between the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revises: Option<super::stored::ProposalId>,
}

/// Checks an agent id: 1 to 64 characters of a-z, A-Z, 0-9, `-_.:@`.
pub(crate) fn check_agent(agent: &str) -> Result<()> {
    let ok = (1..=64).contains(&agent.len()) && agent.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:@".contains(c));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            "agent id",
            agent,
            "1 to 64 characters of a-z, A-Z, 0-9, '-', '_', '.', ':', '@'",
        ))
    }
}

/// The JSON Schema of a submission (`assets/schema/proposal.schema.json`).
pub const SCHEMA: &str = include_str!("../../../assets/schema/proposal.schema.json");

/// The agent id used by `graphex infer`.
pub const INFERRED: &str = "inferred";

impl Submission {
    /// Parses and validates a submission from JSON bytes.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        if bytes.len() > MAX_SUBMISSION_BYTES {
            return Err(Error::invalid(
                "proposal",
                format!("{} bytes", bytes.len()),
                format!("at most {MAX_SUBMISSION_BYTES} bytes"),
            ));
        }
        super::strict_json::check(bytes)?;
        let sub: Submission = serde_json::from_slice(bytes).map_err(|e| Error::Document {
            path: "proposal".into(),
            reason: e.to_string(),
        })?;
        sub.validate()?;
        Ok(sub)
    }

    /// One change an agent sends over MCP (its tool argument, any JSON),
    /// in the envelope of that agent's identity, and parsed as strictly as
    /// a file.
    pub fn single(agent: &str, trust: f64, session: &str, rationale: &str, change: serde_json::Value) -> Result<Self> {
        let doc = serde_json::json!({
            "agent": agent,
            "trust": trust,
            "session": session,
            "rationale": rationale,
            "changes": [change],
        });
        Self::from_json(doc.to_string().as_bytes())
    }

    /// Checks every field against its limits.
    pub fn validate(&self) -> Result<()> {
        check_agent(&self.agent)?;
        if !(0.0..=100.0).contains(&self.trust) {
            return Err(Error::invalid("trust", self.trust.to_string(), "a score from 0 to 100"));
        }
        check_text("session", &self.session, &self.session, 128)?;
        if self.session.contains('\n') {
            return Err(Error::invalid("session", &self.session, "one line"));
        }
        check_text("rationale", "rationale", &self.rationale, MAX_DESCRIPTION)?;
        if self.changes.is_empty() || self.changes.len() > MAX_CHANGES {
            return Err(Error::invalid(
                "changes",
                self.changes.len().to_string(),
                format!("1 to {MAX_CHANGES} changes"),
            ));
        }
        for (i, c) in self.changes.iter().enumerate() {
            c.validate().map_err(|e| Error::Document {
                path: format!("change {} ({})", i + 1, c.op()),
                reason: e.to_string(),
            })?;
        }
        self.check_removals()
    }

    /// A removed edge is neither added by another change of the same
    /// proposal nor added again after it: either would leave the reviewer
    /// guessing which one wins.
    fn check_removals(&self) -> Result<()> {
        for (i, c) in self.changes.iter().enumerate() {
            let Some(removed) = c.removed_edge() else { continue };
            if let Some(j) = self.changes.iter().position(|o| o.edges().contains(&removed)) {
                let (from, relation, to) = &removed;
                let order = if j < i { "an earlier" } else { "a later" };
                return Err(Error::Document {
                    path: format!("change {} (remove_edge)", i + 1),
                    reason: format!(
                        "it removes {from} -> {relation} -> {to}, which {order} change ({}, {}) adds; \
                         drop one of them",
                        j + 1,
                        self.changes[j].op()
                    ),
                });
            }
        }
        Ok(())
    }

    /// The provenance accepted content records.
    pub fn provenance(&self) -> Provenance {
        if self.agent == INFERRED {
            Provenance::Inferred {
                source: if self.session.is_empty() {
                    "inference".into()
                } else {
                    self.session.clone()
                },
            }
        } else {
            Provenance::Agent {
                id: self.agent.clone(),
                session: self.session.clone(),
                trust: self.trust,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published schema and the parser agree: its example parses, every
    /// op it lists is one the parser knows, and the top-level fields match.
    #[test]
    fn the_published_schema_matches_the_parser() {
        let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
        let example = &schema["examples"][0];
        let sub = Submission::from_json(example.to_string().as_bytes()).unwrap();
        let ops: Vec<&str> = sub.changes.iter().map(Change::op).collect();
        assert_eq!(
            ops,
            [
                "add_node",
                "add_edge",
                "update_node",
                "deprecate",
                "supersede",
                "archive",
                "remove_edge"
            ]
        );
        let mut fields: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort_unstable();
        assert_eq!(fields, ["agent", "changes", "rationale", "revises", "session", "trust"]);
        let back = serde_json::to_value(&sub).unwrap();
        assert_eq!(back["changes"].as_array().unwrap().len(), 7);
        for variant in schema["$defs"]["change"]["oneOf"].as_array().unwrap() {
            assert_eq!(variant["additionalProperties"], false, "{variant}");
        }
    }
}
