//! `offkit wrap`: write a host object that embeds device images and registers them with the
//! offload runtime (LLVM 19's or LLVM 22's registration object, or AMD's image-info
//! `clang-offload-wrapper` one), or the same module as LLVM IR.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_llvm::LlvmVersion;
use offkit_tools::{Env, MappedFile};
use offkit_wrap::{compressed, Image, Kind, Large, Order, WrapOptions, Wrapper};

use crate::output::write_atomic_with;

/// Write a host object that embeds device images and registers them with the offload runtime.
///
/// The object is what the `clang-linker-wrapper` of LLVM 19 (or, with `--llvm 22`, of LLVM 22)
/// compiles from its wrapper module (section by section, symbol by symbol), written directly:
/// for OpenMP a `__tgt_bin_desc` over offload binaries registered with libomptarget at
/// start-up; for CUDA and HIP the fatbinary and the registration of every kernel and variable
/// in the entry table (LLVM 19: `<kind>_offloading_entries`; LLVM 22: the kind's entries of
/// `llvm_offload_entries`). Link it with host objects compiled by the same LLVM release.
///
/// Images are laid out in LLVM 19's order — clang-linker-wrapper sorts them by triple and arch
/// (descending) with a comparator that is not a strict order, and offkit reproduces the result
/// exactly — unless `--order=given` keeps the command-line order. Image files are memory-mapped
/// and streamed to the output; images over 1 GiB in total use a `.lrodata` layout that GNU ld
/// and lld can link (LLVM 19's own does not link with GNU ld past 2 GiB).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    offkit wrap --host-triple x86_64-pc-linux-gnu --kind openmp -o wrapper.o \\\n    \
    --image file=device.so,triple=x86_64-pc-linux-gnu\n  \
    offkit wrap --host-triple x86_64-pc-linux-gnu --kind hip -o hip.o \\\n    \
    --image file=a.out,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+")]
pub struct Args {
    /// The LLVM release whose registration object is written (19 or 22): its entry table,
    /// entry layout and offload binaries.
    #[arg(long = "llvm", value_name = "VERSION", default_value_t = LlvmVersion::DEFAULT)]
    llvm: LlvmVersion,
    /// The host target triple (x86_64 or aarch64, ELF).
    #[arg(long, value_name = "TRIPLE")]
    host_triple: String,
    /// The offload kind: which runtime registers the images.
    #[arg(long, value_enum)]
    kind: KindArg,
    /// A device image, in clang-offload-packager's form: `file=F,triple=T[,arch=A][,kind=K]`
    /// (a repeated `file=` adds one image per file). As with the packager, a key left out is
    /// not recorded: `arch=` gives the empty arch LLVM's device links record, no `arch` none
    /// (as LLVM does for an `--override-image` without a CPU). CUDA takes one fatbinary; HIP
    /// takes AMD GPU code objects, or one ready-made offload bundle.
    #[arg(long = "image", value_name = "KEY=VALUE,...", required = true)]
    images: Vec<String>,
    /// The output file (`-` is stdout; an object is refused on a terminal).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// OpenMP: put the images in `.llvm.offloading.relocatable` (LLVM's `-r` mode).
    #[arg(long)]
    relocatable: bool,
    /// OpenMP: write AMD's image-info `clang-offload-wrapper` object (raw images, a
    /// `__tgt_image_info` and target-ID string per image, registered with
    /// `__tgt_register_image_info` when the runtime has it).
    #[arg(long)]
    image_info: bool,
    /// What to write: the object, or the equivalent LLVM IR text.
    #[arg(long, value_enum, default_value = "object")]
    emit: Emit,
    /// The image order: LLVM 19's, or as given.
    #[arg(long, value_enum, default_value = "llvm19")]
    order: OrderArg,
    /// The large-image layout: past 1 GiB of images (auto), never, or always.
    #[arg(long, value_enum, default_value = "auto")]
    large: LargeArg,
    /// HIP: compress the offload bundle as `clang-linker-wrapper --compress` does (zstd;
    /// compressed bundle version 2 for LLVM 19, 3 for LLVM 22).
    #[arg(long)]
    compress: bool,
    /// HIP: the zstd level with `--compress` (LLVM's `--compression-level`).
    #[arg(
        long,
        value_name = "N",
        requires = "compress",
        allow_negative_numbers = true
    )]
    compression_level: Option<i32>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum KindArg {
    Openmp,
    Cuda,
    Hip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Emit {
    Object,
    Llvm,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OrderArg {
    Llvm19,
    Given,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LargeArg {
    Auto,
    Never,
    Always,
}

/// One `--image` after parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ImageArg {
    files: Vec<String>,
    triple: String,
    arch: Option<String>,
    kind: Option<String>,
}

/// Parses `file=F,triple=T,...` as clang-offload-packager does: split on `,`, each piece at its
/// first `=` (no `=`: an empty value); a repeated key joins its values with `,`. `file` and
/// `triple` are required; only `file`, `triple`, `arch` and `kind` are known.
fn parse_image(arg: &str) -> Result<ImageArg> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for piece in arg.split(',') {
        let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
        match keys.iter_mut().find(|(key, _)| key == k) {
            Some((_, val)) => {
                val.push(',');
                val.push_str(v);
            }
            None => keys.push((k.to_string(), v.to_string())),
        }
    }
    let get = |k: &str| {
        keys.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    if let Some((k, _)) = keys
        .iter()
        .find(|(k, _)| !["file", "triple", "arch", "kind"].contains(&k.as_str()))
    {
        bail!("`--image {arg}`: unknown key `{k}` (known: file, triple, arch, kind)");
    }
    let (Some(files), Some(triple)) = (get("file"), get("triple")) else {
        bail!("`--image {arg}`: `file` and `triple` are required");
    };
    Ok(ImageArg {
        files: files.split(',').map(str::to_string).collect(),
        triple,
        arch: get("arch"),
        kind: get("kind"),
    })
}

/// Runs `offkit wrap`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let kind = match args.kind {
        KindArg::Openmp => Kind::OpenMp,
        KindArg::Cuda => Kind::Cuda,
        KindArg::Hip => Kind::Hip,
    };
    let kind_name = format!("{:?}", args.kind).to_lowercase();
    let mut specs = Vec::new();
    for arg in &args.images {
        let spec = parse_image(arg)?;
        if let Some(k) = &spec.kind {
            if *k != kind_name {
                bail!("`--image {arg}` says kind `{k}`, but `--kind {kind_name}` was given");
            }
        }
        for f in &spec.files {
            specs.push((f.clone(), spec.triple.clone(), spec.arch.clone()));
        }
    }
    let mut maps = Vec::with_capacity(specs.len());
    for (f, _, _) in &specs {
        let map = if f == "-" {
            MappedFile::stdin().context("failed to read standard input")?
        } else {
            MappedFile::open(Path::new(f)).with_context(|| format!("failed to read `{f}`"))?
        };
        maps.push(map);
    }
    let images: Vec<Image> = specs
        .iter()
        .zip(&maps)
        .map(|((f, t, a), m)| match a {
            Some(a) => Image::new(m, t, a).named(f),
            None => Image::new(m, t, "").without_arch().named(f),
        })
        .collect();
    let opts = WrapOptions {
        llvm: args.llvm,
        relocatable: args.relocatable,
        image_info: args.image_info,
        order: match args.order {
            OrderArg::Llvm19 => Order::Llvm19,
            OrderArg::Given => Order::AsGiven,
        },
        large: match args.large {
            LargeArg::Auto => Large::Auto,
            LargeArg::Never => Large::Never,
            LargeArg::Always => Large::Always,
        },
        hip_compress: args.compress.then(|| compressed::Options {
            version: match args.llvm {
                LlvmVersion::V19 => 2,
                _ => 3,
            },
            level: args
                .compression_level
                .unwrap_or(compressed::Options::default().level),
            ..compressed::Options::default()
        }),
        ..WrapOptions::new(args.host_triple.clone(), kind)
    };
    let wrapper = Wrapper::new(&images, &opts)?;
    let emit = args.emit;
    let fill = |w: &mut dyn Write| -> io::Result<()> {
        let r = match emit {
            Emit::Object => wrapper.write_object(w),
            Emit::Llvm => wrapper.write_llvm_ir(w),
        };
        r.map_err(io::Error::other)
    };
    if args.output.as_os_str() == "-" {
        let stdout = io::stdout();
        if emit == Emit::Object && stdout.is_terminal() {
            bail!("refusing to write an object to a terminal; redirect stdout or give `-o FILE`");
        }
        let mut out = io::BufWriter::with_capacity(1 << 20, stdout.lock());
        fill(&mut out).context("failed to write to standard output")?;
        out.flush().context("failed to write to standard output")?;
        return Ok(());
    }
    write_atomic_with(&args.output, fill)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_args() {
        let a = parse_image("file=a.o,triple=x86_64-pc-linux-gnu").unwrap();
        assert_eq!(a.files, ["a.o"]);
        assert_eq!(a.arch, None);
        let b = parse_image("triple=amdgcn-amd-amdhsa,arch=gfx90a,file=x,file=y,kind=hip").unwrap();
        assert_eq!(b.files, ["x", "y"]);
        assert_eq!(b.kind.as_deref(), Some("hip"));
        assert!(parse_image("file=a.o").is_err());
        let e = parse_image("file=a,triple=t,feature=+x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key `feature`"), "{e}");
    }
}
