//! What a shell and `man` need to know about `graphex`, generated from the
//! same argument definitions the binary parses: completion scripts
//! (`graphex completions SHELL`) and the man page (`graphex man`).

use anyhow::Result;
use clap::CommandFactory;

use super::Cli;
use super::output::write_stdout;

pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "graphex", &mut out);
    write_stdout(&out)
}

pub fn man() -> Result<()> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    write_stdout(&out)
}
