//! The arguments of `git` and `merge-driver` (kept apart from `args`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `graphex git …`: living in a git repository.
#[derive(Debug, Subcommand)]
pub enum GitCommand {
    /// Set the repository up for the store: the merge driver in .gitattributes and in the
    /// repository's git config, .gpp/.gitignore, and post-checkout / post-merge hooks that
    /// rebuild the snapshots (a cache) when the master key is in the environment. Safe to run
    /// again; it says what it changed.
    Install,
    /// Rebuild the derived files (tier snapshots) after a checkout or merge, once enough rows
    /// changed since them, when the master key is in the environment; does nothing (quietly,
    /// exit 0) without it. The hooks run it.
    Refresh,
}

/// `graphex merge-driver BASE OURS THEIRS PATH`: run by git, not by hand.
#[derive(Debug, Args)]
pub struct MergeDriverArgs {
    /// The common ancestor's graph.db (git's %O).
    pub base: PathBuf,
    /// This branch's graph.db, where the merge is written (git's %A).
    pub ours: PathBuf,
    /// The other branch's graph.db (git's %B).
    pub theirs: PathBuf,
    /// The file's path in the repository (git's %P): .gpp/graphex/graph.db.
    pub path: PathBuf,
}
