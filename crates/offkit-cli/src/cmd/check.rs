//! `offkit check`: which image each device would load from each file, and which devices a file
//! leaves without code.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use offkit_format::coverage::{self, Status};
use offkit_format::device::Device;
use offkit_format::scan::Event;
use offkit_tools::Env;

use super::inspect::{input_error, InputError};
use crate::output::{plural, print_error};
use crate::select::{is_device_code, parse_device};
use offkit_bundle::walk::{inputs, walk_file, Input, ScanOptions};

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
    offload_kind: String,
    image_kind: String,
    triple: String,
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

/// The JSON form of a verdict.
fn verdict_json<'a>(d: &Device, v: coverage::Verdict<'a>) -> Verdict<'a> {
    let (image, fit) = match v.image {
        Some((i, f)) => (
            Some(ImageJson {
                location: i.location.to_string(),
                offload_kind: i.offload_kind.to_string(),
                image_kind: i.image_kind.to_string(),
                triple: i.triple.to_string(),
                target_id: i.target_id.as_str(),
                size: i.size,
            }),
            Some(f.name()),
        ),
        None => (None, None),
    };
    Verdict {
        device: d.to_string(),
        status: v.status.name(),
        covered: v.status == Status::Covered,
        image,
        fit,
        reason: v.reason.as_ref().map(ToString::to_string),
        flag: v.flag,
        bundles_without: v.bundles_without.iter().map(ToString::to_string).collect(),
    }
}

/// Runs `offkit check`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // (path, from a directory, device images, why it could not be read)
    let mut scanned = Vec::new();
    for Input { path, from_dir } in &inputs(&args.files)? {
        let name = path.display().to_string();
        let mut images = Vec::new();
        let walked = walk_file::<anyhow::Error>(path, ScanOptions::images(), &mut |ev| {
            if let Event::Image(img) = ev {
                if is_device_code(img.info) {
                    images.push(img.info.clone());
                }
            }
            Ok(())
        });
        let error = walked.err().map(|e| {
            print_error(&e);
            input_error(&e)
        });
        scanned.push((name, *from_dir, images, error));
    }
    let report = coverage::check(
        &scanned
            .iter()
            .map(|(_, from_dir, images, error)| coverage::Input {
                images: error.is_none().then_some(&images[..]),
                from_dir: *from_dir,
            })
            .collect::<Vec<_>>(),
        &args.device,
    );
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for ((path, .., error), c) in scanned.iter().zip(report.files) {
        let Some(c) = c else {
            skipped.push(path.clone());
            continue;
        };
        files.push(FileJson {
            path: path.clone(),
            devices: c
                .verdicts
                .into_iter()
                .zip(&args.device)
                .map(|(v, d)| verdict_json(d, v))
                .collect(),
            available: c.available.iter().map(ToString::to_string).collect(),
            error: error.clone(),
        });
    }
    let nowhere: Vec<String> = report
        .nowhere
        .into_iter()
        .filter_map(|n| args.device.get(n).map(Device::to_string))
        .collect();
    let covered = report.covered;
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
                    let within = i
                        .location
                        .strip_prefix(f.path.as_str())
                        .unwrap_or(&i.location);
                    let _ = writeln!(out, "  {:width$}  ok       {within} ({reason})", v.device);
                }
                (_, None) if !v.bundles_without.is_empty() => {
                    let _ = writeln!(
                        out,
                        "  {:width$}  MISSING  {reason}; building those translation units with {} \
                         adds one",
                        v.device,
                        v.flag.as_deref().unwrap_or_default(),
                    );
                }
                ("n/a", _) => {
                    let _ = writeln!(out, "  {:width$}  n/a      {reason}", v.device);
                }
                _ => {
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
    summary(&mut out, doc, devices, width);
    out
}

/// One device's standing over every file checked: in how many files it is covered, missing
/// or not applicable.
#[derive(Default)]
struct Standing {
    covered: usize,
    missing: usize,
    na: usize,
}

/// The one summary: a line of counts of devices (a device is covered when every file that
/// applies to it covers it), then, when more than one file was checked or a device is
/// missing from every file, one line per device saying where it stands.
fn summary(out: &mut String, doc: &Document<'_>, devices: &[Device], width: usize) {
    use std::fmt::Write as _;
    let mut standing: Vec<Standing> = devices.iter().map(|_| Standing::default()).collect();
    for f in doc.files.iter().filter(|f| f.error.is_none()) {
        for (v, s) in f.devices.iter().zip(standing.iter_mut()) {
            match v.status {
                "covered" => s.covered += 1,
                "n/a" => s.na += 1,
                _ => s.missing += 1,
            }
        }
    }
    let nowhere = |d: &Device| doc.nowhere.contains(&d.to_string());
    let is_missing = |(d, s): (&Device, &Standing)| s.missing > 0 || nowhere(d);
    let missing = devices
        .iter()
        .zip(&standing)
        .filter(|&p| is_missing(p))
        .count();
    let errors = doc.files.iter().filter(|f| f.error.is_some()).count();
    let _ = write!(
        out,
        "{} checked against {}: {} covered, {missing} missing",
        plural(doc.files.len(), "file", "files"),
        plural(doc.devices.len(), "device", "devices"),
        devices.len() - missing,
    );
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
    let read = doc.files.len() - errors;
    if read <= 1 && !devices.iter().any(nowhere) {
        return;
    }
    for (d, s) in devices.iter().zip(&standing) {
        let name = d.to_string();
        let without = if s.na > 0 {
            format!(
                " ({} without {} code)",
                plural(s.na, "file", "files"),
                d.kind_name()
            )
        } else {
            String::new()
        };
        if nowhere(d) {
            let _ = writeln!(
                out,
                "  {name:width$}  MISSING  no file{} holds {} code; {} adds it",
                if errors > 0 {
                    " that could be read"
                } else {
                    ""
                },
                d.kind_name(),
                d.flag()
            );
        } else if s.missing > 0 {
            let _ = writeln!(
                out,
                "  {name:width$}  MISSING  in {} of {}{without}",
                s.missing,
                plural(s.missing + s.covered, "file", "files"),
            );
        } else {
            let _ = writeln!(
                out,
                "  {name:width$}  covered  by {}{without}",
                plural(s.covered, "file", "files")
            );
        }
    }
}
