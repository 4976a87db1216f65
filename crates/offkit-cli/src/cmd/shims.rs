//! `offkit shims DIR`: make the links through which offkit answers to LLVM's tool names.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::dropin::Tool;
use offkit_tools::Env;

/// Make DIR/clang-offload-packager, DIR/clang-offload-bundler, DIR/clang-offload-wrapper and
/// DIR/clang-linker-wrapper, each running offkit under that name.
///
/// With the links in place, `clang-19 -B DIR` uses offkit instead of LLVM's tools. Existing
/// files of those names in DIR are replaced; nothing else in DIR is touched.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  offkit shims /tmp/offkit-bin\n  \
                        clang-19 -B /tmp/offkit-bin -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu p.c")]
pub struct Args {
    /// The directory to make the links in (created if missing).
    dir: PathBuf,
}

/// Runs `offkit shims`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("failed to find the offkit executable")?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    for tool in Tool::ALL {
        let link = args.dir.join(tool.name());
        // Make the link under a temporary name, then rename it over any old one.
        let tmp = args.dir.join(format!(".{}.offkit-tmp", tool.name()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&exe, &tmp)
            .with_context(|| format!("failed to create `{}`", tmp.display()))?;
        std::fs::rename(&tmp, &link)
            .with_context(|| format!("failed to create `{}`", link.display()))?;
        println!("{} -> {}", link.display(), exe.display());
    }
    Ok(())
}
