//! `offkit bundle`: write an offload bundle (binary, text, compressed, or fat object) from
//! per-target inputs, without running any external tool.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use offkit_bundle::io::{Input, Output};
use offkit_bundle::types::FileType;
use offkit_bundle::write::{self, Entry, Format};
use offkit_format::bundle::compressed::{self, Method};
use offkit_llvm::target_id::bundle::BundleEntryId;
use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

/// Write an offload bundle from per-target inputs.
///
/// Each `--target ID=FILE` adds one entry, in order. IDs are written in the standardised form
/// LLVM 19 writes: an ID ending in `-` is taken as already standardised
/// (`host-x86_64-unknown-linux-gnu-`), any other is standardised as LLVM does
/// (`hip-amdgcn-amd-amdhsa-gfx90a` → `hip-amdgcn-amd-amdhsa--gfx90a`,
/// `host-x86_64-unknown-linux-gnu` → `host-x86_64-unknown-linux-gnu-`); an unknown offload
/// kind or architecture is an error. Binary and text bundles stream their payloads
/// (gigabytes need no memory); `--compress` writes a compressed bundle (`CCOB`) byte for byte as
/// LLVM's bundler does with zstd and one thread: LLVM 19 at version 2 (the default), LLVM 22 at
/// `--ccob-version 3` (its default); `--type o` writes a fat
/// object in-process (the `host` entry's input must be an ELF object).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  offkit bundle --type bc \
    --target host-x86_64-unknown-linux-gnu-=host.bc \
    --target hip-amdgcn-amd-amdhsa--gfx90a=dev.bc -o fat.bc --compress")]
pub struct Args {
    /// An entry: its bundle entry ID and the file holding its payload (`-` is stdin).
    #[arg(short, long = "target", value_name = "ID=FILE", required = true)]
    targets: Vec<String>,
    /// The output file (`-` is stdout, refused on a terminal).
    #[arg(short, long)]
    output: PathBuf,
    /// The bundle type: bc/gch/ast/binary (binary), i/ii/cui/hipi/d/s/ll (text), o/object (fat
    /// object).
    #[arg(long = "type", default_value = "bc", value_name = "TYPE")]
    ty: String,
    /// Align every payload of a binary bundle to a multiple of N bytes (any N ≥ 1).
    #[arg(long, default_value_t = 1, value_name = "N")]
    align: u64,
    /// Compress the bundle (zstd unless `--method zlib`).
    #[arg(long)]
    compress: bool,
    /// The compression method.
    #[arg(long, value_parser = ["zstd", "zlib"], default_value = "zstd", requires = "compress")]
    method: String,
    /// The compression level (zstd: default 3, negative allowed, above 22 clamps; zlib: 0–9,
    /// default 6).
    #[arg(long, allow_negative_numbers = true, requires = "compress")]
    level: Option<i32>,
    /// The compressed bundle version: 2 (what LLVM 19 writes and reads, sizes below 4 GiB) or 3
    /// (what LLVM 22 writes by default; LLVM 19 cannot read it).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..=3), requires = "compress")]
    ccob_version: u16,
    /// zstd worker threads. Faster, but the bytes differ from LLVM's (which compresses on one
    /// thread); 0 or 1 keeps LLVM's bytes.
    #[arg(long, default_value_t = 0, value_name = "N", requires = "compress")]
    threads: u32,
}

/// Runs `offkit bundle`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let ty = FileType::parse(&args.ty).with_context(|| {
        format!(
            "unknown bundle type `{}` (known: {})",
            args.ty,
            offkit_bundle::types::NAMES
        )
    })?;
    if args.align == 0 {
        bail!("--align must be at least 1");
    }
    let mut pairs: Vec<(String, PathBuf)> = Vec::new();
    for t in &args.targets {
        let Some((id, file)) = t.rsplit_once('=') else {
            bail!("`--target {t}` is not ID=FILE");
        };
        if id.is_empty() {
            bail!("`--target {t}` has an empty ID");
        }
        // Any release's form and processors are read; the ID is written in LLVM 19's
        // standardised form, which both 19 and 22 read (22 would write `…-cuda-unknown-sm_70`).
        let parsed = BundleEntryId::parse_any(id.as_bytes());
        parsed
            .check()
            .map_err(|e| anyhow::anyhow!("`--target {t}`: {e}"))?;
        let id = if id.ends_with('-') {
            id.to_string()
        } else {
            String::from_utf8_lossy(&parsed.standardised_as(LlvmVersion::V19)).into_owned()
        };
        if let Some((prev, _)) = pairs.iter().find(|(p, _)| *p == id) {
            bail!("duplicate target ID `{prev}`");
        }
        pairs.push((id, PathBuf::from(file)));
    }
    let inputs: Vec<Input> = pairs
        .iter()
        .map(|(_, p)| Input::open(p).with_context(|| format!("failed to read `{}`", p.display())))
        .collect::<Result<_>>()?;
    let entries: Vec<Entry<'_>> = pairs
        .iter()
        .zip(&inputs)
        .map(|((id, _), input)| Entry {
            id: id.as_bytes(),
            input,
        })
        .collect();
    let format = match ty {
        FileType::Binary => Format::Binary { align: args.align },
        FileType::Text(c) => Format::Text(c),
        FileType::Object => Format::Object,
        FileType::Archive => bail!("archives can only be unbundled"),
    };
    if args.output.as_os_str() == "-" && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        bail!("refusing to write binary data to a terminal; redirect stdout or give `-o FILE`");
    }
    let mut out = Output::create(&args.output)
        .with_context(|| format!("failed to write `{}`", args.output.display()))?;
    if args.compress {
        if format == Format::Object {
            bail!("a fat object cannot be compressed (LLVM 19 ignores -compress for objects)");
        }
        let method = if args.method == "zlib" {
            Method::Zlib
        } else {
            Method::Zstd
        };
        let opts = compressed::Options {
            version: args.ccob_version,
            method,
            level: args
                .level
                .unwrap_or(if method == Method::Zstd { 3 } else { -1 }),
            threads: if args.threads > 1 { args.threads } else { 0 },
            wrap_sizes: false,
        };
        write::compressed(&entries, format, &opts, &mut out)?;
    } else {
        match format {
            Format::Binary { align } => write::binary(&entries, align, &mut out)?,
            Format::Text(c) => write::text(&entries, c, &mut out)?,
            Format::Object => {
                let host = pairs
                    .iter()
                    .position(|(id, _)| id.starts_with("host-"))
                    .context(
                        "a fat object needs a `host-…` entry whose input is the host object",
                    )?;
                write::object(&entries, host, &mut out)?;
            }
        }
    }
    out.commit()
        .with_context(|| format!("failed to write `{}`", args.output.display()))?;
    Ok(())
}
