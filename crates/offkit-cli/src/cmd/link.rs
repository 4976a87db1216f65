//! `offkit link`: link a program with device code — the linker wrapper's pipeline with a plain
//! command line.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use offkit_link::{opts, Link, LinkConfig, DEFAULT_HOST_TRIPLE};
use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, ToolFinder};

/// Link a program with device code: find the device images in the inputs, link them per
/// target, wrap them into registration objects and run the host linker with those.
///
/// Everything after `--` is the host link: `-o FILE`, the inputs, `-L DIR`, `-l NAME`,
/// `--whole-archive`/`--no-whole-archive` and `-r` are read as a linker reads them (archive
/// members with device code are linked when the device link needs them, as LLVM 19's
/// clang-linker-wrapper decides); every other argument goes to the host linker unchanged. The
/// registration objects are inserted right after `-o FILE`. The host linker is clang-19 by
/// default, used as a driver, so `-Wl,…`, `-fopenmp` and the like work there.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  \
    offkit link --offload-targets=x86_64-pc-linux-gnu --explain -- \\\n    \
    -fopenmp -o app main.o -L. -lkernels -L/usr/lib/llvm-19/lib -lomptarget \\\n    \
    -Wl,-rpath,/usr/lib/llvm-19/lib")]
pub struct Args {
    /// The host linker or compiler driver to run [default: clang-19, or clang-22 with --llvm 22]
    #[arg(long, value_name = "PROGRAM")]
    linker: Option<PathBuf>,
    /// The LLVM release whose linker wrapper to be: its device link steps (LLVM 22: clang
    /// links the device code, LTO included) and its registration objects
    #[arg(long, value_name = "VERSION", default_value_t = LlvmVersion::DEFAULT)]
    llvm: LlvmVersion,
    /// The host's target triple
    #[arg(long, value_name = "TRIPLE", default_value = DEFAULT_HOST_TRIPLE)]
    host_triple: String,
    /// Keep only the images for these targets: `<triple>[:<target-id>]`, comma-separated
    /// (default: every target found, or `OFFKIT_OFFLOAD_TARGETS`)
    #[arg(long, value_name = "LIST")]
    offload_targets: Option<String>,
    /// Run at most N device links at once (inside make's jobserver when there is one)
    #[arg(short, long, value_name = "N")]
    jobs: Option<std::num::NonZeroU32>,
    /// Say, for every device image, whether it was linked and why
    #[arg(long)]
    explain: bool,
    /// Write the link as a shell script that performs it again
    #[arg(long, value_name = "FILE")]
    emit_plan: Option<PathBuf>,
    /// An argument for every device link (`<triple>=<arg>`: only for that triple)
    #[arg(long, value_name = "ARG")]
    device_linker: Vec<String>,
    /// The device links' optimisation level (O0, O1, O2, O3)
    #[arg(short = 'O', long, value_name = "LEVEL", default_value = "O2")]
    opt_level: String,
    /// Link device code with debug information
    #[arg(short = 'g', long)]
    debug: bool,
    /// Keep intermediate files, named as LLVM does, in the current directory
    #[arg(long)]
    save_temps: bool,
    /// Print the commands without running them
    #[arg(long)]
    dry_run: bool,
    /// Print every command before running it
    #[arg(short, long)]
    verbose: bool,
    /// Only rename the offloading entry sections of FILE, the output of a relocatable link,
    /// as the last step of `-r` does (what `--emit-plan` scripts call)
    #[arg(long, value_name = "FILE", conflicts_with = "host")]
    finish_relocatable: Option<PathBuf>,
    /// The host link command line (after `--`)
    #[arg(
        last = true,
        required_unless_present = "finish_relocatable",
        value_name = "HOST LINK ARGS"
    )]
    host: Vec<OsString>,
}

/// Runs `offkit link`.
pub fn run(args: Args, env: &Env) -> Result<()> {
    if let Some(file) = &args.finish_relocatable {
        return Link::finish_relocatable(file, args.llvm).with_context(|| {
            format!("failed to finish the relocatable link `{}`", file.display())
        });
    }
    let host: Vec<String> = args
        .host
        .iter()
        .map(|a| {
            a.to_str()
                .map(str::to_string)
                .with_context(|| format!("argument `{}` is not UTF-8", a.to_string_lossy()))
        })
        .collect::<Result<_>>()?;
    let parsed = opts::parse(&host, args.llvm).context("cannot read the host link command line")?;
    if let Some(a) = parsed.args.iter().find(|a| a.opt.wrapper_only()) {
        bail!(
            "`{}` after `--` is an option of the linker wrapper; give offkit link's own options \
             before `--` (see `offkit link --help`)",
            a.render().join(" ")
        );
    }
    let linker = match args.linker {
        Some(l) => l,
        None => ToolFinder::new(env, None)
            .for_llvm(
                std::path::Path::new(args.llvm.debian_prefix()).join("bin"),
                args.llvm.major(),
            )
            .find("clang", None)?,
    };
    let mut config = LinkConfig::new(linker, host);
    config.llvm = args.llvm;
    config.host_triple = args.host_triple;
    // `-O3` and `-O O3` alike.
    let opt_level = match args.opt_level.strip_prefix('O') {
        Some(_) => args.opt_level.clone(),
        None => format!("O{}", args.opt_level),
    };
    match args.llvm {
        LlvmVersion::V19 => {
            config.opt_level = opt_level;
            config.device_debug = args.debug;
        }
        // LLVM 22's wrapper has no options of its own for these: clang-22 gives them to the
        // device links' clang (`--device-compiler=`).
        _ => {
            config.device_compiler.push(format!("-{opt_level}"));
            if args.debug {
                config.device_compiler.push("-g".into());
            }
        }
    }
    config.offload_targets = args.offload_targets;
    config.jobs = args.jobs.and_then(|j| usize::try_from(j.get()).ok());
    config.emit_plan = args.emit_plan;
    config.device_linker = args.device_linker;
    config.explain = args.explain;
    config.save_temps = args.save_temps;
    config.dry_run = args.dry_run;
    config.verbose = args.verbose;
    let argv0 = std::env::current_exe().ok();
    let link = Link::new(&config, env).context("link failed")?;
    let link = match &argv0 {
        Some(p) => link.with_argv0(p),
        None => link,
    };
    link.run().context("link failed")
}
