//! `offkit list`: list the entry IDs of an offload bundle.
//!
//! Not landed yet (issue 3).

use anyhow::Result;

use offkit_tools::Env;

/// List the entry IDs of an offload bundle.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit list`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("list", 3)
}
