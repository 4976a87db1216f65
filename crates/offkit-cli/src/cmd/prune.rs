//! `offkit prune`: the device images a set of devices does not need taken out of files.

use anyhow::Result;
use offkit_surgery::{Edit, Filter, Plan, PruneTarget};
use offkit_tools::Env;

use super::rewrite::{bundle_name, each, freed, how, rewrite, Dest, Progress, Targets};
use crate::output::plural;

/// Take the device images not needed by a set of devices out of files (as `nvprune` does for
/// CUDA).
///
/// `--keep`: an image stays when one of the devices would or might load it (the rules of
/// `offkit check`: the device's processor or its generic target, features the image sets set
/// the same way on the device; and a feature the device leaves out is unknown, so `--keep
/// gfx90a` keeps `gfx90a:xnack+` and `gfx90a:xnack-`). `--drop`: an image goes when it was made for one of the devices (the same
/// processor, no feature set otherwise than the device names it: `--drop gfx90a` drops
/// `gfx90a:xnack+` and `gfx90a:xnack-`). Host entries always stay.
///
/// Offload bundles, plain and compressed (compressed again with LLVM 19's parameters and the
/// bundle's own version and method), in `.hip_fatbin` and bundle sections of shared libraries,
/// executables and objects, and raw bundle files. Sections never move: each bundle is rewritten
/// at its own offset (every `__hip_fatbin_wrapper` pointer stays right) and the freed bytes are
/// zeroed, written as holes, so the file keeps its size but not its disk usage (and compresses
/// them away in a wheel or container layer). The result is written beside the target, re-read and
/// checked, then renamed.
#[derive(Debug, clap::Args)]
#[command(
    group(clap::ArgGroup::new("which").required(true).args(["keep", "drop"])),
    after_help = "Examples:\n  offkit prune libk.so --keep gfx90a:xnack-,gfx1100 --in-place\n  \
                  offkit prune libk.so --drop gfx1030 --dry-run"
)]
pub struct Args {
    #[command(flatten)]
    targets: Targets,
    /// Keep only what these devices load (comma-separated or repeated); for CUDA, as
    /// `nvprune -arch`: `sm_75` its cubins (what an sm_75 GPU loads where there is none),
    /// `compute_75` its PTX.
    #[arg(long, value_name = "IDS", value_delimiter = ',', value_parser = parse_target)]
    keep: Vec<PruneTarget>,
    /// Drop what was made for these devices (comma-separated or repeated): `sm_75` its
    /// cubins, `compute_75` its PTX.
    #[arg(long, value_name = "IDS", value_delimiter = ',', value_parser = parse_target)]
    drop: Vec<PruneTarget>,
    /// The level compressed bundles are compressed again with (LLVM 19's default, 3).
    #[arg(long, default_value_t = 3, allow_negative_numbers = true)]
    level: i32,
    /// Prune a file even when no device image would be left in it (a warning says so);
    /// without it such a file is refused and left as it is.
    #[arg(long)]
    allow_empty: bool,
}

/// Parses a `--keep`/`--drop` value (clap value parser; clap prints the message after it).
fn parse_target(s: &str) -> Result<PruneTarget> {
    match PruneTarget::parse(s) {
        Ok(t) => Ok(t),
        Err(_) => crate::select::parse_device(s).map(PruneTarget::Device),
    }
}

/// Runs `offkit prune`.
pub fn run(a: Args, _env: &Env) -> Result<()> {
    let dest = a.targets.dest(false)?;
    let mut progress = Progress::new(a.targets.quiet);
    let dry = matches!(dest, Dest::DryRun);
    let filter = if a.keep.is_empty() {
        Filter::Drop(a.drop)
    } else {
        Filter::Keep(a.keep)
    };
    let edit = Edit::Prune {
        filter,
        level: a.level,
        allow_empty: a.allow_empty,
    };
    let all = each(
        &a.targets.files,
        |f| rewrite(f, &dest, &edit, &mut progress),
        |_, d| {
            for plan in &d.plans {
                for w in &plan.warnings {
                    eprintln!("warning: {}: {w}", plan.input);
                }
                // One line per rewritten container: what it is, what goes, its size before and after.
                let line = |what: String, removed: &[String], old: u64, new: u64| {
                    let verb = if dry { "would drop" } else { "dropped" };
                    println!(
                        "  {what}: {verb} {} ({old} -> {new} bytes)",
                        removed.join(", ")
                    );
                };
                for c in plan.changes.iter().filter(|c| !c.removed.is_empty()) {
                    line(bundle_name(plan, c), &c.removed, c.old_size, c.new_size());
                }
                for b in &plan.binaries {
                    let what = format!("{} at {:#x}", b.name, b.offset);
                    line(what, &b.removed, b.old_size, b.bytes.len() as u64);
                }
                if let Some(t) = &plan.tables {
                    let tables = plural(t.descriptors.len(), "image table", "image tables");
                    let what = format!(".llvm.offloading at {:#x} and {tables}", t.offset);
                    line(what, &t.removed, t.old_size, t.new_size);
                }
                for f in &plan.fatbins {
                    let what = format!("{} fat binary at {:#x}", f.section, f.offset);
                    line(what, &f.removed, f.old_size, f.new_size);
                }
                let images: usize = plan.fatbins.iter().map(|f| f.removed.len()).sum::<usize>()
                    + plan.changes.iter().map(|c| c.removed.len()).sum::<usize>()
                    + plan.binaries.iter().map(|b| b.removed.len()).sum::<usize>()
                    + plan.tables.as_ref().map_or(0, |t| t.removed.len());
                let bundles = plan
                    .changes
                    .iter()
                    .filter(|c| !c.removed.is_empty())
                    .count();
                let from = if plan.changes.is_empty() {
                    String::new()
                } else {
                    format!(
                        " from {bundles} of {}",
                        plural(plan.changes.len(), "bundle", "bundles")
                    )
                };
                let how = match (&d.written, &plan.tables) {
                    (Some(_), _) if !plan.fatbins.is_empty() && plan.changes.is_empty() => {
                        " (fat binaries rewritten in place, freed bytes zeroed)".to_string()
                    }
                    (Some(_), Some(_)) => {
                        " (image tables and .llvm.offloading rewritten in place, pruned images \
                         zeroed)"
                            .to_string()
                    }
                    _ => how(d, plan),
                };
                println!(
                    "{}: {} {}{from}, {}{how}",
                    plan.input,
                    plural(images, "image", "images"),
                    if dry { "would be dropped" } else { "dropped" },
                    freed(plan.freed(), dry),
                );
            }
        },
    )?;
    let plans = || all.iter().flat_map(|d| &d.plans);
    let images: usize = plans()
        .flat_map(|p| &p.changes)
        .map(|c| c.removed.len())
        .sum::<usize>()
        + plans()
            .flat_map(|p| &p.binaries)
            .map(|b| b.removed.len())
            .sum::<usize>()
        + plans()
            .flat_map(|p| &p.fatbins)
            .map(|f| f.removed.len())
            .sum::<usize>()
        + plans()
            .filter_map(|p| p.tables.as_ref())
            .map(|t| t.removed.len())
            .sum::<usize>();
    let net: i64 = plans().map(Plan::freed).sum();
    println!(
        "prune: {} {} from {}, {}",
        plural(images, "image", "images"),
        if dry { "would be dropped" } else { "dropped" },
        plural(all.len(), "file", "files"),
        freed(net, dry)
    );
    Ok(())
}
