//! `offkit completions SHELL`: the shell completion script, generated from the same clap
//! definitions as the commands themselves (clap_complete).

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

use offkit_tools::Env;

/// Print the completion script for a shell.
///
/// Load it for the current shell, or install it where the shell looks for completions.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
                        source <(offkit completions bash)\n  \
                        offkit completions zsh > ~/.zfunc/_offkit\n  \
                        offkit completions fish > ~/.config/fish/completions/offkit.fish")]
pub struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    shell: Shell,
}

/// Runs `offkit completions`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let mut cmd = crate::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "offkit", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("failed to write the completion script")
}
