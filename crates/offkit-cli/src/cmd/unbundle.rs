//! `offkit unbundle`: extract per-target files from an offload bundle.
//!
//! Not landed yet (issue 3).

use anyhow::Result;

use offkit_tools::Env;

/// Extract per-target files from an offload bundle.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit unbundle`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("unbundle", 3)
}
