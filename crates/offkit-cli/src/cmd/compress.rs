//! `offkit compress` and `offkit decompress`: every offload bundle of files, compressed as LLVM
//! 19's bundler compresses it, or decompressed, in place.

use anyhow::Result;
use offkit_format::bundle::compressed::{Method, Options};
use offkit_surgery::{Edit, Plan};
use offkit_tools::Env;

use super::rewrite::{each, freed, how, print_changed, rewrite, Dest, Progress, Targets};
use crate::output::plural;

/// Compress every offload bundle of files, as LLVM's `clang-offload-bundler -compress`
/// compresses it.
///
/// Every bundle of every `.hip_fatbin` and bundle-holding `__CLANG_OFFLOAD_BUNDLE__*` section
/// (shared libraries, executables, objects) and of raw bundle files. Each compressed bundle is
/// byte for byte what LLVM's bundler writes for it with the same version, method and level
/// (zstd with long-distance matching, one-shot, level 3; version 2 by default, as LLVM 19
/// writes it; `--ccob-version 3` is what LLVM 22 writes by default). Bundles are
/// compressed in parallel on all cores. Sections never move: each bundle is rewritten at its own
/// offset (so every `__hip_fatbin_wrapper` pointer stays right) and the bytes it frees are zeroed
/// (left as holes in the file). Compressed bundles of the asked version and method are left as
/// they are; others are decompressed and compressed again. The result is written beside the
/// target, re-read and checked, then renamed over it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit compress libk.so\n  \
                        offkit compress libk.so -o libk-small.so --ccob-version 3")]
pub struct CompressArgs {
    #[command(flatten)]
    targets: Targets,
    /// The compressed bundle version: 2 (what LLVM 19 writes and reads) or 3 (what LLVM 22
    /// writes by default: 64-bit sizes; LLVM 19 cannot read it); 1 has no total size.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=3))]
    ccob_version: u16,
    /// The method: zstd (LLVM 19's) or zlib.
    #[arg(long, default_value = "zstd", value_parser = ["zstd", "zlib"])]
    method: String,
    /// The level (LLVM 19's `-compression-level`): zstd 3 by default, zlib 6.
    #[arg(long, allow_negative_numbers = true)]
    level: Option<i32>,
}

/// Decompress every compressed offload bundle of files.
///
/// The bundles of the same sections and files as `offkit compress`. In a shared library or
/// executable a decompressed bundle must fit its space up to the next bundle (or the section's
/// end): otherwise nothing is written and an error names the bundle and by how many bytes it
/// does not fit. A raw bundle file simply grows.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit decompress libk.so -o libk-plain.so")]
pub struct DecompressArgs {
    #[command(flatten)]
    targets: Targets,
}

/// Runs `offkit compress`.
pub fn run_compress(a: CompressArgs, _env: &Env) -> Result<()> {
    let method = if a.method == "zlib" {
        Method::Zlib
    } else {
        Method::Zstd
    };
    let opts = Options {
        version: a.ccob_version,
        method,
        level: a
            .level
            .unwrap_or(if method == Method::Zstd { 3 } else { -1 }),
        ..Options::default()
    };
    run(&a.targets, &Edit::Compress(opts), "compress", "compressed")
}

/// Runs `offkit decompress`.
pub fn run_decompress(a: DecompressArgs, _env: &Env) -> Result<()> {
    run(&a.targets, &Edit::Decompress, "decompress", "decompressed")
}

fn run(targets: &Targets, edit: &Edit, cmd: &str, done: &str) -> Result<()> {
    let dest = targets.dest(true)?;
    let dry = matches!(dest, Dest::DryRun);
    let mut progress = Progress::new(targets.quiet);
    let all = each(
        &targets.files,
        |f| rewrite(f, &dest, edit, &mut progress),
        |_, d| {
            for plan in &d.plans {
                print_changed(plan);
                let n = plan.changes.iter().filter(|c| c.changed()).count();
                println!(
                    "{}: {} of {} {}{}, {}{}",
                    plan.input,
                    n,
                    plural(plan.changes.len(), "bundle", "bundles"),
                    if dry { "would be " } else { "" },
                    done,
                    freed(plan.freed(), dry),
                    how(d, plan)
                );
            }
        },
    )?;
    let plans = || all.iter().flat_map(|d| &d.plans);
    let bundles: usize = plans()
        .map(|p| p.changes.iter().filter(|c| c.changed()).count())
        .sum();
    let net: i64 = plans().map(Plan::freed).sum();
    println!(
        "{cmd}: {} {done} in {}, {}",
        plural(bundles, "bundle", "bundles"),
        plural(all.len(), "file", "files"),
        freed(net, dry)
    );
    Ok(())
}
