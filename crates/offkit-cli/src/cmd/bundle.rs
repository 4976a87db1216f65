//! `offkit bundle`: write an offload bundle (binary, text, or fat object) from per-target inputs.
//!
//! Not landed yet (issue 3).

use anyhow::Result;

use offkit_tools::Env;

/// Write an offload bundle (binary, text, or fat object) from per-target inputs.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit bundle`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("bundle", 3)
}
