//! `graphex diff`'s arguments.

use clap::{Args, ValueEnum};

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// What to compare: `A B` (two revisions or store directories), `A..B`, `A...B` (from their
    /// merge base to B, as a pull request shows it), or one revision against the work tree. None:
    /// HEAD against the work tree. Each revision's store is read from git's objects into a
    /// private temporary directory (removed after); nothing is checked out.
    #[arg(value_name = "REVISION", num_args = 0..=2)]
    pub states: Vec<String>,
    /// Compare the store's graph at a point of its timeline instead: `--as-of WHEN` against now,
    /// `--as-of A --as-of B` between two points. WHEN is a date (2026-11-01: the end of that
    /// day, UTC), an instant (2026-11-01T12:00:00Z) or a timeline entry (#42). Nodes are shown
    /// as they were; an edge removed since cannot be, and sealed tiers are not counted.
    #[arg(long = "as-of", value_name = "WHEN", conflicts_with = "states")]
    pub as_of: Vec<String>,
    /// Open the console instead: its Projection pane shows a changed node before and after the
    /// range, tier by tier (`/` another node), the range's base against the work tree's store:
    /// `--console main...HEAD`, `--console v1.2`; none: HEAD.
    #[arg(long, conflicts_with = "as_of")]
    pub console: bool,
    /// text, json (also --json) or markdown (for a pull-request comment).
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Exit 1 when the change lowers a tier, adds a credential or names a more secret node in
    /// less secret text (`[graphex.diff] check` in the approved settings chooses which); a state
    /// that fails verification is an error either way.
    #[arg(long)]
    pub check: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    Text,
    Json,
    Markdown,
}
