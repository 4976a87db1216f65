//! `offkit inspect`: show every device image in objects, archives, executables, shared libraries and bundles.
//!
//! Not landed yet (issue 2).

use anyhow::Result;

use offkit_tools::Env;

/// Show every device image in objects, archives, executables, shared libraries and bundles.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit inspect`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("inspect", 2)
}
