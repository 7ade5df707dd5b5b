//! The command line, as clap types. Names follow the CLI contract; every read
//! command honours the global `--json`.

use std::path::PathBuf;

pub use super::diff_args::DiffArgs;
pub use super::project_args::ProjectArgs;
use clap::{Args, Parser, Subcommand, ValueEnum};

pub use super::query_args::{
    NeighborsArgs, PathArgs, QueriesCommand, QueryArgs, QueryFlags, QueryFormat, SubgraphArgs, WalkArgs,
};
pub use super::review_args::{AcceptArgs, CommentArgs, RejectArgs, RequestChangesArgs};

/// Graphex: an encrypted, versioned, tiered knowledge graph for your repository.
///
/// Agents never read the graph raw: they get projections filtered by trust
/// tier, and they can only propose changes. Content is sealed on disk; only
/// public content is readable without keys.
///
/// Without a command, opens the console (a terminal UI) on the store: the
/// proposal queue, with `?` listing every key.
#[derive(Debug, Parser)]
#[command(name = "graphex", version, propagate_version = true, max_term_width = 100)]
#[command(after_help = "Unlocking (non-interactive):\n  \
    GRAPHEX_PASSPHRASE        master passphrase (reads everything but human-only, can write)\n  \
    GRAPHEX_IDENTITY          path to an exported master identity (skips the slow passphrase KDF)\n  \
    GRAPHEX_HUMAN_PASSPHRASE  human-only passphrase (needs the master as well)\n  \
    GRAPHEX_AGENT_IDENTITY    path to an exported agent identity (public + agent-readable)\n\
    Without any of them only public content is visible. In a terminal, --unlock LEVEL prompts.\n\n\
    Console: settings in ~/.config/graphex/config.toml ([graphex.console]: mouse, theme, keys; the\n  \
    repository's .gpp/config.toml may set mouse only); NO_COLOR turns colours off; logs go to\n  \
    ~/.local/state/graphex/console.log (GRAPHEX_LOG sets the level).\n\n\
    Freshness records (what this machine last saw of each store, to catch a graph put back) live in\n  \
    ~/.local/state/graphex/freshness/ ($XDG_STATE_HOME; GRAPHEX_STATE_DIR moves them): graphex freshness.\n\n\
    Projection settings in .gpp/config.toml take effect once approved: graphex config approve.\n\n\
    Exit status: 0 ok, 1 error (message on stderr), 2 usage error.")]
pub struct Cli {
    /// Repository root holding `.gpp/` (default: $GRAPHEX_STORE, else the nearest parent with `.gpp/graphex`).
    #[arg(
        long,
        visible_alias = "repo",
        global = true,
        env = "GRAPHEX_STORE",
        value_name = "DIR"
    )]
    pub store: Option<PathBuf>,

    /// Print machine-readable JSON instead of text (read commands).
    #[arg(long, global = true)]
    pub json: bool,

    /// Ask for the passphrases needed to reach LEVEL (in a terminal), beyond what the environment gives.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub unlock: Option<UnlockArg>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `graphex seal`'s options.
#[derive(Debug, Args)]
pub struct SealArgs {
    /// Accept one kind of difference from the trusted seal, as the store has it now, named by
    /// the digest `graphex seal` prints beside it after showing it (the settings it would put in
    /// force are shown value by value): commits, rows, decisions, audit, settings, queries,
    /// timeline, or no-reference (no trusted seal was found), as KIND=DIGEST. A digest that no
    /// longer matches (the store or .gpp/config.toml changed since) is refused. Settings,
    /// decisions, audit and queries not accepted are restored from the trusted copy (after
    /// asking); the others must be accepted, or the whole copy restored.
    #[arg(long, value_name = "KIND=DIGEST")]
    pub accept: Vec<String>,
    /// Restore the whole trusted copy instead (the store as it is now is moved aside, never
    /// deleted).
    #[arg(long, conflicts_with = "accept")]
    pub restore_all: bool,
    /// Do not ask before restoring (what is restored is still printed).
    #[arg(long)]
    pub yes: bool,
}

/// Unlock levels a user can ask for.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum UnlockArg {
    Master,
    Human,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new store (and its keys) in DIR/.gpp/graphex.
    Init {
        /// Repository root (default: the working directory).
        dir: Option<PathBuf>,
    },
    /// Export identity files for non-interactive use, or rotate tier keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Seal a store that has no master's seal: one made by an earlier version, or one whose
    /// seal was removed (which an attacker does to have forged rows sealed anew).
    ///
    /// Never blind: it compares the store with the last seal it can verify (this machine's
    /// freshness record, else the sealed graph.db in git's HEAD) and lists every difference:
    /// commits, rows, decisions, audit records, approved settings, saved queries, timeline rows.
    /// It refuses while any is unexplained: restore the trusted copy (--restore), or accept each
    /// kind deliberately (--accept KIND=DIGEST, repeatable). History rows without a MAC beside rows that
    /// carry one are never accepted. A store whose schema predates seals is sealed in one step.
    Seal(SealArgs),
    /// Show the settings in force, or approve `.gpp/config.toml` (master level). Settings
    /// decide what agents receive (trust thresholds, scrub patterns, hidden relations, audit
    /// previews); an edit of the file takes effect only once approved.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Add a node (humans add Active nodes directly).
    Add(AddArgs),
    /// Change fields of a node; writes a new version.
    Update(UpdateArgs),
    /// Link two nodes: FROM RELATION TO. A `supersedes` link also deprecates TO when it is active.
    Link(LinkArgs),
    /// Remove one edge: FROM RELATION TO (`undo` puts it back).
    Unlink {
        /// Source node name.
        from: String,
        /// The edge's relation.
        relation: String,
        /// Target node name.
        to: String,
    },
    /// NEW replaces OLD: links NEW supersedes OLD and deprecates OLD, in one commit.
    Supersede {
        /// The node being replaced (it becomes deprecated).
        old: String,
        /// The node that replaces it.
        new: String,
        /// Why (kept with OLD's new version; default "superseded by NEW").
        #[arg(long)]
        reason: Option<String>,
        /// OLD is deprecated already: link NEW as its successor all the same (OLD keeps its status).
        #[arg(long)]
        force: bool,
    },
    /// Show one node with its properties, body and edges.
    #[command(disable_version_flag = true)]
    Show {
        /// Node name.
        name: String,
        /// Show this earlier version of the node (as `history NAME --version N`).
        #[arg(long, value_name = "N")]
        version: Option<u64>,
    },
    /// List nodes (archived ones only with --all or --status archived).
    List(ListArgs),
    /// Counts per tier, status and type; unlock level; last update.
    Status,
    /// Check the store's integrity: schema, key files and KDF, keyring, index
    /// manifest, blobs, orphans, nonce budget. Exits 1 on any finding. Works
    /// on a store that refuses to open, and says why it refuses.
    Doctor {
        /// Remove orphan blob files (those older than the grace period).
        #[arg(long)]
        collect_orphans: bool,
        /// How old an orphan must be to be removed, in seconds: younger ones may
        /// belong to a commit under way in another process. Lower it only when no
        /// other graphex process is running.
        #[arg(long, value_name = "SECONDS", default_value_t = 600)]
        grace: u64,
    },
    /// Bring a store made by an older version to today's layout, saying what moves (master level;
    /// holding the edges in groups: human level).
    ///
    /// Blob files kept flat in .gpp/objects/ move to .gpp/objects/XX/ (the first two hex digits of
    /// their name, as git keeps its objects). Each move is one rename and readers find a blob in
    /// either place, so it is safe at any time; every write does it too.
    ///
    /// A graph.db at schema v9 is laid out as v10 (the same rows, slimmer indexes, a third smaller)
    /// in one transaction, checked against the seal before and after; older versions of graphex no
    /// longer open it. Only this command does it: a v9 store reads and writes as before.
    ///
    /// At the human level the edges are then held in groups (schema v11: one row per node and
    /// tier, sealed once, about half the file), each edge opened and sealed again in one commit.
    /// Until then edges one a row read and write as before; group a branch before merging it.
    ///
    /// A file a tenth or more of which is free pages is rewritten without them.
    Migrate {
        /// Say what would move; move nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Query the graph: 'SUBJECT -> RELATION -> OBJECT [--flags]'.
    ///
    /// Positions take names, ids, `*` and globs (`orders-*`); `<->` follows edges either way;
    /// chains walk several hops (`a -> uses -> * -> owned-by -> *`). Flags inside the quotes:
    /// --depth N, --type T, --tier T, --since DATE, --confidence X, --status S (default visible:
    /// active and deprecated, flagged; or any), --limit N (default 100). Example: 'orders-service -> depends-on -> * --depth 2'.
    Query(QueryArgs),
    /// Saved queries, kept sealed in the store and shared through the repository (master level):
    /// list, save, delete. Run one with `graphex query --saved NAME`.
    #[command(subcommand)]
    Queries(QueriesCommand),
    /// The shortest path from A to B, with the relations along the way.
    Path(PathArgs),
    /// Neighbours of a node, ring by ring, with the edge each was reached through.
    Neighbors(NeighborsArgs),
    /// What an agent would receive: the context around a query or node, filtered to a tier, cut to a
    /// token budget.
    Project(ProjectArgs),
    /// What a change does to the graph: two git revisions (`main...HEAD`, `HEAD~3 HEAD`, one
    /// revision against the work tree; none: HEAD against the work tree) or two store directories
    /// compared at your level, with what each agent tier gains and loses and the findings a
    /// reviewer acts on. `--check` exits 1 on a finding (for CI).
    Diff(DiffArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or powershell (where to put it:
    /// docs/cli.md, "Shell completions and the man page").
    #[command(disable_version_flag = true)]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `graphex man > ~/.local/share/man/man1/graphex.1`.
    #[command(disable_version_flag = true)]
    Man,
    /// For security reviewers: what each tier holds and adds over the one below, and leak lints.
    Exposure {
        /// How many names to list per tier.
        #[arg(long, default_value_t = 30)]
        limit: usize,
        /// Exit with status 1 when there are findings (for CI).
        #[arg(long)]
        check: bool,
        /// Instead of the report: which projections would change, and by how many tokens, if NODE
        /// moved to TIER (nothing is changed).
        #[arg(long, value_name = "NODE=TIER")]
        what_if: Option<String>,
        /// With --what-if: only the projection of this query (default: every node within --depth).
        #[arg(long, requires = "what_if")]
        query: Option<String>,
        /// With --what-if: projection depth around each centre.
        #[arg(long, default_value_t = 2, requires = "what_if")]
        depth: u32,
    },
    /// The audit log of projections and previews.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Everything within N hops of a node (either way) and the edges among it.
    Subgraph(SubgraphArgs),
    /// Search names (exact, prefix, then fuzzy; "ordr srv" finds orders-service), then descriptions,
    /// then bodies.
    ///
    /// Names rank exact (any case), then prefix, then each word at the start of a segment, then
    /// fuzzy (the letters in order); every word must match, in any order; ties go to the shorter
    /// name. Then the nodes whose description holds every word, then those whose body does.
    Search {
        /// Words to look for.
        text: String,
        /// Most results.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Contradictions to resolve: pairs of active nodes joined by a `contradicts` edge. Keep one
    /// (`deprecate` the other: projections then carry only the one kept), or mark both disputed
    /// (`update NAME --prop disputed=true` on each: acknowledged). Until one is deprecated,
    /// projections flag both as disputed. Exit status 1 with --check when any awaits review.
    Contradictions {
        /// Exit with status 1 when a contradiction is neither resolved nor acknowledged (for CI).
        #[arg(long)]
        check: bool,
    },
    /// Look up glossary terms (exact, then partial, then definitions mentioning it).
    Glossary {
        /// The term, e.g. "order batch".
        term: String,
    },
    /// Conventions that apply to a file path, directory or module name.
    Conventions {
        /// A path such as services/orders/src/lib.rs, or a node name.
        target: String,
    },
    /// Confirm a node still holds: a new version with `confirmed` set to now, so its recency
    /// in projections is whole again and the curator's stale flag clears (master level).
    Confirm {
        /// The node's name.
        name: String,
    },
    /// Mark a node deprecated (still visible, flagged, not projected to agents).
    Deprecate(LifecycleArgs),
    /// Archive a node (soft delete: hidden, recoverable with restore).
    Archive(LifecycleArgs),
    /// Bring a deprecated or archived node back to active.
    Restore(LifecycleArgs),
    /// Submit a proposal (agent JSON, see docs/cli.md, "Proposals and review") from FILE or `-` for stdin; prints its id.
    ///
    /// Needs no key beyond the store's public master recipient; with the agent identity
    /// the proposal records the version of each node it mentions (for stale checks).
    Propose {
        /// The proposal JSON file, or `-` for stdin.
        #[arg(required_unless_present = "schema")]
        file: Option<PathBuf>,
        /// Print the JSON Schema of a proposal instead.
        #[arg(long, conflicts_with = "file")]
        schema: bool,
    },
    /// The review queue: every pending proposal with its changes, lints and stale state (master level).
    ///
    /// In a terminal it asks `Accept? [y/n/edit]` after each card (y accepts, n rejects with a
    /// reason, edit opens $EDITOR, s or Enter skips, q stops); piped, with --json or with
    /// --no-ask it prints the queue.
    Pending {
        /// Only this proposal (at least 4 leading hex digits of its id).
        id: Option<String>,
        /// Only proposals of this agent session.
        #[arg(long)]
        session: Option<String>,
        /// Print the queue and ask nothing, even in a terminal.
        #[arg(long)]
        no_ask: bool,
    },
    /// Accept a proposal (all its changes, or some) in one transaction.
    Accept(AcceptArgs),
    /// Reject a proposal with a reason the proposing agent can read.
    Reject(RejectArgs),
    /// Edit a proposal in $VISUAL/$EDITOR, then accept the edited version.
    Edit {
        /// Proposal id (at least 4 leading hex digits).
        id: String,
        /// Accept even if a node it changes moved since it was proposed.
        #[arg(long)]
        force: bool,
    },
    /// Send a proposal back to its agent with a comment: it leaves the queue until the agent
    /// submits a revision (a proposal whose JSON names it in "revises"), which the queue then
    /// shows with this conversation and what changed (master level).
    RequestChanges(RequestChangesArgs),
    /// Answer a reviewer's request for changes: a comment on a proposal, sealed for reviewers.
    ///
    /// Works with the agent identity, like `propose`.
    Comment(CommentArgs),
    /// An agent's proposals and where each stands in review (pending, accepted, rejected,
    /// changes requested with the comment, revised), newest first.
    ///
    /// Read from the agent's own list, kept in the user's state directory by `propose` and
    /// `graphex mcp` (proposals are sealed to the master: an agent cannot list the queue).
    /// Works with the agent identity.
    ReviewList {
        /// The agent whose proposals to list.
        #[arg(long)]
        agent: String,
    },
    /// Where a proposal stands: pending, accepted, rejected (with the reason) or quarantined.
    ///
    /// Works with the agent identity: agents learn the outcome of their own proposals.
    ProposalStatus {
        /// Proposal id (at least 4 leading hex digits).
        id: String,
    },
    /// Undo the last change not undone yet, as a new timeline entry: an accept or reject (the
    /// proposal returns to the queue), an add, update, deprecate, archive, restore, link, unlink or
    /// supersede. Repeat to walk further back. Refused when a later change would be overwritten,
    /// for a tier raise (lower a tier explicitly with `update --tier`), and when it would change a
    /// federated (read-only) node.
    Undo,
    /// A node's versions, oldest first, with the fields each one changed; or one version's content.
    #[command(disable_version_flag = true)]
    History {
        /// Node name.
        name: String,
        /// Show this version's content (as `show` does) instead of the list.
        #[arg(long, value_name = "N")]
        version: Option<u64>,
        /// With --version: write that version's content (type, description, body, properties,
        /// confidence) as a new version. The tier and status stay as they are now (change them
        /// with `update --tier` and the lifecycle commands); `undo` takes it back.
        #[arg(long, requires = "version")]
        revert: bool,
    },
    /// Recent changes: who did what, when, and which proposal it came from.
    Timeline {
        /// How many entries.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Propose nodes and edges found in a Rust workspace and its Markdown docs (as agent `inferred`).
    Infer {
        /// The directory to read (default: the store's repository root).
        path: Option<PathBuf>,
        /// Print the proposal (JSON) instead of submitting it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Serve MCP on stdio for an agent: projections at its trust tier, proposals, glossary, conventions.
    ///
    /// Runs with the agent identity (GRAPHEX_AGENT_IDENTITY) and refuses master credentials unless
    /// --local. The agent id, trust and session are fixed here; callers cannot change them. With no
    /// key in the environment, an agent-level unlock session (`graphex unlock --level agent`), if
    /// one runs, serves it on the agent identity and this process relays the protocol; a master
    /// session never serves one.
    Mcp(McpArgs),
    /// Create the demo store (the spec's orders-service example), then open the console on it, unlocked at the master level.
    Demo {
        /// Where to create it (default: the user data directory, graphex/demo).
        dir: Option<PathBuf>,
        /// Delete and rebuild an existing demo store.
        #[arg(long)]
        reset: bool,
        /// Only create the store and print a tour of CLI commands (for scripts).
        #[arg(long)]
        no_console: bool,
    },
    /// Generate a synthetic store for benchmarks and scale tests.
    Gen(GenArgs),
    /// Write the graph or a subgraph as json, jsonl, graphml, dot or mermaid (decrypted content).
    ///
    /// Never above your unlock level: human-only content only at the human level; --tier caps it
    /// lower. The output holds DECRYPTED content: -o writes a new file readable by you only (0600)
    /// and never overwrites one; keep it out of the repository and delete it when done.
    Export(super::io_args::ExportArgs),
    /// Read a node-link, kgraph, Ash JSONL or Graphex json file into the graph (one commit).
    ///
    /// Nodes are matched by name: unchanged ones are skipped, changed ones get a new version, new
    /// ones are added; edges by (from, relation, to), only added. An existing node's tier is never
    /// lowered. Foreign nodes get --tier (default agent-restricted); json keeps each node's tier.
    /// Any refused item (named with its file, index or line) means nothing is written. Caps: 256
    /// MiB a file (an Ash directory's files together), 250,000 nodes, 1,000,000 edges, 1 MiB a
    /// JSONL line. An Ash directory's files must really be inside it: a symbolic link leading out
    /// is refused. See docs/cli.md, "Import and export", for the mapping of each format.
    Import(super::io_args::ImportArgs),
    /// The store in a git repository: `install` sets up the merge driver, .gitignore and hooks;
    /// `refresh` rebuilds derived files after a checkout.
    #[command(subcommand)]
    Git(super::git_args::GitCommand),
    /// Merge two branches' graph.db three-way (git runs this; `graphex git install` sets it up).
    ///
    /// Changes from both branches land; a node changed on both stays as this branch has it and
    /// its other version waits in the queue as a merge proposal. Each branch's index is checked
    /// against the master's seal first. Needs the master key (GRAPHEX_PASSPHRASE,
    /// GRAPHEX_IDENTITY, or a terminal to ask on). On any error this branch's graph.db is kept
    /// and git reports a conflict.
    MergeDriver(super::git_args::MergeDriverArgs),
    /// What this machine last saw of the store, and what to do when the graph went back: a
    /// store older than the one last seen here (an older graph.db brought by git, or a file put
    /// back) opens read-only until you `restore` the newer one or `accept` it. Without a
    /// subcommand: `show`.
    Freshness {
        #[command(subcommand)]
        command: Option<super::git_args::FreshnessCommand>,
    },
    /// Share subgraphs between projects: publish a signed bundle, pull other projects' bundles
    /// as read-only nodes, print the key to pin. Configured in [graphex.federation] of
    /// .gpp/config.toml, in force once approved (`graphex config approve`). See docs/cli.md, "Approving settings".
    #[command(subcommand)]
    Federation(super::io_args::FederationCommand),
    /// Start an unlock session for this store (or say which one runs): a process of yours that
    /// asks the passphrase once, opens and verifies the store once, and serves the reads,
    /// curation and decisions that follow (status, query, project, accept, …) from memory, to
    /// this terminal only (--any-terminal: to every process of yours); the console started with
    /// no key runs its engine on the session's keys. The keys never leave it: it serves typed
    /// operations, never key export, rotation, approvals, repairs or exports to a file, over a
    /// socket in $XDG_RUNTIME_DIR (0600), and proves it holds the store's key before a client
    /// sends anything. It ends with `graphex lock`, after the idle time, when your login session
    /// ends, or when the store no longer verifies.
    Unlock(super::unlock_args::UnlockArgs),
    /// End this store's unlock session: it wipes what it held and exits.
    Lock,
    /// What this store's unlock session holds: level, since when, idle time left, consoles served.
    Session,
    #[command(hide = true)]
    SessionServe(super::unlock_args::ServeArgs),
}

/// Output formats of `query`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ProjectFormat {
    Md,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Records, newest first: what agents received (projections, tool reads, previews,
    /// costs) and did (proposals, comments, decisions on them, failed reads); content
    /// shown only for tiers this session reads.
    List {
        /// Only records for this agent: its whole activity, reads and writes.
        #[arg(long)]
        agent: Option<String>,
        /// Only records on or after this date (YYYY-MM-DD or RFC 3339).
        #[arg(long)]
        since: Option<String>,
        /// Most records.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Check the hash chain: an edited, deleted or reordered record is reported (exit status 1).
    Verify,
    /// Rebuild a recorded projection from the node versions of that time and check its hash
    /// (exit status 1 when it differs).
    Replay {
        /// The projection hash, or its first 8 or more hex digits.
        hash: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Write the agent identity (reads public + agent-readable) to FILE, mode 0600, pinning
    /// the store's master key: the agent checks keys/keyring.auth against it.
    ExportAgent { file: PathBuf },
    /// Write the master identity to FILE, mode 0600. Keep it outside the repository.
    ExportMaster { file: PathBuf },
    /// Replace tier keys with new ones and re-seal everything the old keys sealed (blob data
    /// keys, index rows, audit records, decisions). Without --tier, every tier: human-only
    /// needs GRAPHEX_HUMAN_PASSPHRASE (or --unlock human), which seals its new key file.
    /// Safe to interrupt: the next open finishes a rotation that committed. Old key files are
    /// refused afterwards; agents keep their identity files.
    Rotate {
        /// The tier whose key to rotate: public, agent-readable, agent-restricted, human-only.
        #[arg(long)]
        tier: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// The settings in force and how `.gpp/config.toml` differs from them.
    Show,
    /// Approve `.gpp/config.toml` as it is now: its settings are then in force for every
    /// session (the console, the CLI, MCP servers). Shows what would change first and asks
    /// (y/N) on a terminal; without one, give --yes with the digest `config show` prints.
    Approve {
        /// The approval's digest as `graphex config show` prints it: approves without asking,
        /// and is refused if the file or the settings in force changed since it was shown.
        #[arg(long, value_name = "DIGEST")]
        yes: Option<String>,
    },
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct AddArgs {
    /// Node type: service, module, concept, convention, external-system, person, team, policy,
    /// schema, glossary, decision, database, or a custom lowercase word.
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    pub node_type: String,
    /// Node name: lowercase letters, digits, '-', '_', '.' (1-128).
    #[arg(long, short = 'n')]
    pub name: String,
    /// One-line description.
    #[arg(long = "description", short = 'd', value_name = "TEXT")]
    pub description: String,
    /// Access tier: public, agent-readable, agent-restricted, human-only.
    #[arg(long, default_value = "public")]
    pub tier: String,
    /// Property KEY=VALUE (repeatable).
    #[arg(long = "prop", short = 'p', value_name = "KEY=VALUE")]
    pub props: Vec<String>,
    /// Longer text (markdown).
    #[arg(long)]
    pub body: Option<String>,
    /// Confidence from 0 to 1.
    #[arg(long, default_value_t = 1.0)]
    pub confidence: f64,
    /// How much this node matters in projections, from 0 to 1 (adds 20 × it to its relevance).
    #[arg(long)]
    pub importance: Option<f64>,
    /// Tags, comma-separated lowercase words (kept as the `tags` property).
    #[arg(long)]
    pub tags: Option<String>,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct UpdateArgs {
    /// Node name.
    pub name: String,
    /// New description.
    #[arg(long = "description", short = 'd', value_name = "TEXT")]
    pub description: Option<String>,
    /// New type.
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    pub node_type: Option<String>,
    /// New tier (raising re-seals every stored version and edge).
    #[arg(long)]
    pub tier: Option<String>,
    /// Set property KEY=VALUE; `KEY=` removes it (repeatable).
    #[arg(long = "prop", short = 'p', value_name = "KEY=VALUE")]
    pub props: Vec<String>,
    /// New body text; an empty string removes it.
    #[arg(long)]
    pub body: Option<String>,
    /// New confidence from 0 to 1.
    #[arg(long)]
    pub confidence: Option<f64>,
    /// New importance in projections, from 0 to 1.
    #[arg(long)]
    pub importance: Option<f64>,
    /// New tags, comma-separated lowercase words (empty removes them).
    #[arg(long)]
    pub tags: Option<String>,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct LinkArgs {
    /// Source node name.
    pub from: String,
    /// Relation: depends-on, communicates-with, owned-by, implements-policy, contains, uses,
    /// contradicts, supersedes, related-to, federated-from, or a custom lowercase word.
    #[arg(required_unless_present = "relation_flag")]
    pub relation: Option<String>,
    /// Target node name.
    #[arg(required_unless_present = "to_flag")]
    pub to: Option<String>,
    /// The relation, as a flag (`link A --relation R --to B`).
    #[arg(
        long = "relation",
        id = "relation_flag",
        value_name = "RELATION",
        conflicts_with = "relation"
    )]
    pub relation_flag: Option<String>,
    /// The target, as a flag.
    #[arg(long = "to", id = "to_flag", value_name = "NAME", conflicts_with = "to")]
    pub to_flag: Option<String>,
    /// Minimum tier of the edge (it is always at least as secret as its more secret end).
    #[arg(long, default_value = "public")]
    pub tier: String,
    /// Confidence from 0 to 1.
    #[arg(long, default_value_t = 1.0)]
    pub confidence: f64,
    /// Weight, from 0 to 1 (how strongly the edge binds: ranks projections, `path --weighted`).
    #[arg(long, default_value_t = 1.0)]
    pub weight: f64,
    /// The relation holds in both directions.
    #[arg(long)]
    pub bidirectional: bool,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct ListArgs {
    /// Only this type.
    #[arg(long = "type", short = 't', value_name = "TYPE")]
    pub node_type: Option<String>,
    /// Only this tier.
    #[arg(long)]
    pub tier: Option<String>,
    /// Only this status (proposed, active, deprecated, archived); `proposed` also lists the nodes
    /// pending proposals would add, with their proposal id (master level).
    #[arg(long)]
    pub status: Option<String>,
    /// Include archived nodes.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The agent's id, recorded on its proposals and projections.
    #[arg(long, env = "GRAPHEX_MCP_AGENT")]
    pub agent: String,
    /// The agent's trust score (0-100), mapped to a tier by the store's thresholds.
    #[arg(long, env = "GRAPHEX_MCP_TRUST")]
    pub trust: f64,
    /// The session name recorded on proposals (default: mcp-<start time>).
    #[arg(long, env = "GRAPHEX_MCP_SESSION")]
    pub session: Option<String>,
    /// A trusted local runtime: may receive agent-restricted content (and may run with the master key).
    #[arg(long)]
    pub local: bool,
    /// Serve public content only, knowingly. Without it, a server whose keys cannot decrypt
    /// every tier the agent's trust allows (no GRAPHEX_AGENT_IDENTITY) refuses to start.
    #[arg(long)]
    pub public_only: bool,
    /// The largest message read, in bytes (1 KiB to 256 MiB; default 16 MiB). A longer line is
    /// dropped unread and answered with a JSON-RPC error (-32600) naming the cap; the server
    /// reads on.
    #[arg(long, env = "GRAPHEX_MCP_MAX_MESSAGE", value_name = "BYTES",
          default_value_t = crate::mcp::DEFAULT_MAX_MESSAGE as u64,
          value_parser = clap::value_parser!(u64).range(1024..=256 * 1024 * 1024))]
    pub max_message: u64,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct LifecycleArgs {
    /// Node name.
    pub name: String,
    /// Why (kept with the node's new version).
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// Number of nodes.
    #[arg(long)]
    pub nodes: usize,
    /// Number of edges.
    #[arg(long)]
    pub edges: usize,
    /// Random seed (same seed, same graph).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Repository root to create (must not hold a store yet).
    pub dir: PathBuf,
}
