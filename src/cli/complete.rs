//! Dynamic completion: the shell asks `graphex` itself (`COMPLETE=bash
//! graphex`, see docs/cli.md) and gets node names, proposal ids and saved
//! query names from the store, read at the level of the key in the
//! environment (keyless: public names only; proposal ids need the master
//! key). Never a prompt, never a write; a store that cannot be opened
//! completes nothing.

use std::ffi::OsStr;

use clap::CommandFactory as _;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use graphex_engine::Store;
use graphex_engine::keys::Credentials;
use graphex_engine::store::Layout;

use super::Cli;

/// The arguments completed with node names, proposal ids and saved
/// queries, as (subcommand, argument id).
pub const NODE_ARGS: &[(&str, &str)] = &[
    ("show", "name"),
    ("update", "name"),
    ("history", "name"),
    ("unlink", "from"),
    ("unlink", "to"),
    ("deprecate", "name"),
    ("archive", "name"),
    ("restore", "name"),
    ("supersede", "old"),
    ("supersede", "new"),
    ("path", "from"),
    ("path", "to"),
    ("neighbors", "name"),
    ("subgraph", "center"),
    ("confirm", "name"),
];
pub const PROPOSAL_ARGS: &[(&str, &str)] = &[
    ("accept", "id"),
    ("reject", "id"),
    ("pending", "id"),
    ("proposal-status", "id"),
    ("edit", "id"),
    ("request-changes", "id"),
    ("comment", "id"),
];
pub const SAVED_ARGS: &[(&str, &str)] = &[("query", "saved")];

/// What completes one kind of argument.
type Completer = fn(&OsStr) -> Vec<CompletionCandidate>;

/// The command with its dynamic completers attached.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let kinds: [(&[(&str, &str)], Completer); 3] =
        [(NODE_ARGS, nodes), (PROPOSAL_ARGS, proposals), (SAVED_ARGS, saved)];
    for (args, complete) in kinds {
        for (sub, arg) in args {
            cmd = cmd.mut_subcommand(*sub, |s| s.mut_arg(*arg, |a| a.add(ArgValueCompleter::new(complete))));
        }
    }
    cmd
}

/// Handles a completion request from the shell (and exits), else returns.
pub fn complete_if_asked() {
    clap_complete::CompleteEnv::with_factory(command).complete();
}

/// The store the command line would use, opened for names only.
fn store() -> Option<Store> {
    open(Store::open_names_only)
}

fn open(how: fn(&std::path::Path, &Credentials) -> graphex_engine::Result<Store>) -> Option<Store> {
    let root = match std::env::var_os("GRAPHEX_STORE") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => Layout::discover(&std::env::current_dir().ok()?)?.root().to_owned(),
    };
    how(&root, &Credentials::from_env()).ok()
}

fn matching(current: &OsStr, names: impl Iterator<Item = String>) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    let mut out: Vec<String> = names.filter(|n| n.starts_with(prefix.as_ref())).collect();
    out.sort();
    out.into_iter().map(CompletionCandidate::new).collect()
}

fn nodes(current: &OsStr) -> Vec<CompletionCandidate> {
    store().map_or_else(Vec::new, |s| {
        matching(current, s.catalog().nodes().map(|n| n.name.to_string()))
    })
}

fn proposals(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(s) = open(Store::open) else { return Vec::new() };
    let Ok(pending) = s.pending() else { return Vec::new() };
    matching(current, pending.pending.iter().map(|p| p.id.short().to_owned()))
}

fn saved(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(s) = store() else { return Vec::new() };
    let Ok(list) = s.saved_queries() else { return Vec::new() };
    matching(current, list.into_iter().map(|q| q.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every argument named above exists: a renamed one fails here, not
    /// silently in a user's shell.
    #[test]
    fn every_completed_argument_exists() {
        let cmd = Cli::command();
        for (sub, arg) in NODE_ARGS.iter().chain(PROPOSAL_ARGS).chain(SAVED_ARGS) {
            let s = cmd
                .find_subcommand(sub)
                .unwrap_or_else(|| panic!("no subcommand {sub}"));
            assert!(
                s.get_arguments().any(|a| a.get_id() == *arg),
                "{sub} has no argument {arg}"
            );
        }
    }
}
