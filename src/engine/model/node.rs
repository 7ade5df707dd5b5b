//! Nodes: one piece of project knowledge.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Name, NodeId, NodeType, Provenance, Status, Tier, Timestamp};
use crate::error::{Error, Result};

/// Longest description, in bytes.
pub const MAX_DESCRIPTION: usize = 4 * 1024;
/// Longest body, in bytes.
pub const MAX_BODY: usize = 256 * 1024;
/// Most properties on one node.
pub const MAX_PROPERTIES: usize = 64;
/// Longest property key, in bytes.
pub const MAX_PROPERTY_KEY: usize = 64;
/// Longest property value, in bytes.
pub const MAX_PROPERTY_VALUE: usize = 4 * 1024;

/// A node with every field. This is what a blob holds, one per version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: NodeId,
    pub name: Name,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    pub description: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub properties: super::Properties,
    pub tier: Tier,
    pub status: Status,
    pub confidence: f64,
    #[serde(default)]
    pub provenance: Provenance,
    /// Why the node was last deprecated, archived or restored.
    #[serde(default)]
    pub status_reason: Option<String>,
    pub created: Timestamp,
    pub updated: Timestamp,
    pub version: u64,
}

impl Node {
    /// Checks every free-text field against the limits.
    pub fn validate(&self) -> Result<()> {
        validate_description(&self.description)?;
        if let Some(body) = &self.body
            && body.len() > MAX_BODY
        {
            {
                return Err(Error::invalid(
                    "body",
                    format!("{} bytes", body.len()),
                    format!("at most {MAX_BODY} bytes"),
                ));
            }
        }
        validate_confidence(self.confidence)?;
        validate_properties(self.properties.iter())
    }
}

/// Checks a description's length.
pub fn validate_description(d: &str) -> Result<()> {
    if d.len() > MAX_DESCRIPTION {
        return Err(Error::invalid(
            "description",
            format!("{} bytes", d.len()),
            format!("at most {MAX_DESCRIPTION} bytes; put long text in the body"),
        ));
    }
    Ok(())
}

/// Checks a confidence value: a number from 0 to 1.
pub fn validate_confidence(c: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&c) {
        return Err(Error::invalid("confidence", c.to_string(), "a number from 0 to 1"));
    }
    Ok(())
}

/// An edge's weight (Cortex): how strongly it binds, from 0 to 1.
pub fn validate_weight(w: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&w) {
        return Err(Error::invalid("weight", w.to_string(), "a number from 0 to 1"));
    }
    Ok(())
}

/// Checks property keys and values.
pub fn validate_properties<'a>(props: impl ExactSizeIterator<Item = (&'a String, &'a String)>) -> Result<()> {
    if props.len() > MAX_PROPERTIES {
        return Err(Error::invalid(
            "properties",
            props.len().to_string(),
            format!("at most {MAX_PROPERTIES}"),
        ));
    }
    for (k, v) in props {
        let ok_key = !k.is_empty()
            && k.len() <= MAX_PROPERTY_KEY
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok_key {
            return Err(Error::invalid(
                "property key",
                k.as_str(),
                format!("1 to {MAX_PROPERTY_KEY} characters of a-z, A-Z, 0-9, '-', '_', '.'"),
            ));
        }
        if v.len() > MAX_PROPERTY_VALUE {
            return Err(Error::invalid(
                "property value",
                k.as_str(),
                format!("at most {MAX_PROPERTY_VALUE} bytes"),
            ));
        }
    }
    Ok(())
}

/// Parses `KEY=VALUE` as given on the command line.
pub fn parse_property(raw: &str) -> Result<(String, String)> {
    let (k, v) = raw
        .split_once('=')
        .ok_or_else(|| Error::invalid("property", raw, "expected KEY=VALUE"))?;
    let mut one = BTreeMap::new();
    one.insert(k.to_owned(), v.to_owned());
    validate_properties(one.iter())?;
    Ok((k.to_owned(), v.to_owned()))
}

/// The fields a caller supplies to create a node; the store fills in the rest.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewNode {
    pub name: Name,
    pub node_type: NodeType,
    pub description: String,
    pub body: Option<String>,
    pub properties: super::Properties,
    pub tier: Tier,
    pub status: Status,
    pub confidence: f64,
    pub provenance: Provenance,
    /// Creation time; `None` means now.
    pub created: Option<Timestamp>,
}

impl NewNode {
    /// A human-written Active node with default confidence 1.0.
    pub fn new(name: Name, node_type: NodeType, description: impl Into<String>, tier: Tier) -> Self {
        Self {
            name,
            node_type,
            description: description.into(),
            body: None,
            properties: super::Properties::new(),
            tier,
            status: Status::Active,
            confidence: 1.0,
            provenance: Provenance::Human,
            created: None,
        }
    }
}

/// A field-level change to a node. `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NodePatch {
    pub description: Option<String>,
    pub body: Option<Option<String>>,
    pub node_type: Option<NodeType>,
    pub tier: Option<Tier>,
    /// Properties to set; an empty value removes the key.
    pub properties: BTreeMap<String, String>,
    pub confidence: Option<f64>,
}

impl NodePatch {
    /// True when the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Applies the patch to a copy of `node` (version and times untouched).
    pub fn apply(&self, node: &Node) -> Node {
        let mut next = node.clone();
        if let Some(d) = &self.description {
            next.description.clone_from(d);
        }
        if let Some(b) = &self.body {
            next.body.clone_from(b);
        }
        if let Some(t) = &self.node_type {
            next.node_type = t.clone();
        }
        if let Some(t) = self.tier {
            next.tier = t;
        }
        if let Some(c) = self.confidence {
            next.confidence = c;
        }
        for (k, v) in &self.properties {
            if v.is_empty() {
                next.properties.remove(k);
            } else {
                next.properties.insert(k.clone(), v.clone());
            }
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_parsing_and_limits() {
        assert_eq!(
            parse_property("owner=orders-team").unwrap(),
            ("owner".into(), "orders-team".into())
        );
        assert_eq!(parse_property("note=a=b").unwrap().1, "a=b");
        assert!(parse_property("novalue").unwrap_err().to_string().contains("KEY=VALUE"));
        assert!(parse_property("bad key=1").is_err());
        assert!(validate_confidence(1.5).is_err() && validate_confidence(f64::NAN).is_err());
        assert!(validate_description(&"x".repeat(MAX_DESCRIPTION + 1)).is_err());
    }
}

/// The part of a node the index keeps (sealed) for listing, traversal and
/// look-ups: everything but the body, which stays in the blob.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSummary {
    pub id: NodeId,
    pub name: Name,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    pub description: String,
    pub properties: super::Properties,
    pub tier: Tier,
    pub status: Status,
    pub confidence: f64,
    pub created: Timestamp,
    pub updated: Timestamp,
    pub version: u64,
}

impl From<&Node> for NodeSummary {
    fn from(n: &Node) -> Self {
        Self {
            id: n.id,
            name: n.name.clone(),
            node_type: n.node_type.clone(),
            description: n.description.clone(),
            properties: n.properties.clone(),
            tier: n.tier,
            status: n.status,
            confidence: n.confidence,
            created: n.created,
            updated: n.updated,
            version: n.version,
        }
    }
}

/// The property that marks a node pulled from another project, valued
/// `project/subgraph`. Only a federation pull sets it; the store refuses it
/// anywhere else.
pub const FEDERATED_FROM: &str = "federated-from";

/// The source a node was pulled from (`project/subgraph`), if it was.
pub fn federated_origin(node: &NodeSummary) -> Option<&str> {
    node.properties.get(FEDERATED_FROM).map(String::as_str)
}
