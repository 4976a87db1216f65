//! `offkit wrap`: write a host object that embeds device images and registers them with the offload runtime.
//!
//! Not landed yet (issue 4).

use anyhow::Result;

use offkit_tools::Env;

/// Write a host object that embeds device images and registers them with the offload runtime.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit wrap`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("wrap", 4)
}
