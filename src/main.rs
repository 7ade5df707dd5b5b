//! The `graphex` binary: parse arguments, run, map errors to exit codes
//! (0 ok, 1 error, 2 usage).

use std::process::ExitCode;

use clap::Parser;
use graphex::cli::{Cli, run};

fn main() -> ExitCode {
    // Before anything holds a key: no core dumps, not dumpable.
    if let Err(e) = graphex_engine::hygiene::harden_process() {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    // The shell asking for completions (`COMPLETE=bash graphex …`) is
    // answered and the process ends here.
    graphex::cli::complete_if_asked();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = Cli::parse_from(&argv);
    // The store's unlock session runs the command when it holds the store.
    if let Some(code) = graphex::cli::hold::client::forward(&cli) {
        return code;
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // `graphex list | head`: the reader has what it wanted.
        Err(e) if graphex::cli::output::broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // An error may quote its input, which may be agent text.
            eprint!("{}", graphex::cli::output::error_text(&e));
            ExitCode::from(1)
        }
    }
}
