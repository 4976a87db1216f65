//! The `offkit` binary.
//!
//! Two faces (STYLE.md): run as `offkit <subcommand>` it is strict and explains itself; run under
//! the name of one of LLVM 19's offloading tools (`clang-offload-packager`,
//! `clang-offload-bundler`, `clang-offload-wrapper`, `clang-linker-wrapper`, e.g. through the
//! links `offkit shims DIR` makes) it *is* that tool: the same options, output bytes, messages
//! and exit status.

mod cmd;
mod dropin;
mod output;
mod select;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use offkit_tools::Env;

/// Inspect, extract, bundle, wrap and link LLVM offloading binaries.
///
/// offkit reads and writes the formats of LLVM's offloading toolchain (offload binaries,
/// offload bundles, target IDs, offload entry tables) byte for byte as LLVM 19 does. Installed
/// under the names of LLVM's tools (see `offkit shims`) it is a drop-in replacement for them.
#[derive(Debug, Parser)]
#[command(
    name = "offkit",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "The drop-in faces (clang-offload-bundler and the others, see `offkit shims`) read \
                  what LLVM 19 reads: of a .hip_fatbin section only the first bundle, and no \
                  compressed bundle of version 3. To see or take out everything a shipped \
                  library holds (every bundle of every section, compressed or not), use \
                  `offkit inspect`, `offkit extract` and `offkit check`."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    cmd: cmd::Cmd,
}

fn main() -> ExitCode {
    // A write past `ulimit -f` is then an error that removes the temporary output.
    offkit_tools::fs::ignore_file_size_signal();
    // Freed large buffers (inflated bundles) go back to the system at once.
    offkit_tools::fs::map_large_allocations();
    let args: Vec<OsString> = std::env::args_os().collect();
    let env = Env::capture();
    if let Some(face) = args
        .first()
        .and_then(|argv0| dropin::Face::from_invocation(argv0, &env))
    {
        return match face {
            Ok(face) => dropin::run(&face, args, &env),
            Err(e) => {
                eprintln!("offkit: error: {e}");
                ExitCode::from(1)
            }
        };
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap: help and version exit 0, usage errors exit 2.
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    match cmd::run(cli.cmd, &env) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => report(&err),
    }
}

/// Prints the error (`error: …` and its `Caused by:` chain); a broken pipe is quiet.
fn report(err: &anyhow::Error) -> ExitCode {
    if output::is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    if err.downcast_ref::<output::Reported>().is_none() {
        output::print_error(err);
    }
    ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
