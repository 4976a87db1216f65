//! `offkit shims DIR`: make the links through which offkit answers to LLVM's tool names.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::dropin::{Tool, SHIM_MARKER, VERSION_VAR};
use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

/// Make links in DIR through which offkit answers to the names of one LLVM version's offloading
/// tools.
///
/// LLVM 19: clang-offload-packager, clang-offload-bundler, clang-linker-wrapper,
/// clang-nvlink-wrapper, amdgpu-arch, nvptx-arch. LLVM 22 adds llvm-offload-binary,
/// llvm-offload-wrapper and offload-arch. Both get clang-offload-wrapper (AMD's image-info
/// registration tool). `--with-objdump` adds `llvm-objdump`, whose face does `--offloading`
/// only (clang never runs it, and other `llvm-objdump` options through the shims would fail). With
/// the links in place, `clang-19 -B DIR` (or `clang-22 -B DIR` for
/// shims made with `--llvm 22`) uses offkit instead of LLVM's tools. The version is kept in
/// DIR/.offkit-llvm; OFFKIT_LLVM=19|22 overrides it. Existing files of those names in DIR are
/// replaced, and links of the other version's tools removed; nothing else in DIR is touched.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit shims /tmp/offkit-bin\n  \
                        clang-19 -B /tmp/offkit-bin -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu p.c\n  \
                        offkit shims --llvm 22 /tmp/offkit-22\n  \
                        clang-22 -B /tmp/offkit-22 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu p.c\n  \
                        offkit shims --llvm 22 --with-objdump /tmp/objdump-22\n  \
                        PATH=/tmp/objdump-22:$PATH llvm-objdump --offloading k.o")]
pub struct Args {
    /// The LLVM version the faces are: 19 or 22.
    #[arg(long = "llvm", value_name = "VERSION", default_value_t = LlvmVersion::DEFAULT)]
    llvm: LlvmVersion,
    /// Also link `llvm-objdump` (its face does `--offloading` only, and refuses every other
    /// option: only for a directory that is first on `PATH` for `llvm-objdump --offloading`).
    #[arg(long)]
    with_objdump: bool,
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
    let marker = args.dir.join(SHIM_MARKER);
    offkit_tools::fs::write_file(&marker, format!("{}\n", args.llvm).as_bytes())
        .with_context(|| format!("failed to write `{}`", marker.display()))?;
    let extra = args.with_objdump.then_some(Tool::Objdump);
    let linked: Vec<Tool> = Tool::shipped_in(args.llvm).chain(extra).collect();
    for tool in Tool::ALL.into_iter().filter(|t| !linked.contains(t)) {
        let link = args.dir.join(tool.name());
        // Only a link of ours to this executable is taken away.
        if std::fs::read_link(&link).is_ok_and(|target| target == exe) {
            std::fs::remove_file(&link)
                .with_context(|| format!("failed to remove `{}`", link.display()))?;
        }
    }
    for tool in linked {
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
    println!(
        "LLVM {} faces ({} overrides: {VERSION_VAR}=19 or 22)",
        args.llvm,
        marker.display()
    );
    Ok(())
}
