//! The arguments of the read-and-walk commands: `query`, `queries`,
//! `path`, `neighbors` and `subgraph` (kept apart from `args`).

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum QueryFormat {
    Text,
    Json,
    Mermaid,
    Dot,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct QueryArgs {
    /// The query, quoted as one argument.
    #[arg(required_unless_present = "saved", conflicts_with = "saved")]
    pub query: Option<String>,
    /// Run the saved query NAME instead (master level; see `graphex queries`).
    #[arg(long, value_name = "NAME")]
    pub saved: Option<String>,
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value = "text")]
    pub format: QueryFormat,
    /// The query language's flags, also accepted after the quoted pattern
    /// (`graphex query 'a -> uses -> *' --depth 2`): each is added to the query.
    #[command(flatten)]
    pub flags: QueryFlags,
}

/// `--depth --type --tier --since --confidence --status --limit` given as
/// command-line options rather than inside the query text.
#[derive(Debug, Args, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct QueryFlags {
    /// Follow a single hop's relation up to N times (1–10).
    #[arg(long)]
    pub depth: Option<u32>,
    /// The last node of a path has this type.
    #[arg(long = "type", value_name = "TYPE")]
    pub node_type: Option<String>,
    /// Only nodes and edges at or below this tier.
    #[arg(long)]
    pub tier: Option<String>,
    /// The last node or edge changed since this date.
    #[arg(long)]
    pub since: Option<String>,
    /// Only nodes and edges at least this confident (0–1).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// proposed, active, deprecated, archived, visible (default: active and deprecated, the
    /// deprecated flagged) or any.
    #[arg(long)]
    pub status: Option<String>,
    /// At most N paths (default 100).
    #[arg(long)]
    pub limit: Option<usize>,
}

impl QueryFlags {
    /// The flags as query text, to append to the pattern.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut add = |name: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push_str(&format!(" --{name} {v}"));
            }
        };
        add("depth", self.depth.map(|d| d.to_string()));
        add("type", self.node_type.clone());
        add("tier", self.tier.clone());
        add("since", self.since.clone());
        add("confidence", self.confidence.map(|c| c.to_string()));
        add("status", self.status.clone());
        add("limit", self.limit.map(|l| l.to_string()));
        out
    }
}

#[derive(Debug, Subcommand)]
pub enum QueriesCommand {
    /// The saved queries, by name (`--json` for name, text and time).
    List,
    /// Save QUERY under NAME, replacing what NAME held. The query must parse; NAME follows the
    /// rules of node names (a-z, 0-9, '-', '_', '.').
    Save {
        /// The name to save it under.
        name: String,
        /// The query, quoted as one argument.
        query: String,
    },
    /// Delete the saved query NAME.
    Delete {
        /// The saved query's name.
        name: String,
    },
}

/// Filters shared by `path` and `neighbors`.
#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct WalkArgs {
    /// Follow only this relation (repeatable).
    #[arg(long = "relation", short = 'r', value_name = "RELATION")]
    pub relations: Vec<String>,
    /// Never follow this relation (repeatable), e.g. `--exclude-relation supersedes`.
    #[arg(long = "exclude-relation", value_name = "RELATION")]
    pub excluded: Vec<String>,
    /// Walk only through nodes and edges at or below this tier.
    #[arg(long)]
    pub tier: Option<String>,
    /// Walk only through nodes with this status, `visible` (the default: active and deprecated,
    /// the deprecated flagged) or `any`.
    #[arg(long)]
    pub status: Option<String>,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct PathArgs {
    /// Start node.
    pub from: String,
    /// End node.
    pub to: String,
    /// Ignore edge direction.
    #[arg(long)]
    pub undirected: bool,
    /// The strongest path instead of the shortest: each hop costs 2 - weight (edge weights are
    /// from 0 to 1), the cheapest total wins.
    #[arg(long)]
    pub weighted: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct NeighborsArgs {
    /// Centre node.
    pub name: String,
    /// How many hops out.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Which edges to follow: out, in or both.
    #[arg(long, default_value = "both")]
    pub direction: String,
    /// Report only nodes of this type (repeatable; the walk still passes through others).
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    pub types: Vec<String>,
    #[command(flatten)]
    pub walk: WalkArgs,
}

/// Output formats of `project`.
#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct SubgraphArgs {
    /// Centre node.
    pub center: String,
    /// How many hops out.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value = "text")]
    pub format: QueryFormat,
    #[command(flatten)]
    pub walk: WalkArgs,
}
