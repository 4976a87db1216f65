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
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    cmd: cmd::Cmd,
}

fn main() -> ExitCode {
    // A write past `ulimit -f` is then an error that removes the temporary output.
    offkit_tools::fs::ignore_file_size_signal();
    let args: Vec<OsString> = std::env::args_os().collect();
    let env = Env::capture();
    if let Some(tool) = args.first().and_then(dropin::Tool::from_argv0) {
        return dropin::run(tool, args, &env);
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

/// Prints `error: …` and the numbered `Caused by:` chain; a broken pipe is quiet.
fn report(err: &anyhow::Error) -> ExitCode {
    let broken_pipe = err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    eprintln!("error: {err}");
    let causes: Vec<_> = err.chain().skip(1).collect();
    if !causes.is_empty() {
        eprintln!("\nCaused by:");
        for (i, c) in causes.iter().enumerate() {
            eprintln!("    {i}: {c}");
        }
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
