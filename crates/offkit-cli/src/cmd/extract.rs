//! `offkit extract`: write the selected device images of objects, archives, executables and bundles to a directory.
//!
//! Not landed yet (issue 2).

use anyhow::Result;

use offkit_tools::Env;

/// Write the selected device images of objects, archives, executables and bundles to a directory.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pending: super::Pending,
}

/// Runs `offkit extract`.
pub fn run(_args: Args, _env: &Env) -> Result<()> {
    super::pending("extract", 2)
}
