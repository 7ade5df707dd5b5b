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
    ///
    /// The hooks and the driver run `graphex` from PATH (not this binary's path), or the program
    /// given with --program; $GRAPHEX_PROGRAM, when set as git runs them, comes first. When the
    /// program is missing they say so: a hook never blocks git, the driver leaves a conflict.
    Install {
        /// The graphex program the hooks and the merge driver run (default: `graphex` from PATH).
        #[arg(long, value_name = "PATH")]
        program: Option<PathBuf>,
    },
    /// Rebuild the derived files (tier snapshots) after a checkout or merge, once enough rows
    /// changed since them, when the master key is in the environment; does nothing (quietly,
    /// exit 0) without it. The hooks run it.
    Refresh,
    /// Print the graph in FILE (a `graph.db`, as git hands it to a textconv) as sorted, stable
    /// text: one block per node (name, type, tier, status, description, properties, edges), at
    /// the level of the key in the environment; keyless, public content and counts of what is
    /// sealed. `git install` makes `git diff`, `git log -p` and `git show` use it. Never asks for
    /// a passphrase.
    Textconv {
        /// The index file to show.
        file: PathBuf,
    },
    /// Check that the graph did not go back while git went forward (the hooks run it after a
    /// checkout, merge or rebase, and before a commit). Needs no key: it compares the index's seal
    /// history with what this machine last saw. Exits 1, naming the commit that brought the older
    /// graph, when a merge, pull or rebase put an older graph back; before a commit that refuses
    /// the commit.
    Check {
        /// The git hook running it (post-checkout, post-merge, post-rewrite, pre-commit,
        /// pre-merge-commit); post-rewrite reads git's list of rewritten commits on stdin.
        #[arg(long, value_name = "HOOK")]
        hook: Option<String>,
    },
}

/// `graphex freshness …`: what this machine last saw of the store.
#[derive(Debug, Subcommand)]
pub enum FreshnessCommand {
    /// What this machine last saw of the store (graph commit, seal, git commit), what the store
    /// holds now, and whether a newer copy is kept to restore.
    Show,
    /// After a rollback: put the newer graph back, from this machine's backup or from the git
    /// commit it was seen at. The graph as it is now is moved aside (never deleted). Master level.
    Restore {
        /// Do not ask (the differences are still printed).
        #[arg(long)]
        yes: bool,
    },
    /// After a rollback: accept the graph as it is now, deliberately, as the newest this machine
    /// has seen (writes are allowed again).
    Accept {
        /// Do not ask (the differences are still printed).
        #[arg(long)]
        yes: bool,
    },
    /// Trust the graph a git revision holds (`main`, `origin/main`, a commit) as the newest this
    /// machine has seen on the branch checked out: for a fresh clone, a deleted record, or a
    /// first sight that trusted the wrong graph. Its seal must verify with the master key; the
    /// store as it is is then checked against it (read-only if it does not descend from it).
    Trust {
        /// The revision whose graph to trust.
        rev: String,
    },
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
