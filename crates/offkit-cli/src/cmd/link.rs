//! `offkit link`: link a program with device code: extract, device-link, wrap and host-link.
//!
//! Not landed yet (issue 5).

use anyhow::Result;

use offkit_tools::Env;

/// Link a program with device code: extract, device-link, wrap and host-link.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit link`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("link", 5)
}
