//! The tools' arguments as MCP clients send them (and their JSON schemas).
//! Unknown fields are refused: an agent cannot pass what the server fixes.

use std::collections::BTreeMap;

use rmcp::schemars;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Json,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// A Graphex query, e.g. `orders-service -> depends-on -> * --depth 2`.
    pub query: String,
    /// Token budget of the projection (default 4000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// `markdown` (default) or `json`.
    #[serde(default)]
    pub format: Option<Format>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeNodeArgs {
    /// Lowercase name: a-z, 0-9, '.', '_', '-'.
    pub name: String,
    /// Node type: service, module, concept, convention, glossary, decision, ...
    pub node_type: String,
    pub description: String,
    /// public or agent-readable (default agent-readable; never above what this agent may read).
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub properties: Option<BTreeMap<String, String>>,
    /// Edges to create with the node: [from, relation, to], one end being the new node.
    #[serde(default)]
    pub suggested_edges: Option<Vec<[String; 3]>>,
    /// Why the graph should change.
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeEdgeArgs {
    pub from: String,
    /// depends-on, communicates-with, owned-by, uses, contains, supersedes, related-to, ...
    pub relation: String,
    pub to: String,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeRemoveEdgeArgs {
    pub from: String,
    /// The relation of the edge to remove, e.g. depends-on.
    pub relation: String,
    pub to: String,
    /// Why the edge should go (shown to the reviewer).
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeUpdateArgs {
    /// The node to change.
    pub name: String,
    /// Fields to set: description, body, type, tier, properties (map; "" removes a key), confidence.
    pub set: serde_json::Map<String, Value>,
    #[serde(default)]
    pub rationale: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlossaryArgs {
    /// The term, or part of it.
    pub term: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConventionsArgs {
    /// A file path or module name, e.g. `src/orders/batch.rs` or `orders-service`.
    pub path: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposalStatusArgs {
    /// The id `graphex_propose_*` returned (at least 4 leading hex digits).
    pub id: String,
}
