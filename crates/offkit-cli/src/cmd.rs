//! The `offkit` subcommands, one file each.

pub mod arch;
pub mod bundle;
pub mod check;
pub mod completions;
pub mod compress;
pub mod convert;
pub mod extract;
pub mod inspect;
pub mod link;
pub mod list;
pub mod man;
pub mod prune;
pub mod replace;
pub mod rewrite;
pub mod rt;
pub mod shims;
pub mod size;
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
    Size(size::Args),
    Prune(prune::Args),
    Compress(compress::CompressArgs),
    Decompress(compress::DecompressArgs),
    Replace(replace::Args),
    Convert(convert::Args),
    Bundle(bundle::Args),
    Unbundle(unbundle::Args),
    List(list::Args),
    Wrap(wrap::Args),
    Link(link::Args),
    Shims(shims::Args),
    Arch(arch::Args),
    Rt(rt::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// Runs one subcommand.
pub fn run(cmd: Cmd, env: &Env) -> Result<()> {
    match cmd {
        Cmd::Inspect(a) => inspect::run(a, env),
        Cmd::Extract(a) => extract::run(a, env),
        Cmd::Check(a) => check::run(a, env),
        Cmd::Size(a) => size::run(a, env),
        Cmd::Prune(a) => prune::run(a, env),
        Cmd::Compress(a) => compress::run_compress(a, env),
        Cmd::Decompress(a) => compress::run_decompress(a, env),
        Cmd::Replace(a) => replace::run(a, env),
        Cmd::Convert(a) => convert::run(a, env),
        Cmd::Bundle(a) => bundle::run(a, env),
        Cmd::Unbundle(a) => unbundle::run(a, env),
        Cmd::List(a) => list::run(a, env),
        Cmd::Wrap(a) => wrap::run(a, env),
        Cmd::Link(a) => link::run(a, env),
        Cmd::Shims(a) => shims::run(a, env),
        Cmd::Arch(a) => arch::run(a, env),
        Cmd::Rt(a) => rt::run(a, env),
        Cmd::Completions(a) => completions::run(a, env),
        Cmd::Man(a) => man::run(a, env),
    }
}
