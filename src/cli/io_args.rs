//! The arguments of `export` and `import` (kept apart from `args`, which is
//! long enough).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// Output formats of `export`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    /// Every field of every node and edge; `import --format json` reads it back.
    Json,
    /// The same records, a header line then one node or edge a line.
    Jsonl,
    /// GraphML (XML): node fields and properties as data keys.
    Graphml,
    /// Graphviz DOT: names, types, descriptions (cut), relations.
    Dot,
    /// A Mermaid flowchart: names, types, descriptions (cut), relations.
    Mermaid,
}

/// Input formats of `import`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ImportFormatArg {
    /// NetworkX node_link_data: {"nodes":[{"id":..}],"links":[{"source","target",..}]}.
    NodeLink,
    /// kgraph's graph.json (node-link with type and edge_type) or its extractor's
    /// {"nodes":[{"name","type","description"}],"edges":[{"source","target","edge_type"}]}.
    Kgraph,
    /// Ash's JSONL collections: a file (people.jsonl, memories.jsonl, edges.jsonl, ..) or the
    /// directory holding them.
    AshJsonl,
    /// Our own `export --format json` or `jsonl`.
    Json,
}

/// The arguments of `export` (its help text is on the command in `args`).
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The most secret tier to include (public, agent-readable, agent-restricted, human-only).
    #[arg(long)]
    pub tier: Option<String>,
    /// Only the subgraph around this node (either way).
    #[arg(long)]
    pub node: Option<String>,
    /// With --node: how many hops (1 to 10).
    #[arg(long, default_value_t = 2, requires = "node")]
    pub depth: u32,
    /// Also each node's earlier versions (json and jsonl).
    #[arg(long)]
    pub versions: bool,
    /// Write to this new file (0600; refused if it exists) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The arguments of `import` (its help text is on the command in `args`).
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The file to read (for ash-jsonl, a .jsonl file or the directory of them, each really inside it).
    pub file: PathBuf,
    /// The input format.
    #[arg(long, value_enum)]
    pub format: ImportFormatArg,
    /// Tier of imported nodes (foreign formats; default agent-restricted), or the least tier
    /// (json).
    #[arg(long)]
    pub tier: Option<String>,
    /// Put the import in the review queue as one proposal instead of writing the graph (no master
    /// key needed: the agent identity, GRAPHEX_AGENT_IDENTITY, will do).
    #[arg(long, conflicts_with = "dry_run")]
    pub as_proposal: bool,
    /// Print what would be added, changed, left and refused; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// ash-jsonl: the least tier for a `sensitivity` label, in place of the built-in rule
    /// (PERSONAL=agent-restricted, SENSITIVE=human-only, SECRET=human-only); repeatable.
    #[arg(long, value_name = "LABEL=TIER")]
    pub sensitivity: Vec<String>,
}

/// `graphex federation ...`
#[derive(Debug, clap::Subcommand)]
pub enum FederationCommand {
    /// Write the signed bundle of a published subgraph (master level).
    ///
    /// The subgraph is one of `publish = [...]` in the approved [graphex.federation] settings:
    /// the nodes whose names match its patterns, with their tiers, never a human-only node nor
    /// one pulled from elsewhere, and the edges among them only. The bundle carries a sequence
    /// number (one more than the last publish) and tombstones for names published before and no
    /// longer, and is signed with this project's publisher key (`graphex federation key`).
    /// With consumers' recipients in the entry's `to`, the bundle is sealed to them (age) and may
    /// carry agent-readable and agent-restricted nodes; without, it is plain text and carries
    /// public nodes and edges only (the others are listed as not published, and its tombstones
    /// name no node that only ever left sealed). Written 0600, by
    /// default to .gpp/graphex/federation/out/SUBGRAPH.bundle (kept out of git by .gpp/.gitignore).
    Publish {
        /// The published subgraph; optional when only one is configured.
        subgraph: Option<String>,
        /// Print exactly which nodes (names, tiers) and edges (relations) would leave; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Write the bundle here instead (replaced if it exists).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also commit the bundle on refs/graphex/federation/SUBGRAPH (its own history, never a
        /// branch) and push that ref to REMOTE (`--push=REMOTE`; `--push` alone: origin), for consumers whose source names
        /// `git = ...`. Git does the transport and the authentication; a remote that moved
        /// meanwhile refuses the push (nothing is forced).
        #[arg(
            long,
            value_name = "REMOTE",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "origin"
        )]
        push: Option<String>,
    },
    /// Pull a source's bundle into this store, read-only (master level).
    ///
    /// The source is one of `sources = [...]` in the approved settings (project/subgraph, or just
    /// the subgraph when unambiguous); without one, every source is pulled. The bundle must be
    /// signed by the source's pinned key, unaltered, and not older than the last one pulled, or
    /// nothing is written. Nodes arrive tagged federated-from=PROJECT/SUBGRAPH; updates become new
    /// versions, a tier is never lowered, tombstoned or vanished nodes are archived, removed
    /// edges unlinked. A local node with a bundle node's name is kept and reported. Each source
    /// is its own commit, reported as it completes: when one fails, the ones before it stay
    /// pulled and the error names them (with --json, their reports are printed as an array
    /// before the error). A source with `git = "URL or remote"` is fetched with git first (its
    /// ref, by default refs/graphex/federation/SUBGRAPH; the commit pulled is then recorded here as
    /// refs/graphex/sources/PROJECT/SUBGRAPH); a ref that moved back behind it is refused as a replay.
    Pull {
        /// The source: project/subgraph, or the subgraph alone when only one source has it.
        source: Option<String>,
        /// Show what the pull would change; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Print this project's publisher public key (master level): consumers pin it as `key`; and
    /// this project's age recipient, which publishers list in `to` to seal bundles to it.
    Key,
}
