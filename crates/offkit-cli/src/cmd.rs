//! The `offkit` subcommands, one file each.

pub mod bundle;
pub mod check;
pub mod extract;
pub mod inspect;
pub mod link;
pub mod list;
pub mod shims;
pub mod unbundle;
pub mod wrap;

use anyhow::Result;

use offkit_tools::Env;

/// The subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    Inspect(inspect::Args),
    Extract(extract::Args),
    Check(check::Args),
    Bundle(bundle::Args),
    Unbundle(unbundle::Args),
    List(list::Args),
    Wrap(wrap::Args),
    Link(link::Args),
    Shims(shims::Args),
}

/// Runs one subcommand.
pub fn run(cmd: Cmd, env: &Env) -> Result<()> {
    match cmd {
        Cmd::Inspect(a) => inspect::run(a, env),
        Cmd::Extract(a) => extract::run(a, env),
        Cmd::Check(a) => check::run(a, env),
        Cmd::Bundle(a) => bundle::run(a, env),
        Cmd::Unbundle(a) => unbundle::run(a, env),
        Cmd::List(a) => list::run(a, env),
        Cmd::Wrap(a) => wrap::run(a, env),
        Cmd::Link(a) => link::run(a, env),
        Cmd::Shims(a) => shims::run(a, env),
    }
}
