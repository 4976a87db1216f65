//! `offkit check`: which image each device would load from each file, and which devices a file
//! leaves without code.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use offkit_format::device::{Device, Fit};
use offkit_format::scan::{EntryTables, Event, ImageInfo, Location, Source, Step};
use offkit_tools::Env;

use super::inspect::{input_error, walk_file, InputError};
use crate::output::{plural, print_error};
use crate::select::{is_device_code, parse_device};

/// Check which devices the device code of files covers.
///
/// For each file and each device, the image that would be loaded, by the target-ID
/// compatibility rules: on AMD GPUs the device's processor or its generic target
/// (`gfx9-generic` for `gfx906`), every feature the image sets (`xnack+`, `sramecc-`) set the
/// same way on the device, a feature the image leaves out being "any" (a device written without
/// a feature, `gfx90a`, takes only images that leave it out); on NVIDIA GPUs a cubin of the
/// same major version and a minor no greater than the device's, else PTX of an earlier
/// version, which the driver compiles at load time (said as such); for a triple or architecture
/// (`x86_64`), an image for it. Of several candidates the closest wins (own processor over
/// generic, more matching features, closer SM). When no image would load, one line names the
/// file, the device, what the file holds and the compile flag that adds it.
///
/// Directories are searched recursively for objects, archives, libraries and bundles (a
/// wheel's unpacked `lib/`); files in them without device code are skipped. The exit status is
/// 0 only when every device is covered in every file with device code.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  offkit check libk.so --device gfx90a:xnack-,gfx1100\n  \
                        offkit check site-packages/torch/lib --device gfx942:xnack-,gfx1100 --json"
)]
pub struct Args {
    /// The files (objects, archives, executables, shared libraries, bundles) or directories to
    /// check.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The devices, comma-separated or repeated: AMD GPU target IDs (`gfx90a:xnack-`,
    /// `gfx1100`), NVIDIA architectures (`sm_80`), architectures or triples (`x86_64`).
    #[arg(long, short = 'd', required = true, value_name = "ID", value_delimiter = ',',
          value_parser = parse_device)]
    device: Vec<Device>,
    /// Print JSON (`"schema_version": 1`, documented in docs/check.md).
    #[arg(long)]
    json: bool,
}

/// The first bytes of the files `check` looks at inside directories.
const MAGICS: &[&[u8]] = &[
    b"\x7fELF",
    b"!<arch>\n",
    b"!<thin>\n",
    b"__CLANG_OFFLOAD_BUNDLE__",
    b"CCOB",
    b"\x10\xff\x10\xad",
    b"BC\xc0\xde",
];

/// Whether the file at `p` starts like a container `check` reads (opened through the one input
/// opener: a FIFO or device found in a directory is passed over, never waited on).
fn looks_like_container(p: &Path) -> bool {
    offkit_tools::MappedFile::open(p).is_ok_and(|m| MAGICS.iter().any(|x| m.starts_with(x)))
}

/// The files under `dir` that look like containers, sorted, recursively (symbolic links to
/// directories are not followed). A symbolic link to a file is kept only when that file is not
/// found itself (`libk.so.1 -> libk.so.1.1` is checked once, as `libk.so.1.1`).
fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    collect(dir, &mut found)?;
    let real: std::collections::BTreeSet<PathBuf> = found
        .iter()
        .filter(|(_, link)| !link)
        .filter_map(|(p, _)| std::fs::canonicalize(p).ok())
        .collect();
    let mut linked = std::collections::BTreeSet::new();
    Ok(found
        .into_iter()
        .filter(|(p, link)| {
            !link || std::fs::canonicalize(p).is_ok_and(|c| !real.contains(&c) && linked.insert(c))
        })
        .map(|(p, _)| p)
        .collect())
}

/// Every file under `dir` that looks like a container, with whether it is a symbolic link.
fn collect(dir: &Path, out: &mut Vec<(PathBuf, bool)>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("failed to read the directory `{}`", dir.display()))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            collect(&p, out)?;
        } else if (t.is_file() || t.is_symlink()) && p.is_file() && looks_like_container(&p) {
            out.push((p, t.is_symlink()));
        }
    }
    Ok(())
}

/// What one device gets from one file.
#[derive(Debug, Serialize)]
struct Verdict<'a> {
    device: String,
    /// `covered`, `missing`, or `n/a` (a file found in a directory that holds no code for this
    /// kind of device at all, such as a CUDA library for an AMD GPU).
    status: &'static str,
    covered: bool,
    image: Option<ImageJson<'a>>,
    fit: Option<&'static str>,
    reason: Option<String>,
    /// The compile flag that adds code for the device, when it is missing.
    flag: Option<String>,
    /// When some bundles (translation units) have an image for the device and others do not:
    /// those that do not.
    bundles_without: Vec<String>,
}

#[derive(Debug, Serialize)]
struct ImageJson<'a> {
    location: String,
    offload_kind: &'a str,
    image_kind: String,
    triple: &'a str,
    target_id: &'a str,
    size: u64,
}

#[derive(Debug, Serialize)]
struct FileJson<'a> {
    path: String,
    /// What the file holds, per offload kind and triple.
    available: Vec<String>,
    devices: Vec<Verdict<'a>>,
    error: Option<InputError>,
}

#[derive(Debug, Serialize)]
struct Document<'a> {
    schema_version: u32,
    devices: Vec<String>,
    files: Vec<FileJson<'a>>,
    /// Devices for which no file (of those found in directories) holds code of their kind.
    nowhere: Vec<String>,
    /// Files found in directories that hold no device code.
    skipped: Vec<String>,
    covered: bool,
}

fn fit_name(f: &Fit) -> &'static str {
    match f {
        Fit::Exact => "exact",
        Fit::Any { .. } => "any",
        Fit::Generic { .. } => "generic",
        Fit::Cubin { .. } => "cubin",
        Fit::Ptx { .. } => "ptx",
        Fit::Triple => "triple",
    }
}

/// The image `device` would load from `images`: the best fit, the first in file order among
/// equals.
fn best<'i>(
    device: &Device,
    images: impl IntoIterator<Item = &'i ImageInfo>,
) -> Option<(&'i ImageInfo, Fit)> {
    let mut found: Option<(&ImageInfo, Fit)> = None;
    for i in images {
        if let Some(f) = device.fit(&i.triple, &i.target_id, i.image_kind) {
            if found.as_ref().is_none_or(|(_, g)| f.rank() > g.rank()) {
                found = Some((i, f));
            }
        }
    }
    found
}

/// The unit a runtime registers on its own, which must each hold code for a device: a bundle
/// of a sequence (a HIP library has one per translation unit, each registered by its own
/// `__hipRegisterFatBinary`), a CUDA fat binary; anything else (offload binaries, which the
/// linker wrapper merged into one registration) belongs to the file as a whole (`""`).
fn module(i: &ImageInfo) -> String {
    let steps = &i.location.steps;
    if let Source::CudaFatbinEntry(e) = &i.source {
        let section = steps.iter().rposition(|s| matches!(s, Step::Section(_)));
        let prefix = Location {
            steps: steps
                .get(..=section.unwrap_or(0))
                .unwrap_or_default()
                .to_vec(),
        };
        return format!("{prefix} fat binary {}", e.fatbin_index);
    }
    match steps.iter().rposition(|s| matches!(s, Step::Bundle(_))) {
        Some(at) => Location {
            steps: steps.get(..=at).unwrap_or_default().to_vec(),
        }
        .to_string(),
        None => String::new(),
    }
}

/// `images` grouped by [`module`], in file order.
fn modules(images: &[ImageInfo]) -> Vec<(String, Vec<&ImageInfo>)> {
    let mut out: Vec<(String, Vec<&ImageInfo>)> = Vec::new();
    for i in images {
        let key = module(i);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => out.push((key, vec![i])),
        }
    }
    out
}

/// How a device fares in the modules of a file that have code of its kind.
#[derive(Debug, Default)]
struct Coverage<'i> {
    /// The image it would load from the first module that has one, and how it fits.
    found: Option<(&'i ImageInfo, Fit)>,
    /// How many modules have code of its kind.
    units: usize,
    /// Those where it finds no image.
    without: Vec<String>,
}

/// How `device` fares in every module of `images` that has code of its kind; `None` when no
/// module has code of its kind.
fn coverage<'i>(device: &Device, modules: &[(String, Vec<&'i ImageInfo>)]) -> Option<Coverage<'i>> {
    let relevant: Vec<_> = modules
        .iter()
        .filter(|(_, imgs)| imgs.iter().any(|i| device.same_kind(&i.triple)))
        .collect();
    if relevant.is_empty() {
        return None;
    }
    let mut first = None;
    let mut without = Vec::new();
    for (key, imgs) in &relevant {
        match best(device, imgs.iter().copied()) {
            Some(b) => {
                first.get_or_insert(b);
            }
            None => without.push(key.clone()),
        }
    }
    Some(Coverage {
        found: first,
        units: relevant.len(),
        without,
    })
}

/// What the images are for, grouped by kind and triple in file order:
/// `hipv4 amdgcn-amd-amdhsa gfx1030 gfx90a:xnack+` (PTX marked `(ptx)`).
fn available(images: &[ImageInfo]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for i in images {
        let key = if i.triple.is_empty() {
            i.offload_kind.clone()
        } else {
            format!("{} {}", i.offload_kind, i.triple)
        };
        let mut id = i.target_id.clone();
        if i.image_kind == offkit_format::kind::ImageKind::Ptx {
            id.push_str(" (ptx)");
        }
        let at = match groups.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        let ids = &mut groups[at].1;
        if !id.is_empty() && !ids.contains(&id) {
            ids.push(id);
        }
    }
    groups
        .into_iter()
        .map(|(k, ids)| {
            if ids.is_empty() {
                k
            } else {
                format!("{k} {}", ids.join(" "))
            }
        })
        .collect()
}

/// The hint for an AMD device written without a feature that the file's images set.
fn feature_hint(device: &Device, images: &[ImageInfo]) -> Option<String> {
    let Device::Amdgpu {
        processor,
        features,
    } = device
    else {
        return None;
    };
    let mut missing: Vec<&str> = Vec::new();
    for i in images {
        let mut parts = i.target_id.split(':');
        if parts.next() != Some(processor) {
            continue;
        }
        for f in parts {
            let name = f.trim_end_matches(['+', '-']);
            if !features.iter().any(|(n, _)| n == name) && !missing.contains(&name) {
                missing.push(name);
            }
        }
    }
    (!missing.is_empty()).then(|| {
        format!(
            "its {processor} code sets {}: name the device's setting, e.g. `{processor}:{}-`",
            missing.join(" and "),
            missing.join("-:")
        )
    })
}

/// Runs `offkit check`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let mut inputs: Vec<(PathBuf, bool)> = Vec::new();
    for f in &args.files {
        if f.is_dir() {
            inputs.extend(files_under(f)?.into_iter().map(|p| (p, true)));
        } else {
            inputs.push((f.clone(), false));
        }
    }
    // (path, from a directory, device images, why it could not be read)
    let mut scanned = Vec::new();
    let mut skipped = Vec::new();
    for (path, from_dir) in &inputs {
        let name = path.display().to_string();
        let mut images = Vec::new();
        let walked = walk_file(path, EntryTables::None, &mut |ev| {
            if let Event::Image(img) = ev {
                if is_device_code(img.info) {
                    images.push(img.info.clone());
                }
            }
            Ok(())
        });
        match walked {
            Err(e) => {
                print_error(&e);
                scanned.push((name, *from_dir, Vec::new(), Some(input_error(&e))));
            }
            Ok(()) if images.is_empty() && *from_dir => skipped.push(name),
            Ok(()) => scanned.push((name, *from_dir, images, None)),
        }
    }
    let mut covered = scanned.iter().all(|(.., e)| e.is_none());
    let mut applicable = vec![false; args.device.len()];
    let mut files = Vec::with_capacity(scanned.len());
    for (path, from_dir, images, error) in &scanned {
        let mut devices = Vec::new();
        // An unreadable file has no verdicts, only its error.
        let devices_to_check = if error.is_some() {
            &[][..]
        } else {
            &args.device[..]
        };
        let modules = modules(images);
        for (n, d) in devices_to_check.iter().enumerate() {
            let Coverage {
                found,
                units,
                without,
            } = coverage(d, &modules).unwrap_or_default();
            let partly = found.is_some();
            let v = if let (Some((i, f)), true) = (found, without.is_empty()) {
                applicable[n] = true;
                let mut reason = f.to_string();
                if units > 1 {
                    reason.push_str(&format!("; an image in each of the {units} bundles"));
                }
                Verdict {
                    device: d.to_string(),
                    status: "covered",
                    covered: true,
                    image: Some(ImageJson {
                        location: i.location.to_string(),
                        offload_kind: &i.offload_kind,
                        image_kind: i.image_kind.to_string(),
                        triple: &i.triple,
                        target_id: &i.target_id,
                        size: i.size,
                    }),
                    fit: Some(fit_name(&f)),
                    reason: Some(reason),
                    flag: None,
                    bundles_without: Vec::new(),
                }
            } else if partly {
                // Some modules have code for the device and some do not: a HIP library whose
                // translation units were built for different targets fails at its first kernel
                // from a module without it.
                applicable[n] = true;
                covered = false;
                let shown: Vec<&str> = without.iter().take(3).map(String::as_str).collect();
                Verdict {
                    device: d.to_string(),
                    status: "missing",
                    covered: false,
                    image: None,
                    fit: None,
                    reason: Some(format!(
                        "{} of the {units} bundles have no image for it: {}{}",
                        without.len(),
                        shown.join(", "),
                        if without.len() > shown.len() {
                            ", …"
                        } else {
                            ""
                        }
                    )),
                    flag: Some(d.flag()),
                    bundles_without: without,
                }
            } else if *from_dir && !images.iter().any(|i| d.same_kind(&i.triple)) {
                Verdict {
                    device: d.to_string(),
                    status: "n/a",
                    covered: false,
                    image: None,
                    fit: None,
                    reason: Some(format!("no {} code in this file", d.kind_name())),
                    flag: None,
                    bundles_without: Vec::new(),
                }
            } else {
                applicable[n] = true;
                covered = false;
                Verdict {
                    device: d.to_string(),
                    status: "missing",
                    covered: false,
                    image: None,
                    fit: None,
                    reason: feature_hint(d, images),
                    flag: Some(d.flag()),
                    bundles_without: Vec::new(),
                }
            };
            devices.push(v);
        }
        files.push(FileJson {
            path: path.clone(),
            available: available(images),
            devices,
            error: error.clone(),
        });
    }
    let nowhere: Vec<String> = args
        .device
        .iter()
        .zip(&applicable)
        .filter(|(_, a)| !**a)
        .map(|(d, _)| d.to_string())
        .collect();
    covered &= nowhere.is_empty();
    let doc = Document {
        schema_version: 1,
        devices: args.device.iter().map(Device::to_string).collect(),
        files,
        nowhere,
        skipped,
        covered,
    };
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&doc)?;
        s.push('\n');
        s
    } else {
        text(&doc, &args.device)
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    if !doc.covered {
        return Err(crate::output::Reported.into());
    }
    Ok(())
}

fn text(doc: &Document<'_>, devices: &[Device]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = doc.devices.iter().map(|d| d.len()).max().unwrap_or(0);
    let (mut ok, mut missing, mut na) = (0usize, 0usize, 0usize);
    for f in &doc.files {
        if f.error.is_some() {
            continue;
        }
        let _ = writeln!(out, "{}", f.path);
        let holds = if f.available.is_empty() {
            "no device code".to_string()
        } else {
            f.available.join("; ")
        };
        for v in &f.devices {
            let reason = v.reason.as_deref().unwrap_or_default();
            match (v.status, &v.image) {
                ("covered", Some(i)) => {
                    ok += 1;
                    let within = i
                        .location
                        .strip_prefix(f.path.as_str())
                        .unwrap_or(&i.location);
                    let _ = writeln!(out, "  {:width$}  ok       {within} ({reason})", v.device);
                }
                (_, None) if !v.bundles_without.is_empty() => {
                    missing += 1;
                    let _ = writeln!(
                        out,
                        "  {:width$}  MISSING  {reason}; building those translation units with {} \
                         adds one",
                        v.device,
                        v.flag.as_deref().unwrap_or_default(),
                    );
                }
                ("n/a", _) => {
                    na += 1;
                    let _ = writeln!(out, "  {:width$}  n/a      {reason}", v.device);
                }
                _ => {
                    missing += 1;
                    let _ = writeln!(
                        out,
                        "  {:width$}  MISSING  no image in `{}` loads on {}; it holds {holds}; \
                         {} adds one{}",
                        v.device,
                        f.path,
                        v.device,
                        v.flag.as_deref().unwrap_or_default(),
                        if reason.is_empty() {
                            String::new()
                        } else {
                            format!(" ({reason})")
                        }
                    );
                }
            }
        }
    }
    let errors = doc.files.iter().filter(|f| f.error.is_some()).count();
    for d in devices
        .iter()
        .filter(|d| doc.nowhere.contains(&d.to_string()))
    {
        let _ = writeln!(
            out,
            "{d}: MISSING  no file{} holds {} code; {} adds it",
            if errors > 0 {
                " that could be read"
            } else {
                ""
            },
            d.kind_name(),
            d.flag()
        );
    }
    let _ = write!(
        out,
        "{} checked against {}: {ok} covered, {missing} missing",
        plural(doc.files.len(), "file", "files"),
        plural(doc.devices.len(), "device", "devices"),
    );
    if na > 0 {
        let _ = write!(out, ", {na} not applicable");
    }
    if errors > 0 {
        let _ = write!(out, ", {} unreadable", plural(errors, "file", "files"));
    }
    if !doc.skipped.is_empty() {
        let _ = write!(
            out,
            "; {} without device code skipped",
            plural(doc.skipped.len(), "file", "files")
        );
    }
    out.push('\n');
    out
}
