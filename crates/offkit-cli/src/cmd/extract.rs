//! `offkit extract`: write the selected device images of objects, archives, executables and
//! bundles to a directory.

mod naming;
mod write;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_format::scan::{Address, EntryTables, Event, ImageInfo, Source};
use offkit_tools::Env;

use super::inspect::walk_file;

/// Write the selected device images of objects, archives, executables and bundles to a
/// directory.
///
/// Every device image `offkit inspect` lists (offload binary images, bundle entries, bundled
/// object sections, `.nv_fatbin` contents) is a candidate; `--triple`, `--arch` and `--kind`
/// narrow the choice. Files are named after where the image was found and what it is —
/// `<file>[-<member>][-b<bundle>]-<kind>-<triple>[-<target id>].<ext>` (`b<bundle>`: the
/// bundle's index in a `.hip_fatbin` section or bundle file) — with anything but letters,
/// digits and `._+-` replaced by `_`, so that no name can leave DIR; a name already used gets
/// `.1`, `.2`, … before its extension, in input order. Each file is written atomically; on any
/// error nothing is left behind.
///
/// A FILE may also be the address of one image, as `offkit inspect --json` gives it
/// (`file://PATH#offset=N&size=M`, with `&inflated-offset=I&inflated-size=J` for an image of a
/// compressed bundle): that image alone is extracted.
///
/// Images are streamed, never held: uncompressed ones are copied file to file by the kernel,
/// compressed bundles are decompressed as a stream into the images' files (size and hash
/// checked before anything is kept), so memory stays within a few MiB whatever the sizes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  offkit extract a.out -o images\n  \
                        offkit extract libk.a --kind hip --arch gfx90a -o images")]
pub struct Args {
    /// The files to extract from (as for `offkit inspect`), or image addresses
    /// (`file://PATH#offset=N&size=M…`, from `offkit inspect --json`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The directory to write the images to (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    dir: PathBuf,
    /// Only images for this target triple (exact match, e.g. `amdgcn-amd-amdhsa`).
    #[arg(long, value_name = "T")]
    triple: Option<String>,
    /// Only images for this target ID: an exact match, or a processor without features
    /// (`gfx90a`) matching that processor with any features.
    #[arg(long, value_name = "A")]
    arch: Option<String>,
    /// Only images of this offload kind (`openmp`, `cuda`, `hip`, or a bundle kind such as
    /// `host`).
    #[arg(long, value_name = "K")]
    kind: Option<String>,
}

impl Args {
    fn selects(&self, i: &ImageInfo) -> bool {
        if matches!(
            i.source,
            Source::BundleSection {
                host_placeholder: true,
                ..
            }
        ) {
            // One `\0` byte standing for the host object: not an image.
            return false;
        }
        if self.triple.as_ref().is_some_and(|t| *t != i.triple) {
            return false;
        }
        if let Some(a) = &self.arch {
            let processor = i.target_id.split(':').next().unwrap_or_default();
            if *a != i.target_id && (a.contains(':') || *a != processor) {
                return false;
            }
        }
        if self.kind.as_ref().is_some_and(|k| *k != i.offload_kind) {
            return false;
        }
        true
    }
}

/// One image to write: where its bytes are, and where they go.
struct Planned {
    path: PathBuf,
    location: String,
    size: u64,
    fetch: write::Fetch,
}

/// An input: a file, or a file and the address of one image in it (`file://…#offset=…`).
fn parse_input(arg: &Path) -> (PathBuf, Option<Address>) {
    match arg.to_str().and_then(Address::parse_uri) {
        Some((path, a)) => (PathBuf::from(path), Some(a)),
        None => (arg.to_path_buf(), None),
    }
}

/// Runs `offkit extract`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    // Pass 1: read every header and decide every name; a bad input stops here, before any
    // write. Compressed bundles are decompressed only as far as their entry tables.
    let mut names = naming::Names::default();
    let mut plan = Vec::new();
    for arg in &args.files {
        let (path, wanted) = parse_input(arg);
        let before = plan.len();
        walk_file(&path, EntryTables::None, &mut |ev| {
            if let Event::Image(img) = ev {
                let chosen = match &wanted {
                    Some(a) => img.info.address.as_ref() == Some(a),
                    None => args.selects(img.info),
                };
                if chosen {
                    let name = names.unique(naming::describe(img.info));
                    plan.push(Planned {
                        path: args.dir.join(name),
                        location: img.info.location.to_string(),
                        size: img.info.size,
                        fetch: write::Fetch::of(img.info, &path),
                    });
                }
            }
            Ok(())
        })?;
        if let (Some(a), true) = (wanted, plan.len() == before) {
            bail!(
                "no device image of `{}` is at {}",
                path.display(),
                a.uri(&path.display().to_string())
            );
        }
    }
    if plan.is_empty() {
        bail!("no device image in the inputs matches the selection");
    }
    // Pass 2: copy, decompress or write the planned images; undo everything on failure.
    let created_dir = !args.dir.exists();
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    let mut written: Vec<PathBuf> = Vec::new();
    let jobs: Vec<write::Job<'_>> = plan
        .iter()
        .map(|p| write::Job {
            dest: &p.path,
            size: p.size,
            fetch: &p.fetch,
        })
        .collect();
    let result = write::write_all(&jobs, &mut written);
    if result.is_err() {
        for p in &written {
            let _ = std::fs::remove_file(p);
        }
        if created_dir {
            let _ = std::fs::remove_dir(&args.dir);
        }
    }
    result?;
    for p in &plan {
        println!("{}\t{} bytes\t{}", p.path.display(), p.size, p.location);
    }
    Ok(())
}
