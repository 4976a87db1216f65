//! `offkit unbundle`: extract per-target files from an offload bundle, a fat object, or an
//! archive of them, without running any external tool.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_bundle::archive;
use std::io::Write;

use offkit_bundle::io::Output;
use offkit_bundle::read::Bundle;
use offkit_tools::fs::Outputs;
use offkit_tools::Env;

/// Extract per-target files from an offload bundle.
///
/// Each `--target ID=FILE` writes the payload of the entry with that ID (as `offkit list`
/// shows it; else the entry with the target's standardised ID, else the one entry LLVM 19's
/// target-ID compatibility rule accepts, e.g. `gfx90a` for a `gfx90a:xnack+` target) to FILE; `--output-dir DIR` writes every entry to `DIR/<ID>` (`:` as `_`).
/// Payloads are copied by the kernel, never held in memory; a fat object's host entry gives
/// the object without its bundle sections. For an archive input, each target's output is an
/// archive of that target's code objects from every member, named as LLVM names them
/// (`<member stem>-<ID><member stem><ext>`). Every target is checked before anything is
/// written.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  offkit unbundle fat.bc --target hip-amdgcn-amd-amdhsa--gfx90a=dev.bc\n  \
                        offkit unbundle fat.o --output-dir parts/"
)]
pub struct Args {
    /// The bundle (`-` is stdin).
    input: PathBuf,
    /// An entry to extract and where (`-` is stdout).
    #[arg(short, long = "target", value_name = "ID=FILE")]
    targets: Vec<String>,
    /// Extract every entry into this directory instead.
    #[arg(long, value_name = "DIR", conflicts_with = "targets")]
    output_dir: Option<PathBuf>,
    /// The container type, if not detected: bc/binary, i/ii/cui/hipi/d/s/ll (text), o/object,
    /// a/archive.
    #[arg(long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Write an empty file (an empty archive for archive inputs) for a target with no entry
    /// instead of failing.
    #[arg(long)]
    allow_missing: bool,
}

/// The file name for an entry ID: `:` and `/` replaced by `_`.
fn file_name_for(id: &str) -> String {
    id.replace([':', '/'], "_")
}

/// LLVM's member name for a code object unbundled from archive member `member` with ID `id`.
fn archive_member_name(member: &str, id: &str) -> String {
    let file = Path::new(member)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let p = Path::new(&file);
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = if id.contains("gfx") {
        ".bc".to_string()
    } else if id.contains("sm_") {
        ".cubin".to_string()
    } else {
        p.extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default()
    };
    format!("{stem}-{id}{stem}{ext}").replace(':', "_")
}

/// Runs `offkit unbundle`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let all = super::list::open_all(&args.input, args.ty.as_deref())?;
    let is_archive = all.iter().any(|(m, _)| m.is_some())
        || args
            .ty
            .as_deref()
            .is_some_and(|t| t == "a" || t == "archive");
    let mut wanted: Vec<(String, PathBuf)> = Vec::new();
    if let Some(dir) = &args.output_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create `{}`", dir.display()))?;
        for (_, b) in &all {
            for e in &b.entries {
                let id = e.id_str();
                if !wanted.iter().any(|(w, _)| *w == id) {
                    let suffix = if is_archive { ".a" } else { "" };
                    wanted.push((id.clone(), dir.join(file_name_for(&id) + suffix)));
                }
            }
        }
    } else {
        if args.targets.is_empty() {
            bail!("nothing to extract: give `--target ID=FILE` or `--output-dir DIR`");
        }
        for t in &args.targets {
            let Some((id, file)) = t.rsplit_once('=') else {
                bail!("`--target {t}` is not ID=FILE");
            };
            if wanted.iter().any(|(w, _)| w == id) {
                bail!("duplicate target ID `{id}`");
            }
            wanted.push((id.to_string(), PathBuf::from(file)));
        }
    }
    if wanted.iter().any(|(_, p)| p.as_os_str() == "-")
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        bail!("refusing to write binary data to a terminal; redirect stdout or name a file");
    }
    if is_archive {
        return unbundle_archive(&args, &all, &wanted);
    }
    let Some((_, bundle)) = all.first() else {
        bail!("`{}` holds no bundle", args.input.display());
    };
    // Check every target first, so that a missing one leaves no output behind.
    let mut plan = Vec::new();
    for (id, path) in &wanted {
        let found = bundle
            .find_target(id.as_bytes())
            .map_err(|m| anyhow::anyhow!("`{}`: {m}", args.input.display()))?;
        match found {
            Some(e) => plan.push((Some(e), path)),
            None if args.allow_missing => plan.push((None, path)),
            None => bail!(missing(&args.input, id, bundle)),
        }
    }
    // Every output is written before any is renamed into place: a failure on the last leaves
    // none of them behind.
    let mut outputs = Outputs::default();
    for (entry, path) in plan {
        let mut out = Output::create(path)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        if let Some(e) = entry {
            bundle.extract(e, &mut out)?;
        }
        outputs.push(out);
    }
    commit(outputs)
}

/// Commits `outputs` together, naming the one that failed.
fn commit(outputs: Outputs) -> Result<()> {
    outputs.commit().map_err(|(path, e)| {
        anyhow::Error::new(e).context(format!("failed to write `{}`", path.display()))
    })
}

fn missing(input: &Path, id: &str, bundle: &Bundle) -> String {
    let have: Vec<String> = bundle.entries.iter().map(|e| e.id_str()).collect();
    format!(
        "`{}` has no entry `{id}` (it has: {})",
        input.display(),
        have.join(", ")
    )
}

/// The members of one output archive: name and bytes.
type Members = Vec<(String, Vec<u8>)>;

fn unbundle_archive(
    args: &Args,
    all: &[(Option<String>, Bundle)],
    wanted: &[(String, PathBuf)],
) -> Result<()> {
    let mut plans: Vec<(Members, &PathBuf)> = Vec::new();
    for (id, path) in wanted {
        let mut members = Vec::new();
        for (member, b) in all {
            let member = member.as_deref().unwrap_or_default();
            let found = b
                .find_target(id.as_bytes())
                .map_err(|m| anyhow::anyhow!("`{}({member})`: {m}", args.input.display()))?;
            if let Some(e) = found {
                // Archive members are written whole, so the payload is collected in memory.
                let mut bytes: Vec<u8> = Vec::new();
                if e.host_marker {
                    offkit_bundle::fatobj::strip_bundle_sections(
                        b.parts[e.part].input.bytes(),
                        &mut bytes,
                    )
                    .with_context(|| {
                        format!("failed to strip `{}({member})`", args.input.display())
                    })?;
                } else {
                    let data = b.parts[e.part].input.bytes();
                    let range = e.offset as usize..(e.offset + e.size) as usize;
                    bytes.extend_from_slice(data.get(range).unwrap_or_default());
                }
                members.push((archive_member_name(member, id), bytes));
            }
        }
        if members.is_empty() && !args.allow_missing {
            bail!(
                "no member of `{}` has an entry `{id}`",
                args.input.display()
            );
        }
        plans.push((members, path));
    }
    let mut outputs = Outputs::default();
    for (members, path) in plans {
        let refs: Vec<(String, &[u8])> = members.iter().map(|(n, b)| (n.clone(), &b[..])).collect();
        let bytes = archive::write(&refs).context("failed to build the archive")?;
        let context = || format!("failed to write `{}`", path.display());
        let mut out = Output::create(path).with_context(context)?;
        out.write_all(&bytes).with_context(context)?;
        outputs.push(out);
    }
    commit(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_member_names() {
        assert_eq!(
            archive_member_name("k1.o", "hip-amdgcn-amd-amdhsa--gfx90a"),
            "k1-hip-amdgcn-amd-amdhsa--gfx90ak1.bc"
        );
        assert_eq!(
            archive_member_name("dir/k.o", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"),
            "k-hip-amdgcn-amd-amdhsa--gfx906_xnack+k.bc"
        );
        assert_eq!(
            archive_member_name("k.o", "host-x86_64-pc-linux-gnu-"),
            "k-host-x86_64-pc-linux-gnu-k.o"
        );
        assert_eq!(file_name_for("a:b/c"), "a_b_c");
    }
}
