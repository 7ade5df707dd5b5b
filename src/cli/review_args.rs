//! The arguments of the review commands: `accept`, `reject`,
//! `request-changes` and the agent's `comment` (kept apart from `args`,
//! which is long enough).

use clap::Args;

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct AcceptArgs {
    /// Proposal id (at least 4 leading hex digits), or the name of the node the one pending
    /// proposal that touches it adds or changes; or use --session.
    #[arg(required_unless_present = "session", conflicts_with = "session")]
    pub id: Option<String>,
    /// Apply only these changes (1-based numbers as `pending` shows them), e.g. `1,3`.
    #[arg(long, value_delimiter = ',', value_name = "N,..")]
    pub only: Option<Vec<usize>>,
    /// Accept even if a node it changes moved since it was proposed.
    #[arg(long)]
    pub force: bool,
    /// Accept every pending proposal of this agent session, oldest first (needs --batch).
    #[arg(long, conflicts_with = "only", requires = "batch")]
    pub session: Option<String>,
    /// The session's batch digest as `pending` shows it: refuses if the session changed since.
    #[arg(long)]
    pub batch: Option<String>,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct RejectArgs {
    /// Proposal id (at least 4 leading hex digits), or the name of the node the one pending
    /// proposal that touches it adds or changes; or use --session.
    #[arg(required_unless_present = "session", conflicts_with = "session")]
    pub id: Option<String>,
    /// Why: the proposing agent reads this.
    #[arg(long)]
    pub reason: String,
    /// Reject every pending proposal of this agent session (needs --batch).
    #[arg(long, requires = "batch")]
    pub session: Option<String>,
    /// The session's batch digest as `pending` shows it: refuses if the session changed since.
    #[arg(long)]
    pub batch: Option<String>,
}

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
pub struct RequestChangesArgs {
    /// Proposal id (at least 4 leading hex digits), or the name of the node the one pending
    /// proposal that touches it adds or changes.
    pub id: String,
    /// What should change: the proposing agent reads this.
    #[arg(long)]
    pub comment: String,
    /// The comment is on this change (1-based, as `pending` numbers them), not the whole proposal.
    #[arg(long, value_name = "N")]
    pub change: Option<usize>,
}

#[derive(Debug, Args)]
pub struct CommentArgs {
    /// Proposal id (at least 4 leading hex digits).
    pub id: String,
    /// The comment (the reviewer reads it behind a gutter, as agent text).
    #[arg(long)]
    pub comment: String,
    /// The agent commenting (as in its proposals).
    #[arg(long)]
    pub agent: String,
    /// The agent session.
    #[arg(long, default_value = "")]
    pub session: String,
    /// The comment is on this change (1-based), not the whole proposal.
    #[arg(long, value_name = "N")]
    pub change: Option<usize>,
}
