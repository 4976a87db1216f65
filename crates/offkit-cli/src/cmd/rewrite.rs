//! What `offkit compress`, `decompress`, `prune` and `replace` share: each input planned and
//! rewritten through `offkit_surgery` (beside its target, checked, renamed), the per-bundle
//! and per-file lines, and the summary.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
pub use offkit_surgery::{Dest, Done};
use offkit_surgery::{Edit, Plan};

use crate::output::{inputs_failed, plural, print_error};

/// The inputs of a rewrite and where the results go (`prune`, `compress`, `decompress`,
/// `convert`).
#[derive(Debug, clap::Args)]
pub struct Targets {
    /// The files: shared libraries, executables, objects, archives, bundle files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the result here instead of over the input (one input only).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Rewrite the inputs in place.
    #[arg(long)]
    pub in_place: bool,
    /// Say what would change, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Show no progress bar (one is shown on a terminal when a rewrite takes over a second).
    #[arg(short, long)]
    pub quiet: bool,
}

impl Targets {
    /// Where the results go; in place when no flag says and `default_in_place`.
    pub fn dest(&self, default_in_place: bool) -> Result<Dest> {
        dest_from_flags(
            self.output.clone(),
            self.in_place,
            self.dry_run,
            self.files.len(),
            default_in_place,
        )
    }
}

/// A progress bar on standard error, shown once a job has run for a second, and only on a
/// terminal and without `--quiet`.
pub struct Progress {
    shown: bool,
    started: Instant,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    /// A progress bar for a job starting now.
    pub fn new(quiet: bool) -> Progress {
        Progress {
            shown: !quiet && std::io::stderr().is_terminal(),
            started: Instant::now(),
            bar: None,
        }
    }

    /// `done` of `total` bytes of the file `name` rewritten.
    pub fn update(&mut self, name: &str, done: u64, total: u64) {
        if !self.shown || self.started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(total);
            let style = indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)",
            )
            .map(|s| s.progress_chars("=> "));
            if let Ok(style) = style {
                bar.set_style(style);
            }
            bar.set_message(name.to_string());
            bar
        });
        bar.set_length(total);
        bar.set_position(done);
    }

    /// Takes the bar off the terminal (before a file's lines are printed).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The destination from `-o`, `--in-place` and `--dry-run`; in place when none is given and
/// `default_in_place`.
fn dest_from_flags(
    output: Option<PathBuf>,
    in_place: bool,
    dry_run: bool,
    inputs: usize,
    default_in_place: bool,
) -> Result<Dest> {
    Ok(match (output, in_place, dry_run) {
        (_, _, true) => Dest::DryRun,
        (Some(_), true, _) => bail!("-o and --in-place cannot be used together"),
        (Some(o), false, _) if inputs == 1 => Dest::To(o),
        (Some(_), false, _) => bail!("-o takes one input ({inputs} given); use --in-place"),
        (None, true, _) => Dest::InPlace,
        (None, false, _) if default_in_place => Dest::InPlace,
        (None, false, _) => bail!("say where the result goes: -o OUT, --in-place or --dry-run"),
    })
}

/// Plans `edit` on `path` and writes the result to `dest`, showing `progress`
/// ([`offkit_surgery::rewrite_file`]).
pub fn rewrite(path: &Path, dest: &Dest, edit: &Edit, progress: &mut Progress) -> Result<Done> {
    let name = path.display().to_string();
    let done = offkit_surgery::rewrite_file(path, dest, edit, &mut |done, total| {
        progress.update(&name, done, total)
    });
    progress.clear();
    Ok(done?)
}

/// Runs `one` over every input, printing each input's lines; an input that fails is reported
/// and the others go on. Returns the inputs done.
pub fn each(
    files: &[PathBuf],
    mut one: impl FnMut(&Path) -> Result<Done>,
    mut print: impl FnMut(&Path, &Done),
) -> Result<Vec<Done>> {
    let mut done = Vec::new();
    let mut failed = 0;
    for f in files {
        match one(f) {
            Ok(d) => {
                print(f, &d);
                done.push(d);
            }
            Err(e) => {
                print_error(&e);
                failed += 1;
            }
        }
    }
    inputs_failed(failed, files.len())?;
    Ok(done)
}

/// `N bytes freed` or `N bytes taken`.
pub fn freed(n: i64, dry: bool) -> String {
    let verb = match (n >= 0, dry) {
        (true, false) => "freed",
        (true, true) => "would be freed",
        (false, false) => "taken",
        (false, true) => "would be taken",
    };
    format!(
        "{} {verb}",
        plural(n.unsigned_abs() as usize, "byte", "bytes")
    )
}

/// How the file was written, for the line of `plan`.
pub fn how(d: &Done, plan: &Plan) -> String {
    match (&d.written, plan.whole) {
        (None, _) => String::new(),
        (Some(_), _) if d.archive => " (archive written again)".into(),
        (Some(_), true) => " (rewritten)".into(),
        (Some(_), false) if plan.resized => {
            " (object: bundle sections resized to their bundles)".into()
        }
        (Some(_), false) => {
            " (bundles rewritten in place, freed bytes zeroed, written sparse)".into()
        }
    }
}

/// Prints a line for every bundle of `plan` rewritten: `  NAME: OLD -> NEW bytes`.
pub fn print_changed(plan: &Plan) {
    for c in plan.changes.iter().filter(|c| c.changed()) {
        println!(
            "  {}: {} -> {} bytes",
            bundle_name(plan, c),
            c.old_size,
            c.new_size()
        );
    }
}

/// The name of a bundle for per-bundle lines: `.hip_fatbin bundle 2 at 0x5000`.
pub fn bundle_name(plan: &Plan, c: &offkit_surgery::Change) -> String {
    let region = plan.regions.get(c.region).map_or("?", |r| r.name.as_str());
    format!("{region} bundle {} at {:#x}", c.index, c.offset)
}
