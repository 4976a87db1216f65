//! `inspect`: what the device images and entry tables of input files are, each input scanned
//! by [`crate::walk`], some images chosen by a [`Selection`]. An input that cannot be read is
//! reported in its place; the others are still read.
//!
//! ```no_run
//! use offkit_bundle::inspect::{inspect, InspectConfig};
//!
//! let report = inspect(&InspectConfig::new(["libk.so"]));
//! for input in &report.inputs {
//!     for image in &input.report.images {
//!         println!("{} {} {}", image.location, image.triple, image.target_id);
//!     }
//! }
//! ```

use std::path::PathBuf;

use offkit_format::scan::Report;

use crate::error::Error;
use crate::select::{NoMatch, Seen, Selection};
use crate::walk::{inputs, scan_file, Input, ScanOptions};

/// What to inspect.
#[derive(Debug, Clone, Default)]
pub struct InspectConfig {
    /// The input files: ELF objects, executables and shared libraries, static archives (GNU,
    /// BSD, thin), offload binaries, offload bundles, bitcode; and directories, walked for
    /// them ([`crate::walk::inputs`]).
    pub files: Vec<PathBuf>,
    /// What each walk reads.
    pub scan: ScanOptions,
    /// Which images to report (the entry tables are reported whole).
    pub select: Selection,
}

impl InspectConfig {
    /// Every image of `files`, with their hosts' entry tables.
    pub fn new<P: Into<PathBuf>>(files: impl IntoIterator<Item = P>) -> Self {
        InspectConfig {
            files: files.into_iter().map(Into::into).collect(),
            ..InspectConfig::default()
        }
    }
}

/// One input, inspected.
#[derive(Debug)]
pub struct Inspected {
    /// The input.
    pub path: PathBuf,
    /// What it holds (the selected images only); when it could not be read, what was read
    /// before the error.
    pub report: Report,
    /// Why it could not be read.
    pub error: Option<Error>,
}

/// What [`inspect`] found.
#[derive(Debug)]
pub struct InspectReport {
    /// Each input, in order.
    pub inputs: Vec<Inspected>,
    /// What the readable inputs hold, selected or not.
    pub seen: Seen,
    /// How many images were selected (all of them without a selection).
    pub selected: usize,
    /// The selection.
    pub select: Selection,
    /// The files found in directories that hold no device image and no entry table, passed
    /// over.
    pub skipped: Vec<PathBuf>,
}

impl InspectReport {
    /// How many inputs could not be read.
    pub fn failed(&self) -> usize {
        self.inputs.iter().filter(|i| i.error.is_some()).count()
    }

    /// When a selection was given and matched nothing: what to say.
    pub fn no_match(&self) -> Option<NoMatch> {
        (self.select.is_active() && self.selected == 0).then(|| NoMatch {
            selection: self.select.clone(),
            seen: self.seen.clone(),
        })
    }
}

/// Scans every input of `config` (each before the next; an unreadable one is reported in its
/// place, and the others go on) and keeps the selected images.
pub fn inspect(config: &InspectConfig) -> InspectReport {
    let mut out = InspectReport {
        inputs: Vec::with_capacity(config.files.len()),
        seen: Seen::default(),
        selected: 0,
        select: config.select.clone(),
        skipped: Vec::new(),
    };
    for named in &config.files {
        let found = match inputs(std::slice::from_ref(named)) {
            Ok(found) => found,
            Err(e) => {
                out.inputs.push(Inspected {
                    path: named.clone(),
                    report: Report::default(),
                    error: Some(e),
                });
                continue;
            }
        };
        for input in found {
            out.add(config, input);
        }
    }
    out
}

impl InspectReport {
    /// Scans one input into the report; a file found in a directory that holds no device
    /// image and no entry table is counted in [`InspectReport::skipped`] instead.
    fn add(&mut self, config: &InspectConfig, input: Input) {
        let Input { path, from_dir } = input;
        let mut s = scan_file(&path, config.scan);
        if from_dir && s.error.is_none() && s.report.images.is_empty() && s.report.tables.is_empty()
        {
            self.skipped.push(path);
            return;
        }
        let out = self;
        if s.error.is_none() {
            if config.select.is_active() {
                s.report.images.iter().for_each(|i| out.seen.add(i));
                s.report.images.retain(|i| config.select.selects(i));
            }
            out.selected += s.report.images.len();
        }
        out.inputs.push(Inspected {
            path,
            report: s.report,
            error: s.error,
        });
    }
}
