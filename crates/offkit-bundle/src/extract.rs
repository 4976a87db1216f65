//! `extract`: the selected device images of input files, each written to a file of its own in
//! a directory, named after where it was found and what it is.
//!
//! Two steps: [`plan`] reads every input's headers and decides every name (an input that
//! cannot be read is set aside, and nothing of it is written); [`Plan::write`] writes the
//! images — uncompressed ones copied file to file by the kernel, those of compressed bundles
//! decompressed as one stream per bundle into their files (size and hash checked before
//! anything is kept) — and on failure removes what it wrote. Memory stays within a few MiB
//! whatever the images' sizes. [`extract`] does both.
//!
//! Names, one rule however an image is chosen (all of them, a selection, or its address):
//! `<file>[-<member>][-b<bundle>]-<kind>-<triple>[-<target id>].<ext>` (`b<bundle>`: the
//! bundle's index in a `.hip_fatbin` section or bundle file; `<ext>` from the image's kind:
//! `o`, `bc`, `cubin`, `s` for PTX, `bin` when it has none, such as a bundle's empty host
//! entry), anything but letters, digits and `._+-` replaced by `_` so that no name can leave
//! the directory; a name already given to an earlier image of the inputs — chosen or not —
//! gets `.1`, `.2`, … before its extension. So an image's name is the one `extract FILE` gives
//! it, whichever images are chosen: extracting images one by one by their addresses into a
//! directory gives the files and names extracting them all does.
//!
//! ```no_run
//! use offkit_bundle::extract::{extract, ExtractConfig};
//! use offkit_bundle::select::Selection;
//!
//! let config = ExtractConfig {
//!     inputs: vec!["libk.so".into()],
//!     dir: "images".into(),
//!     select: Selection {
//!         arch: Some("gfx90a".into()),
//!         ..Selection::default()
//!     },
//! };
//! for image in extract(&config)?.images {
//!     println!("{}: {} bytes", image.path.display(), image.size);
//! }
//! # Ok::<(), offkit_bundle::Error>(())
//! ```

mod naming;
mod write;

use std::path::{Path, PathBuf};

use offkit_format::scan::{Address, Event};

use crate::error::{Error, Result};
use crate::select::{NoMatch, Seen, Selection};
use crate::walk::{walk_file, ScanOptions};

/// What to extract, and where to.
#[derive(Debug, Clone, Default)]
pub struct ExtractConfig {
    /// The input files (as for [`crate::inspect`]), or image addresses as
    /// [`Address::uri`] writes them (`file://PATH#offset=N&size=M…`): that image alone.
    pub inputs: Vec<PathBuf>,
    /// The directory to write the images to (created if missing).
    pub dir: PathBuf,
    /// Which images of the files (all by default).
    pub select: Selection,
}

/// One image to write: where it goes, and where its bytes are.
#[derive(Debug, Clone)]
pub struct PlannedImage {
    /// The file it is written to.
    pub path: PathBuf,
    /// Where it was found (`libk.so:.hip_fatbin[0]:hipv4-amdgcn-amd-amdhsa--gfx90a`).
    pub location: String,
    /// Its size.
    pub size: u64,
    fetch: write::Fetch,
}

/// What [`plan`] decided.
#[derive(Debug)]
pub struct Plan {
    /// The images to write, in input order.
    pub images: Vec<PlannedImage>,
    /// The inputs that could not be read (nothing of them is written).
    pub failures: Vec<Error>,
    /// What the readable inputs hold.
    pub seen: Seen,
    /// How many inputs there were.
    pub inputs: usize,
    dir: PathBuf,
    select: Selection,
}

/// An input: a file, or a file and the address of one image in it (`file://…#offset=…`).
fn parse_input(arg: &Path) -> (PathBuf, Option<Address>) {
    match arg.to_str().and_then(Address::parse_uri) {
        Some((path, a)) => (PathBuf::from(path), Some(a)),
        None => (arg.to_path_buf(), None),
    }
}

/// The selected images of one input: `(name, location, size, fetch)`.
type Found = Vec<(String, String, u64, write::Fetch)>;

/// Reads the headers of input `arg` and picks its images; every image of it, chosen or not,
/// takes its name from `names`, so that a name does not depend on the choice.
fn plan_input(
    arg: &Path,
    select: &Selection,
    seen: &mut Seen,
    names: &mut naming::Names,
) -> Result<Found> {
    let (path, wanted) = parse_input(arg);
    let mut found = Vec::new();
    walk_file(&path, ScanOptions::images(), &mut |ev| {
        if let Event::Image(img) = ev {
            seen.add(img.info);
            let chosen = match &wanted {
                Some(a) => img.info.address.as_ref() == Some(a),
                None => select.selects(img.info),
            };
            let name = names.unique(naming::describe(img.info));
            if chosen {
                found.push((
                    name,
                    img.info.location.to_string(),
                    img.info.size,
                    write::Fetch::of(img.info, &path),
                ));
            }
        }
        Ok::<(), Error>(())
    })?;
    if let (Some(a), true) = (wanted, found.is_empty()) {
        return Err(Error::NoImageAt {
            uri: a.uri(&path.display().to_string()),
            input: path,
        });
    }
    Ok(found)
}

/// Step 1: reads every input's headers (compressed bundles only as far as their entry tables)
/// and decides every image's name. An input that cannot be read goes to
/// [`Plan::failures`], and the others go on.
pub fn plan(config: &ExtractConfig) -> Plan {
    let mut names = naming::Names::default();
    let mut out = Plan {
        images: Vec::new(),
        failures: Vec::new(),
        seen: Seen::default(),
        inputs: config.inputs.len(),
        dir: config.dir.clone(),
        select: config.select.clone(),
    };
    for arg in &config.inputs {
        // An input that cannot be read gives back the names it took.
        let before = names.clone();
        match plan_input(arg, &config.select, &mut out.seen, &mut names) {
            Ok(found) => {
                for (name, location, size, fetch) in found {
                    out.images.push(PlannedImage {
                        path: config.dir.join(name),
                        location,
                        size,
                        fetch,
                    });
                }
            }
            Err(e) => {
                names = before;
                out.failures.push(e);
            }
        }
    }
    out
}

impl Plan {
    /// What to say when no image was chosen.
    pub fn no_match(&self) -> NoMatch {
        NoMatch {
            selection: self.select.clone(),
            seen: self.seen.clone(),
        }
    }

    /// Step 2: creates the directory and writes every planned image; on failure, removes
    /// what it wrote (and the directory, if it made it).
    pub fn write(&self) -> Result<()> {
        let created_dir = !self.dir.exists();
        std::fs::create_dir_all(&self.dir).map_err(|source| Error::CreateDir {
            path: self.dir.clone(),
            source,
        })?;
        let mut written: Vec<PathBuf> = Vec::new();
        let jobs: Vec<write::Job<'_>> = self
            .images
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
                let _ = std::fs::remove_dir(&self.dir);
            }
        }
        result
    }
}

/// What [`extract`] wrote.
#[derive(Debug)]
pub struct ExtractReport {
    /// The images written, in input order.
    pub images: Vec<PlannedImage>,
    /// The inputs that could not be read (nothing of them was written).
    pub failures: Vec<Error>,
}

/// [`plan`], then [`Plan::write`]. No image chosen is an error: the first input that could not
/// be read, else [`Error::NoMatch`].
pub fn extract(config: &ExtractConfig) -> Result<ExtractReport> {
    let mut p = plan(config);
    if p.images.is_empty() {
        return Err(match p.failures.is_empty() {
            true => Error::NoMatch(Box::new(p.no_match())),
            false => p.failures.remove(0),
        });
    }
    p.write()?;
    Ok(ExtractReport {
        images: p.images,
        failures: p.failures,
    })
}
