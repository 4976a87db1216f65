//! `offkit list`: list the entries of an offload bundle (binary, text, compressed, fat object,
//! or an archive of them), strictly checked.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;

use offkit_bundle::archive;
use offkit_bundle::io::Input;
use offkit_bundle::read::{self, Bundle, Kind};
use offkit_bundle::types::FileType;
use offkit_format::scan::Compressed;
use offkit_read::limits::MAX_INFLATED_SIZE;
use offkit_tools::Env;

/// List the entries of an offload bundle.
///
/// Prints one line per entry: its offset and size in the (decompressed) bundle, and its ID, in
/// file order. A compressed bundle is decompressed and its hash checked; concatenated
/// compressed bundles are listed one after another. For an archive, each member that holds a
/// bundle is listed as `lib.a(member)`. Malformed bundles are errors that name the offset.
///
/// For an ELF object, executable or shared library with a `.hip_fatbin` section (HIP: one
/// bundle per translation unit), every entry of every bundle there is listed, prefixed with
/// `.hip_fatbin[N]`, the bundle's index; compressed bundles are decompressed only as far as
/// their entry tables (no hash check: `offkit extract` checks it). A file holding such a
/// section's bytes (`llvm-objcopy --dump-section=.hip_fatbin=FILE`: several bundles, plain or
/// compressed, with zero padding between them) is listed the same way, prefixed with `[N]`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  offkit list fat.bc\n  offkit list --json libdev.a")]
pub struct Args {
    /// The bundle (`-` is stdin).
    input: PathBuf,
    /// The container type, if not detected: bc/binary, i/ii/cui/hipi/d/s/ll (text), o/object,
    /// a/archive.
    #[arg(long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Print JSON (`schema_version` 1; offsets are integers).
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct JsonEntry {
    member: Option<String>,
    /// For a `.hip_fatbin` section: the bundle's index in it.
    bundle: Option<usize>,
    id: String,
    kind: &'static str,
    offset: u64,
    size: u64,
    host_marker: bool,
    compressed: Option<JsonCompressed>,
}

#[derive(Serialize)]
struct JsonCompressed {
    offset: u64,
    version: u16,
    method: &'static str,
    uncompressed_size: u64,
}

#[derive(Serialize)]
struct JsonList {
    schema_version: u32,
    file: String,
    entries: Vec<JsonEntry>,
}

/// Opens `input` as a bundle or an archive of bundles: `(member name, bundle)` pairs.
pub fn open_all(
    input: &std::path::Path,
    ty: Option<&str>,
) -> Result<Vec<(Option<String>, Bundle)>> {
    let ty = match ty {
        Some(t) => Some(FileType::parse(t).with_context(|| {
            format!(
                "unknown bundle type `{t}` (known: {})",
                offkit_bundle::types::NAMES
            )
        })?),
        None => None,
    };
    let file =
        Input::open(input).with_context(|| format!("failed to read `{}`", input.display()))?;
    let is_archive = match ty {
        Some(FileType::Archive) => true,
        Some(_) => false,
        None => archive::is_archive(file.bytes()),
    };
    let kind = match ty {
        Some(FileType::Binary) => Some(Kind::Binary),
        Some(FileType::Text(c)) => Some(Kind::Text(c)),
        Some(FileType::Object) => Some(Kind::Object),
        _ => None,
    };
    if !is_archive {
        return Ok(vec![(
            None,
            read::open_input(file, kind, MAX_INFLATED_SIZE)?,
        )]);
    }
    let members = archive::read_members(file.bytes())
        .with_context(|| format!("`{}` is not a valid archive", input.display()))?;
    let mut out = Vec::new();
    for (name, data) in members {
        let name = String::from_utf8_lossy(&name).into_owned();
        let label = format!("{}({name})", input.display());
        let member = Input::from_bytes(&label, data.to_vec());
        if read::detect(data).is_none() && !data.starts_with(b"CCOB") {
            continue; // members without bundles are skipped, as LLVM does
        }
        let b = read::open_input(member, None, MAX_INFLATED_SIZE)?;
        out.push((Some(name), b));
    }
    Ok(out)
}

/// Where the bundles [`hip_fatbin_rows`] lists are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sequence {
    /// In an ELF file's `.hip_fatbin` section.
    Section,
    /// The file itself: a `.hip_fatbin` section's bytes, several bundles.
    File,
}

/// The entries of the bundles of an ELF file's `.hip_fatbin` section (a HIP library holds one
/// bundle per translation unit there), or of a file that holds such a section's bytes (more
/// than one bundle), read by the container walker — compressed bundles only as far as their
/// entry tables; `None` if `input` is neither.
fn hip_fatbin_rows(input: &std::path::Path) -> Result<Option<(Vec<JsonEntry>, Sequence)>> {
    use offkit_bundle::walk::{walk_file, ScanOptions};
    use offkit_format::bundle::sequence::sequence;
    use offkit_format::scan::{Event, Step};
    // Through the one input opener, which refuses what is not a regular file at once (a FIFO
    // would block a plain open); such an input is then reported by `open_all`.
    let Ok(map) = offkit_tools::MappedFile::open(input) else {
        return Ok(None);
    };
    let within = if map.starts_with(b"\x7fELF") {
        Sequence::Section
    } else if sequence(&map, 0).take(2).filter(Result::is_ok).count() == 2 {
        // A single bundle is read by the bundler's reader, as LLVM reads it.
        Sequence::File
    } else {
        return Ok(None);
    };
    drop(map);
    let mut rows = Vec::new();
    walk_file::<anyhow::Error>(input, ScanOptions::images(), &mut |ev| {
        if let Event::Image(img) = ev {
            let i = img.info;
            let top = match within {
                Sequence::Section => {
                    i.location.steps.get(1) == Some(&Step::Section(".hip_fatbin".into()))
                }
                Sequence::File => matches!(i.location.steps.get(1), Some(Step::Bundle(_))),
            };
            if let (true, Some(b)) = (top, i.bundle) {
                let id = match &i.source {
                    offkit_format::scan::Source::BundleEntry { id } => id.clone(),
                    _ => return Ok(()),
                };
                let compressed = i.compression.and_then(|c| match c.format {
                    Compressed::Ccob { version, method } => Some(JsonCompressed {
                        offset: c.offset,
                        version,
                        method: method.name(),
                        uncompressed_size: c.uncompressed_size,
                    }),
                    _ => None,
                });
                rows.push(JsonEntry {
                    member: None,
                    bundle: Some(b.index),
                    id,
                    kind: "binary",
                    offset: i.offset,
                    size: i.size,
                    host_marker: false,
                    compressed,
                });
            }
        }
        Ok(())
    })?;
    Ok((!rows.is_empty()).then_some((rows, within)))
}

/// Runs `offkit list`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    if args.ty.is_none() && args.input.as_os_str() != "-" {
        if let Some((rows, within)) = hip_fatbin_rows(&args.input)? {
            return print(&args, rows, within);
        }
    }
    let all = open_all(&args.input, args.ty.as_deref())?;
    let mut rows = Vec::new();
    for (member, b) in &all {
        for e in &b.entries {
            let part = &b.parts[e.part];
            rows.push(JsonEntry {
                member: member.clone(),
                bundle: None,
                id: e.id_str(),
                kind: part.kind.name(),
                offset: e.offset,
                size: e.size,
                host_marker: e.host_marker,
                compressed: part.compressed.as_ref().map(|h| JsonCompressed {
                    offset: h.offset,
                    version: h.version,
                    method: h.method.name(),
                    uncompressed_size: h.uncompressed_size,
                }),
            });
        }
    }
    print(&args, rows, Sequence::Section)
}

fn print(args: &Args, rows: Vec<JsonEntry>, within: Sequence) -> Result<()> {
    let mut out = String::new();
    if args.json {
        let doc = JsonList {
            schema_version: 1,
            file: args.input.display().to_string(),
            entries: rows,
        };
        out = serde_json::to_string_pretty(&doc)?;
        out.push('\n');
    } else {
        for r in &rows {
            let mut place = match &r.compressed {
                Some(c) => format!("ccob@{:#x}+", c.offset),
                None => String::new(),
            };
            if let Some(b) = r.bundle {
                let section = if within == Sequence::Section {
                    ".hip_fatbin"
                } else {
                    ""
                };
                place.insert_str(0, &format!("{section}[{b}] "));
            }
            let member = r
                .member
                .as_deref()
                .map(|m| format!("{m}: "))
                .unwrap_or_default();
            let host = if r.host_marker { " (host object)" } else { "" };
            out.push_str(&format!(
                "{place}{:#010x} {:>12}  {member}{}{host}\n",
                r.offset, r.size, r.id
            ));
        }
    }
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
