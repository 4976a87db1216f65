//! `offkit convert`: the device code of objects and static libraries converted between the old
//! driver's offload bundles and the new driver's offload binaries.

use anyhow::{Context, Result};
use offkit_llvm::LlvmVersion;
use offkit_surgery::{Perms, Target};
use offkit_tools::Env;

use super::rewrite::{Dest, Targets};
use crate::output::plural;

/// Convert objects and static libraries between the old driver's offload bundles and the new
/// driver's offload binaries, so they link with the other driver.
///
/// `--to offload-binary`: a fat object's `__CLANG_OFFLOAD_BUNDLE__<id>` sections (what
/// `clang --no-offload-new-driver -fgpu-rdc -c` writes) become one `.llvm.offloading` section
/// holding an offload binary per device image (offload kind from the bundle kind, image kind
/// bitcode or object from the contents, `triple` and `arch` strings in the order
/// `clang-offload-packager` writes them), which `clang-linker-wrapper` reads. An old-driver
/// HIP object's host code is made to register as a new-driver one's (x86-64): one offload
/// entry per kernel, the old constructor out of `.init_array`, so that a real link through the
/// linker wrapper registers its kernels; device variables, surfaces and textures are not
/// carried (a warning says so). `--llvm` names the release whose linker wrapper links the
/// result: 19 (HIP is offload kind 3, 32-byte entries in `hip_offloading_entries`) or 22 (kind
/// 4, 56-byte entries in `llvm_offload_entries`).
/// `--to bundle`: the reverse (the host entry written as the old driver writes it, one zero
/// byte). Archives: every member converted, the archive written again with its symbol table.
/// Nothing the host code refers to moves; the result is written beside the target and renamed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  offkit convert k.o --to offload-binary -o k-new.o\n  \
                        offkit convert libk.a --to offload-binary --in-place\n  \
                        offkit convert k.o --to offload-binary --llvm 22 -o k-new.o"
)]
pub struct Args {
    #[command(flatten)]
    targets: Targets,
    /// What to convert to.
    #[arg(long, value_name = "FORMAT", value_parser = ["offload-binary", "bundle"])]
    to: String,
    /// The LLVM release whose linker wrapper links the converted objects (19 or 22): how
    /// offload kinds are numbered and HIP offload entries laid out (`--to offload-binary`).
    #[arg(long = "llvm", value_name = "VERSION", default_value_t = LlvmVersion::DEFAULT)]
    llvm: LlvmVersion,
}

/// Runs `offkit convert`.
pub fn run(a: Args, _env: &Env) -> Result<()> {
    let dest = a.targets.dest(false)?;
    let to = if a.to == "bundle" {
        Target::Bundle
    } else {
        Target::OffloadBinary
    };
    let mut converted = 0;
    for f in &a.targets.files {
        let name = f.display().to_string();
        let data = std::fs::read(f).with_context(|| format!("cannot read {name}"))?;
        let meta = std::fs::metadata(f).with_context(|| format!("cannot read {name}"))?;
        let Some(c) = offkit_surgery::convert_file(&data, &name, to, a.llvm)? else {
            println!("{name}: nothing to convert");
            continue;
        };
        converted += 1;
        for s in &c.from {
            println!("  took out {s}");
        }
        for s in &c.to {
            println!("  put in {s}");
        }
        for w in &c.warnings {
            eprintln!("warning: {name}: {w}");
        }
        let target = match &dest {
            Dest::DryRun => {
                println!("{name}: would be converted");
                continue;
            }
            Dest::InPlace => f.clone(),
            Dest::To(o) => o.clone(),
        };
        let mut out = offkit_tools::fs::AtomicFile::create(&target)
            .with_context(|| format!("cannot write {}", target.display()))?;
        std::io::Write::write_all(out.file(), &c.bytes)
            .with_context(|| format!("cannot write {}", target.display()))?;
        Perms::of(&meta, matches!(dest, Dest::InPlace))
            .apply(&mut out)
            .with_context(|| format!("cannot write {}", target.display()))?;
        out.commit()
            .with_context(|| format!("cannot write {}", target.display()))?;
        println!("{name}: converted ({} bytes)", c.bytes.len());
    }
    println!("convert: {} converted", plural(converted, "file", "files"));
    Ok(())
}
