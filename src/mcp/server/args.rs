//! The tools' arguments as MCP clients send them (and their JSON schemas).
//! Unknown fields are refused: an agent cannot pass what the server fixes.

use std::collections::BTreeMap;

use rmcp::schemars;
use serde::Deserialize;
use serde_json::Value;

/// Declares an argument struct with the query filters as its own fields
/// (serde's `flatten` does not mix with `deny_unknown_fields`), and
/// `filters()` to gather them.
macro_rules! with_filters {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        pub struct $name {
            $($body)*
            /// Follow a single hop's relation up to this many times (1-10), as `--depth` in the query.
            #[serde(default)]
            #[schemars(range(min = 1, max = 10))]
            pub depth: Option<u32>,
            /// Report only nodes of this type, as `--type`.
            #[serde(default, rename = "type")]
            pub node_type: Option<String>,
            /// Only content at or below this tier, as `--tier` (never above what this agent may read).
            #[serde(default)]
            pub tier: Option<TierArg>,
            /// Which lifecycle statuses, as `--status`.
            #[serde(default)]
            pub status: Option<StatusArg>,
            /// Only what changed since this time (RFC 3339 or a date), as `--since`.
            #[serde(default)]
            pub since: Option<String>,
            /// Only edges at least this confident (0-1), as `--confidence`.
            #[serde(default)]
            pub confidence: Option<f64>,
        }

        impl $name {
            pub fn filters(&self) -> QueryFilters {
                QueryFilters {
                    depth: self.depth,
                    node_type: self.node_type.clone(),
                    tier: self.tier.map(|t| t.as_str().to_owned()),
                    status: self.status.map(|s| s.as_str().to_owned()),
                    since: self.since.clone(),
                    confidence: self.confidence,
                }
            }
        }
    };
}

/// Declares a proposal tool's arguments with the fields every one shares:
/// the rationale, and where the change goes (an exploration, or a
/// revision of another proposal); `route()` gathers the latter.
macro_rules! with_route {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        pub struct $name {
            $($body)*
            /// Why the graph should change.
            #[serde(default)]
            pub rationale: Option<String>,
            /// Add the change to this open exploration (begin_exploration) instead of submitting it now.
            #[serde(default)]
            pub exploration: Option<String>,
            /// Submit it as the revision of this proposal (one a reviewer asked changes of; review_list).
            #[serde(default)]
            pub revises: Option<String>,
        }

        impl $name {
            pub fn route(&self) -> Route {
                Route {
                    exploration: self.exploration.clone(),
                    revises: self.revises.clone(),
                }
            }
        }
    };
}

/// Where a proposed change goes: an exploration, or a proposal (revising
/// another, perhaps).
pub struct Route {
    pub exploration: Option<String>,
    pub revises: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Markdown,
    Json,
}

with_filters! {
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
}

/// The query language's flags given as arguments (the spec's `depth` and
/// filters); each is the same as writing it in the query, and giving one
/// both ways is an error.
#[derive(Debug, Default)]
pub struct QueryFilters {
    /// Follow a single hop's relation up to this many times (1-10), as `--depth`.
    pub depth: Option<u32>,
    /// Report only nodes of this type, as `--type`.
    pub node_type: Option<String>,
    /// Only content at or below this tier, as `--tier` (never above the agent's).
    pub tier: Option<String>,
    /// proposed, active, deprecated, archived or any, as `--status`.
    pub status: Option<String>,
    /// Only what changed since this time (RFC 3339 or a date), as `--since`.
    pub since: Option<String>,
    /// Only edges at least this confident (0-1), as `--confidence`.
    pub confidence: Option<f64>,
}

impl QueryFilters {
    /// `query` with the filters appended as flags; the query parser checks
    /// each value (and refuses a flag given twice).
    pub fn apply(&self, query: &str) -> Result<String, String> {
        let mut out = query.to_owned();
        let words = [
            ("--type", self.node_type.clone()),
            ("--tier", self.tier.clone()),
            ("--status", self.status.clone()),
            ("--since", self.since.clone()),
        ];
        for (flag, value) in words {
            let Some(v) = value else { continue };
            if v.is_empty() || v.chars().any(char::is_whitespace) {
                return Err(format!("{} must be one word (it is {v:?})", &flag[2..]));
            }
            out.push_str(&format!(" {flag} {v}"));
        }
        if let Some(d) = self.depth {
            if !(1..=10).contains(&d) {
                return Err(format!("depth must be from 1 to 10 (it is {d})"));
            }
            out.push_str(&format!(" --depth {d}"));
        }
        if let Some(c) = self.confidence {
            if !(0.0..=1.0).contains(&c) {
                return Err(format!("confidence must be from 0 to 1 (it is {c})"));
            }
            out.push_str(&format!(" --confidence {c}"));
        }
        Ok(out)
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

with_route! {
    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ProposeNodeArgs {
        /// Lowercase name: a-z, 0-9, '.', '_', '-'.
        pub name: String,
        /// Node type: service, module, concept, convention, glossary, decision, ...
        pub node_type: String,
        pub description: String,
        /// Default agent-readable; never above what this agent may read.
        #[serde(default)]
        pub tier: Option<TierArg>,
        #[serde(default)]
        pub properties: Option<BTreeMap<String, String>>,
        /// Edges to create with the node: [from, relation, to], one end being the new node.
        #[serde(default)]
        pub suggested_edges: Option<Vec<[String; 3]>>,
    }
}

with_route! {
    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ProposeEdgeArgs {
        pub from: String,
        /// depends-on, communicates-with, owned-by, uses, contains, supersedes, related-to, ...
        pub relation: String,
        pub to: String,
    }
}

with_route! {
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
    }
}

with_route! {
    #[derive(Debug, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ProposeUpdateArgs {
        /// The node to change, by name (or give `id`).
        #[serde(default)]
        pub name: Option<String>,
        /// The node to change, by id (as `graphex_inspect` in JSON shows it).
        #[serde(default)]
        pub id: Option<String>,
        /// Fields to set: description, body, type, tier, properties (map; "" removes a key), confidence.
        pub set: serde_json::Map<String, Value>,
    }
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

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    pub from: String,
    pub to: String,
    /// Ignore edge direction (default: follow edges from `from` towards `to`).
    #[serde(default)]
    pub undirected: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words or a fuzzy name, e.g. `ordr srv` or `retry budget`.
    pub text: String,
    /// Most results (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectArgs {
    /// The node's name.
    pub name: String,
    /// Token budget (default 4000).
    #[serde(default)]
    pub budget: Option<usize>,
    /// `markdown` (default) or `json`.
    #[serde(default)]
    pub format: Option<Format>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineArgs {
    /// How many entries (default 20, at most 500).
    #[serde(default)]
    pub count: Option<usize>,
    /// Only entries at or after this time (RFC 3339 or a date).
    #[serde(default)]
    pub since: Option<String>,
    /// Only entries by this actor (a person or an agent id).
    #[serde(default)]
    pub actor: Option<String>,
    /// Only entries that change this node.
    #[serde(default)]
    pub node: Option<String>,
}

with_filters! {
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CostEstimateArgs {
    /// A Graphex query (or give `node`).
    #[serde(default)]
    pub query: Option<String>,
    /// A node, projected alone as `graphex_inspect` does (or give `query`).
    #[serde(default)]
    pub node: Option<String>,
    /// Token budget (default 4000).
    #[serde(default)]
    pub budget: Option<usize>,
}
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CostReportArgs {
    /// Input tokens the model consumed for the projection (cached ones included).
    pub input_tokens: u64,
    /// Output tokens the model produced.
    pub output_tokens: u64,
    /// Of the input tokens, how many came from a prompt cache.
    #[serde(default)]
    pub cached_tokens: u64,
    /// The projection's hash (at least 8 hex digits, as JSON results show it);
    /// default: this agent's newest projection.
    #[serde(default)]
    pub projection: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyCheckArgs {
    /// Draft changes as `graphex propose` files hold them, e.g.
    /// `[{"op": "add_node", "name": "x", "type": "module", "description": "..."}]`.
    #[serde(default)]
    pub changes: Option<Vec<Value>>,
    /// Why (checked for credentials like a proposal's rationale).
    #[serde(default)]
    pub rationale: Option<String>,
    /// File paths or module names: the conventions that apply to each.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrustStatusArgs {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BeginExplorationArgs {
    /// A short name for the exploration (a branch name).
    pub name: String,
    /// What the exploration is about: the proposal's rationale when it is submitted.
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExplorationResult {
    /// Submit every change made in it as one proposal.
    Accept,
    /// Discard it: nothing is submitted.
    Abandon,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndExplorationArgs {
    /// The id begin_exploration returned.
    pub exploration: String,
    pub result: ExplorationResult,
    /// Added to the proposal's rationale on accept.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeChangesetArgs {
    /// What the changeset does.
    pub message: String,
    /// Why: fix, feature, refactor, documentation, … (one line).
    pub intent: String,
    /// The exploration to submit; the only open one when not given.
    #[serde(default)]
    pub exploration: Option<String>,
    /// Submit it as the revision of this proposal.
    #[serde(default)]
    pub revises: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewListArgs {
    /// Only proposals in this state.
    #[serde(default)]
    pub state: Option<ReviewState>,
}

/// Declares an argument enum: its kebab-case words are its JSON schema's
/// `enum`, and anything else is refused with the words allowed.
macro_rules! word_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
        pub enum $name {
            $(#[serde(rename = $word)] $variant),+
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }
    };
}

word_enum!(
    /// A tier an agent may be given (the most secret tier never is).
    TierArg {
        Public => "public",
        AgentReadable => "agent-readable",
        AgentRestricted => "agent-restricted",
    }
);

word_enum!(
    /// A lifecycle status, or `any`.
    StatusArg {
        Proposed => "proposed",
        Active => "active",
        Deprecated => "deprecated",
        Archived => "archived",
        Any => "any",
    }
);

word_enum!(
    /// Where one of the agent's proposals stands.
    ReviewState {
        Pending => "pending",
        Accepted => "accepted",
        Rejected => "rejected",
        Edited => "edited",
        ChangesRequested => "changes-requested",
        Revised => "revised",
        Quarantined => "quarantined",
    }
);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewCommentArgs {
    /// The proposal commented on (at least 4 leading hex digits).
    pub proposal: String,
    /// The comment: the reviewers read it, as agent text.
    pub comment: String,
    /// The change it is on (1-based, as the reviewer's comment names it); the whole proposal when not given.
    #[serde(default)]
    pub change: Option<usize>,
}
