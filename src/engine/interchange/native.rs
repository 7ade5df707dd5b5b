//! Our own export: every field of every node (and, with `--versions`, its
//! earlier versions) and every edge, by name. `import --format json` reads it
//! back (`native_read`), whole JSON or JSONL (a header line, then one node
//! or edge a line).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ImportEdge, ImportNode};
use crate::error::{Error, Result};
use crate::model::{Name, Node, NodeType, Provenance, Relation, Status, Tier, Timestamp};

/// The `format` field of an export.
pub const EXPORT_FORMAT: &str = "graphex-export";
/// The version of the export format this program writes and reads.
pub const EXPORT_VERSION: u32 = 1;

/// A whole export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportDoc {
    pub format: String,
    pub version: u32,
    /// When it was written (RFC 3339).
    pub exported_at: String,
    /// The most secret tier it may hold.
    pub tier_cap: Tier,
    /// A subgraph's centre and depth; absent for the whole graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    pub nodes: Vec<ExportNode>,
    pub edges: Vec<ExportEdge>,
}

/// One version of a node: every field but its internal id. Times are
/// milliseconds since the Unix epoch (lossless).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRecord {
    pub name: Name,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
    pub tier: Tier,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    pub confidence: f64,
    #[serde(default)]
    pub provenance: Provenance,
    pub created: Timestamp,
    pub updated: Timestamp,
    pub version: u64,
}

impl From<&Node> for NodeRecord {
    fn from(n: &Node) -> Self {
        Self {
            name: n.name.clone(),
            node_type: n.node_type.clone(),
            description: n.description.clone(),
            body: n.body.clone(),
            properties: n.properties.to_map(),
            tier: n.tier,
            status: n.status,
            status_reason: n.status_reason.clone(),
            confidence: n.confidence,
            provenance: n.provenance.clone(),
            created: n.created,
            updated: n.updated,
            version: n.version,
        }
    }
}

/// A node's current version, and with `--versions` the earlier ones
/// (oldest first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportNode {
    #[serde(flatten)]
    pub current: NodeRecord,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<NodeRecord>,
}

/// An edge by the names of its ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportEdge {
    pub from: Name,
    pub relation: Relation,
    pub to: Name,
    /// The tier it is stored under (at least that of both ends).
    pub tier: Tier,
    /// The tier asked for when it was made.
    pub declared_tier: Tier,
    pub confidence: f64,
    pub weight: f64,
    pub bidirectional: bool,
    #[serde(default)]
    pub provenance: Provenance,
    pub created: Timestamp,
}

/// One JSONL line.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum Line {
    Header {
        format: String,
        version: u32,
        exported_at: String,
        tier_cap: Tier,
    },
    Node(Box<ExportNode>),
    Edge(ExportEdge),
}

/// One JSONL line as written: [`Line`] borrowing the export's records.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum LineRef<'a> {
    Header {
        format: &'a str,
        version: u32,
        exported_at: &'a str,
        tier_cap: Tier,
    },
    Node(&'a ExportNode),
    Edge(&'a ExportEdge),
}

fn bad(file: &str, reason: impl Into<String>) -> Error {
    Error::Document {
        path: file.to_owned(),
        reason: reason.into(),
    }
}

pub(super) fn check_header(file: &str, format: &str, version: u32) -> Result<()> {
    if format != EXPORT_FORMAT {
        return Err(bad(file, format!("\"format\" is {format:?}, not {EXPORT_FORMAT:?}")));
    }
    if version != EXPORT_VERSION {
        return Err(bad(
            file,
            format!("export format version {version}; this program reads version {EXPORT_VERSION}"),
        ));
    }
    Ok(())
}

pub(super) fn node(r: &NodeRecord, item: String) -> ImportNode {
    ImportNode {
        item,
        name: r.name.clone(),
        node_type: r.node_type.clone(),
        description: r.description.clone(),
        body: r.body.clone(),
        properties: r.properties.clone(),
        tier: Some(r.tier),
        status: Some(r.status),
        status_reason: r.status_reason.clone(),
        confidence: Some(r.confidence),
        provenance: Some(r.provenance.clone()),
        created: Some(r.created),
        updated: Some(r.updated),
    }
}

pub(super) fn edge(e: &ExportEdge, item: String) -> ImportEdge {
    ImportEdge {
        item,
        from: e.from.clone(),
        relation: e.relation.clone(),
        to: e.to.clone(),
        tier: Some(e.declared_tier),
        confidence: Some(e.confidence),
        weight: Some(e.weight),
        bidirectional: e.bidirectional,
        provenance: Some(e.provenance.clone()),
        created: Some(e.created),
    }
}
