//! Import and export: the graph as our own lossless JSON (and JSONL, GraphML,
//! DOT, Mermaid) and foreign graphs (NetworkX node-link, kgraph, Ash JSONL)
//! mapped onto our model. Parsing is pure: a file's bytes become [`Mapped`]
//! items or refusals that name the item and the problem; the store decides
//! what is added, changed or unchanged (`Store::plan_import`).
//!
//! Mapping rules for foreign formats (documented in docs/cli.md):
//! - names: lowercased; every run of characters outside `a-z 0-9 . _ -`
//!   becomes one `-`; leading and trailing `-` are trimmed. An empty result
//!   or one over 128 characters is refused; two items with the same
//!   normalised name are refused. A name that changed keeps its original
//!   text in the property `import.name`.
//! - types: CamelCase words split with `-`, lowercased, `_` and spaces to
//!   `-` (`APIObject` → `api-object`); a missing type is `concept`.
//! - relations: lowercased, `_` and spaces to `-` (`STATED_BY` →
//!   `stated-by`); a missing one is `related-to`.
//! - text: `description`, else `content`, else `label`/`title`, else the
//!   original id. A description over 4 KiB keeps its first line (cut to 200
//!   characters) and the whole text becomes the body.
//! - other fields become properties: strings as they are, numbers and
//!   booleans as text, arrays and objects as compact JSON; keys outside
//!   `A-Z a-z 0-9 - _ .` have other characters replaced by `_`; `null` is
//!   dropped; a value over 4 KiB is refused. Edge fields other than the
//!   relation, weight and confidence are dropped (edges have no properties).

mod apply;
mod ash;
pub mod ash_meaning;
mod export;
mod foreign;
mod input;
mod lines;
mod native;
mod native_read;
mod node_link;
mod render;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

pub use apply::{DEFAULT_IMPORT_TIER, ImportOptions, ImportPlan, ImportReport};
pub(crate) use export::edges_among;
pub use export::{ExportOptions, export};
pub use foreign::{normalise_name, normalise_relation, normalise_type};
pub use input::{InputFile, input_files, parse_files};
pub use native::{EXPORT_FORMAT, EXPORT_VERSION, ExportDoc, ExportEdge, ExportNode, NodeRecord};
pub use render::{dot, graphml, jsonl, mermaid, write_jsonl};

use crate::error::{Error, Result};
use crate::model::{Name, NodeType, Provenance, Relation, Status, Tier, Timestamp};

/// The largest input file read, in bytes.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;
/// The most nodes one import may carry.
pub const MAX_IMPORT_NODES: usize = 250_000;
/// The most edges one import may carry.
pub const MAX_IMPORT_EDGES: usize = 1_000_000;
/// The longest line of a JSONL file, in bytes.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// How many refusals a report names (the rest are counted).
pub const MAX_REFUSALS_NAMED: usize = 100;

/// The formats `import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportFormat {
    /// NetworkX `node_link_data`: `{"nodes":[{"id":..}],"links":[{"source","target"}]}`.
    NodeLink,
    /// kgraph's `graph.json` (node-link with `type`, `edge_type`) or its
    /// extractor's `{"nodes":[{"name"}],"edges":[{"source","target","edge_type"}]}`.
    Kgraph,
    /// Ash's JSONL collections (`memories.jsonl`, `people.jsonl`, `edges.jsonl`, ...).
    AshJsonl,
    /// Our own `export --format json` (or `jsonl`).
    Json,
}

impl ImportFormat {
    /// The name as given on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportFormat::NodeLink => "node-link",
            ImportFormat::Kgraph => "kgraph",
            ImportFormat::AshJsonl => "ash-jsonl",
            ImportFormat::Json => "json",
        }
    }
}

impl fmt::Display for ImportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One input file (or, for Ash, one collection file) and its bytes.
pub struct Source<'a> {
    /// Shown in every message about it.
    pub file: &'a str,
    pub bytes: &'a [u8],
}

/// One input being read: its name in messages, and its bytes as a stream
/// (parsers never need the whole of it).
pub(crate) struct Input<'a> {
    pub file: &'a str,
    pub read: &'a mut dyn std::io::BufRead,
}

/// A node as the input describes it, mapped to our fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportNode {
    /// Where it is in the input: `node 3`, `line 12`.
    pub item: String,
    pub name: Name,
    pub node_type: NodeType,
    pub description: String,
    pub body: Option<String>,
    pub properties: BTreeMap<String, String>,
    /// From our own export; a foreign node takes the import's tier, or the
    /// least its format asks for when that is more (Ash's `sensitivity`).
    pub tier: Option<Tier>,
    pub status: Option<Status>,
    pub status_reason: Option<String>,
    pub confidence: Option<f64>,
    /// What the file says; never written: an import sets its own
    /// (`ImportOptions::provenance`).
    pub provenance: Option<Provenance>,
    pub created: Option<Timestamp>,
    pub updated: Option<Timestamp>,
}

/// An edge as the input describes it, by node name.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportEdge {
    pub item: String,
    pub from: Name,
    pub relation: Relation,
    pub to: Name,
    pub tier: Option<Tier>,
    pub confidence: Option<f64>,
    pub weight: Option<f64>,
    pub bidirectional: bool,
    /// What the file says; never written, as for nodes.
    pub provenance: Option<Provenance>,
    pub created: Option<Timestamp>,
}

/// An item that cannot be imported, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub file: String,
    pub item: String,
    pub problem: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.item, self.problem)
    }
}

/// A whole input mapped to our model.
#[derive(Clone, Debug, Default)]
pub struct Mapped {
    pub nodes: Vec<ImportNode>,
    pub edges: Vec<ImportEdge>,
    pub refused: Vec<Refusal>,
    /// Our own export: absent fields mean absent (no body, no properties)
    /// rather than "keep what the store has".
    pub lossless: bool,
}

impl Mapped {
    fn refuse(&mut self, file: &str, item: impl Into<String>, problem: impl Into<String>) {
        self.refused.push(Refusal {
            file: file.to_owned(),
            item: item.into(),
            problem: problem.into(),
        });
    }

    /// Refuses every node after the cap and every edge after its cap, and
    /// a second item with a name already used (named, and dropped, so that
    /// no summary counts it as added too).
    fn check_caps_and_names(&mut self, file: &str) {
        if self.nodes.len() > MAX_IMPORT_NODES {
            let n = self.nodes.len();
            self.nodes.truncate(MAX_IMPORT_NODES);
            self.refuse(
                file,
                "nodes",
                format!("{n} nodes; at most {MAX_IMPORT_NODES} per import"),
            );
        }
        if self.edges.len() > MAX_IMPORT_EDGES {
            let n = self.edges.len();
            self.edges.truncate(MAX_IMPORT_EDGES);
            self.refuse(
                file,
                "edges",
                format!("{n} edges; at most {MAX_IMPORT_EDGES} per import"),
            );
        }
        let mut first: std::collections::HashMap<Name, String> = std::collections::HashMap::new();
        let mut dup = Vec::new();
        self.nodes.retain(|n| {
            if let Some(prev) = first.get(&n.name) {
                dup.push((n.item.clone(), format!("the name {} is also {prev}'s", n.name)));
                false
            } else {
                first.insert(n.name.clone(), n.item.clone());
                true
            }
        });
        for (item, problem) in dup {
            self.refuse(file, item, problem);
        }
    }
}

/// Parses `sources` in `format`. Nothing here touches a store.
pub fn parse(format: ImportFormat, sources: &[Source<'_>]) -> Result<Mapped> {
    for s in sources {
        if s.bytes.len() as u64 > MAX_INPUT_BYTES {
            return Err(Error::Document {
                path: s.file.to_owned(),
                reason: format!("{} bytes; at most {MAX_INPUT_BYTES} are read", s.bytes.len()),
            });
        }
    }
    let mut bytes: Vec<&[u8]> = sources.iter().map(|s| s.bytes).collect();
    let mut inputs: Vec<Input<'_>> = sources
        .iter()
        .zip(bytes.iter_mut())
        .map(|(s, read)| Input { file: s.file, read })
        .collect();
    parse_inputs(format, &mut inputs)
}

/// Parses `inputs` in `format`, each read once from start to end.
pub(crate) fn parse_inputs(format: ImportFormat, inputs: &mut [Input<'_>]) -> Result<Mapped> {
    let mut mapped = Mapped::default();
    match format {
        ImportFormat::NodeLink | ImportFormat::Kgraph => {
            for input in inputs.iter_mut() {
                node_link::read(input, &mut mapped)?;
            }
        }
        ImportFormat::AshJsonl => ash::read(inputs, &mut mapped)?,
        ImportFormat::Json => {
            mapped.lossless = true;
            for input in inputs.iter_mut() {
                native_read::read(input, &mut mapped)?;
            }
        }
    }
    let file = inputs.first().map_or("input", |s| s.file);
    mapped.check_caps_and_names(file);
    Ok(mapped)
}
