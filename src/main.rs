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
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // `graphex list | head`: the reader has what it wanted.
        Err(e) if graphex::cli::output::broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // An error may quote its input, which may be agent text.
            eprintln!("error: {}", graphex_engine::hygiene::visible_text(&format!("{e:#}")));
            if let Some(hint) = graphex::cli::hints::for_error(&e) {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(1)
        }
    }
}
