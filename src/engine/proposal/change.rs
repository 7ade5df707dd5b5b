//! The changes a proposal can carry, in the JSON shape agents submit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{self, Name, NodePatch, NodeType, Relation, Tier};

/// An edge suggested with a new node: `[from, relation, to]`.
pub type Triple = (Name, Relation, Name);

/// One change. Names refer to nodes already in the graph or added by an
/// earlier change of the same proposal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Change {
    /// A new node, with edges to create alongside it.
    AddNode {
        name: Name,
        #[serde(rename = "type")]
        node_type: NodeType,
        description: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        #[serde(default = "default_tier")]
        tier: Tier,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        properties: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confidence: Option<f64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        suggested_edges: Vec<Triple>,
    },
    /// A new edge between existing (or just added) nodes.
    AddEdge {
        from: Name,
        relation: Relation,
        to: Name,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        confidence: Option<f64>,
    },
    /// Removes an existing edge (kept sealed, so undoing the decision puts
    /// it back as it was).
    RemoveEdge {
        from: Name,
        relation: Relation,
        to: Name,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Field-level changes to a node.
    UpdateNode { name: Name, set: FieldSet },
    /// Marks a node deprecated.
    Deprecate {
        name: Name,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Deprecates `old` in favour of `new`, linking `new` supersedes `old`.
    Supersede { old: Name, new: Name },
    /// Archives a node.
    Archive {
        name: Name,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Brings a deprecated or archived node back to active.
    Restore {
        name: Name,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

fn default_tier() -> Tier {
    Tier::AgentReadable
}

/// The fields an update may set; absent fields stay as they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub node_type: Option<NodeType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Properties to set; an empty value removes the key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

impl FieldSet {
    /// The store's patch for these fields.
    pub fn patch(&self) -> NodePatch {
        NodePatch {
            description: self.description.clone(),
            body: self.body.clone().map(Some),
            node_type: self.node_type.clone(),
            tier: self.tier,
            properties: self.properties.clone(),
            confidence: self.confidence,
        }
    }
}

impl Change {
    /// The operation's name as submitted (`add_node`, ...).
    pub fn op(&self) -> &'static str {
        match self {
            Change::AddNode { .. } => "add_node",
            Change::AddEdge { .. } => "add_edge",
            Change::RemoveEdge { .. } => "remove_edge",
            Change::UpdateNode { .. } => "update_node",
            Change::Deprecate { .. } => "deprecate",
            Change::Supersede { .. } => "supersede",
            Change::Archive { .. } => "archive",
            Change::Restore { .. } => "restore",
        }
    }

    /// Existing nodes this change writes a new version of.
    pub fn modifies(&self) -> Vec<&Name> {
        match self {
            Change::UpdateNode { name, .. }
            | Change::Deprecate { name, .. }
            | Change::Archive { name, .. }
            | Change::Restore { name, .. } => vec![name],
            Change::Supersede { old, .. } => vec![old],
            Change::AddNode { .. } | Change::AddEdge { .. } | Change::RemoveEdge { .. } => Vec::new(),
        }
    }

    /// Every node name the change mentions (added, written or linked).
    pub fn names(&self) -> Vec<&Name> {
        match self {
            Change::AddNode {
                name, suggested_edges, ..
            } => std::iter::once(name)
                .chain(suggested_edges.iter().flat_map(|(f, _, t)| [f, t]))
                .collect(),
            Change::AddEdge { from, to, .. } | Change::RemoveEdge { from, to, .. } => vec![from, to],
            Change::Supersede { old, new } => vec![old, new],
            Change::UpdateNode { name, .. }
            | Change::Deprecate { name, .. }
            | Change::Archive { name, .. }
            | Change::Restore { name, .. } => vec![name],
        }
    }

    /// The edges the change creates, as triples.
    pub fn edges(&self) -> Vec<Triple> {
        match self {
            Change::AddNode { suggested_edges, .. } => suggested_edges.clone(),
            Change::AddEdge { from, relation, to, .. } => vec![(from.clone(), relation.clone(), to.clone())],
            Change::Supersede { old, new } => vec![(new.clone(), supersedes(), old.clone())],
            _ => Vec::new(),
        }
    }

    /// The edge the change removes, as a triple.
    pub fn removed_edge(&self) -> Option<Triple> {
        match self {
            Change::RemoveEdge { from, relation, to, .. } => Some((from.clone(), relation.clone(), to.clone())),
            _ => None,
        }
    }

    /// Free text the change carries (for lints): descriptions, bodies,
    /// property values, reasons.
    pub fn texts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        match self {
            Change::AddNode {
                description,
                body,
                properties,
                ..
            } => {
                out.push(description);
                out.extend(body.as_deref());
                out.extend(properties.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]));
            }
            Change::UpdateNode { set, .. } => {
                out.extend(set.description.as_deref());
                out.extend(set.body.as_deref());
                out.extend(set.properties.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]));
            }
            Change::Deprecate { reason, .. }
            | Change::Archive { reason, .. }
            | Change::Restore { reason, .. }
            | Change::RemoveEdge { reason, .. } => {
                out.extend(reason.as_deref());
            }
            Change::AddEdge { .. } | Change::Supersede { .. } => {}
        }
        out
    }

    /// Checks field contents against the model's limits.
    pub fn validate(&self) -> Result<()> {
        match self {
            Change::AddNode {
                description,
                body,
                properties,
                confidence,
                suggested_edges,
                name,
                ..
            } => {
                model::validate_description(description)?;
                check_content(name.as_str(), Some(description), body.as_deref(), properties)?;
                model::validate_properties(properties.iter())?;
                if let Some(c) = confidence {
                    model::validate_confidence(*c)?;
                }
                if suggested_edges.len() > super::MAX_EDGES_PER_NODE {
                    return Err(Error::invalid(
                        "suggested_edges",
                        name.as_str(),
                        format!("at most {} per node", super::MAX_EDGES_PER_NODE),
                    ));
                }
                if let Some((f, r, t)) = suggested_edges.iter().find(|(f, _, t)| f != name && t != name) {
                    return Err(Error::invalid(
                        "suggested edge",
                        format!("{f} -> {r} -> {t}"),
                        format!("it must start or end at the new node {name}"),
                    ));
                }
            }
            Change::AddEdge { confidence, .. } => {
                if let Some(c) = confidence {
                    model::validate_confidence(*c)?;
                }
            }
            Change::RemoveEdge {
                from,
                relation,
                to,
                reason,
                ..
            } => {
                if let Some(r) = reason {
                    super::check_text(
                        "reason",
                        &format!("{from} -> {relation} -> {to}"),
                        r,
                        model::MAX_DESCRIPTION,
                    )?;
                }
            }
            Change::UpdateNode { name, set } => {
                if set.patch().is_empty() {
                    return Err(Error::invalid("update_node", name.as_str(), "`set` changes nothing"));
                }
                if let Some(d) = &set.description {
                    model::validate_description(d)?;
                }
                check_content(
                    name.as_str(),
                    set.description.as_deref(),
                    set.body.as_deref(),
                    &set.properties,
                )?;
                let props: BTreeMap<_, _> = set
                    .properties
                    .iter()
                    .map(|(k, v)| (k.clone(), if v.is_empty() { "-".to_owned() } else { v.clone() }))
                    .collect();
                model::validate_properties(props.iter())?;
                if let Some(c) = set.confidence {
                    model::validate_confidence(c)?;
                }
            }
            Change::Deprecate { reason, name }
            | Change::Archive { reason, name }
            | Change::Restore { reason, name } => {
                if let Some(r) = reason {
                    super::check_text("reason", name.as_str(), r, model::MAX_DESCRIPTION)?;
                }
            }
            Change::Supersede { old, new } => {
                if old == new {
                    return Err(Error::invalid(
                        "supersede",
                        old.as_str(),
                        "a node cannot supersede itself",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The most secret tier this change asks for (new nodes and tier changes).
    pub fn requested_tier(&self) -> Option<Tier> {
        match self {
            Change::AddNode { tier, .. } => Some(*tier),
            Change::UpdateNode { set, .. } => set.tier,
            _ => None,
        }
    }
}

/// Length limits, and no control characters but newline and tab, in the
/// text a proposal carries: a reviewer's terminal must show what it says.
fn check_content(
    name: &str,
    description: Option<&str>,
    body: Option<&str>,
    properties: &BTreeMap<String, String>,
) -> Result<()> {
    if let Some(d) = description {
        super::check_text("description", name, d, model::MAX_DESCRIPTION)?;
    }
    if let Some(b) = body {
        super::check_text("body", name, b, model::MAX_BODY)?;
    }
    for (k, v) in properties {
        super::check_text("property value", k, v, model::MAX_PROPERTY_VALUE)?;
    }
    Ok(())
}

/// The `supersedes` relation (the vocabulary's, see `Relation::supersedes`).
pub fn supersedes() -> Relation {
    Relation::supersedes()
}
