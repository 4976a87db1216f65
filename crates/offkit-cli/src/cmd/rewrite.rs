//! What `offkit compress`, `decompress`, `prune` and `replace` share: each input planned and
//! rewritten through `offkit_surgery` (beside its target, checked, renamed), the per-bundle
//! and per-file lines, and the summary.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use offkit_surgery::{Edit, Perms, Plan, Written};
use offkit_tools::mmap::{self, Special};

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
        Dest::from_flags(
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

/// Where each rewritten input goes.
#[derive(Debug, Clone)]
pub enum Dest {
    /// Over itself (mode and ownership kept).
    InPlace,
    /// To this file (one input only).
    To(PathBuf),
    /// Nowhere: only say what would change.
    DryRun,
}

impl Dest {
    /// The destination from `-o`, `--in-place` and `--dry-run`; in place when none is given and
    /// `default_in_place`.
    fn from_flags(
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
}

/// One input rewritten: its plans (one for a file, one per member holding bundles for an
/// archive) and what was written (`None` for a dry run or when nothing changes).
pub struct Done {
    pub plans: Vec<Plan>,
    pub written: Option<Written>,
    pub archive: bool,
}

/// Plans `edit` on `path` and writes the result to `dest`, showing `progress`.
pub fn rewrite(path: &Path, dest: &Dest, edit: &Edit, progress: &mut Progress) -> Result<Done> {
    if matches!(dest, Dest::InPlace) {
        let mapped = offkit_tools::fs::mapped_for_writing(path)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        if let Some(pid) = mapped {
            bail!(
                "`{}` is mapped for writing by process {pid}: rewriting it in place would lose \
                 that process's writes (stop it, or write elsewhere with -o)",
                path.display()
            );
        }
    }
    let opened = mmap::open(path, Special::Refuse)
        .with_context(|| format!("failed to read `{}`", path.display()))?;
    let name = path.display().to_string();
    let meta = match &opened.file {
        Some(f) => Some(
            f.metadata()
                .with_context(|| format!("failed to read `{}`", path.display()))?,
        ),
        None => None,
    };
    // In place: the file's own mode and owner; elsewhere: the input's mode less the umask.
    let perms = |in_place| meta.as_ref().map(|m| Perms::of(m, in_place));
    if offkit_bundle::archive::is_archive(&opened.data) {
        let ap = offkit_surgery::plan_archive(&opened.data, &name, edit, 0)?;
        let plans: Vec<Plan> = ap.plans().cloned().collect();
        let changes = plans.iter().any(Plan::changes_anything);
        let target = match dest {
            Dest::DryRun => None,
            Dest::InPlace if !changes => None,
            Dest::InPlace => Some((path.to_path_buf(), true)),
            Dest::To(o) => Some((o.clone(), false)),
        };
        let written = match target {
            Some((out, in_place)) => {
                let perms = perms(in_place).unwrap_or(Perms::KeepDest);
                let size = offkit_surgery::write_archive(&ap, &opened.data, &out, perms)?;
                Some(Written { size, holes: 0 })
            }
            None => None,
        };
        return Ok(Done {
            plans,
            written,
            archive: true,
        });
    }
    let mut plan = match &opened.file {
        Some(f) => offkit_surgery::plan_file(&opened.data, f, &name, edit, 0)?,
        None => offkit_surgery::plan(&opened.data, &name, edit, 0)?,
    };
    let target = match dest {
        Dest::DryRun => None,
        Dest::InPlace if !plan.changes_anything() => None,
        Dest::InPlace => Some((path.to_path_buf(), true)),
        Dest::To(o) => Some((o.clone(), false)),
    };
    let mut bar = |done, total| progress.update(&name, done, total);
    let written = match (target, &opened.file) {
        (Some((out, in_place)), Some(file)) => Some(offkit_surgery::write(
            &mut plan,
            &opened.data,
            file,
            &out,
            perms(in_place).unwrap_or(Perms::KeepDest),
            &mut bar,
        )?),
        (Some(_), None) => bail!("`{}` is not a regular file", path.display()),
        (None, Some(file)) => {
            // A dry run still makes the pending bundles, for their sizes.
            offkit_surgery::settle(&mut plan, file, &mut bar)?;
            None
        }
        (None, None) => None,
    };
    progress.clear();
    Ok(Done {
        plans: vec![plan],
        written,
        archive: false,
    })
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
