//! `offkit replace`: a changed code object put back in place of an image.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use offkit_bundle::walk::{walk_file, ScanOptions};
use offkit_format::scan::{Address, Event, Step};
use offkit_surgery::{Edit, Replacement};
use offkit_tools::Env;

use super::rewrite::{each, freed, how, print_changed, rewrite, Dest, Progress};

/// Put a changed code object back in place of an image of an offload bundle.
///
/// SELECTOR names the image as `offkit inspect` prints its location (`libk.so:.hip_fatbin[1]:[2]`)
/// or by its address URI (`file://libk.so#offset=…`, from `offkit inspect --json`). The bundle is
/// written again with the new code object (by LLVM 19's layout, in the bundle's own alignment)
/// and, when it was compressed, compressed again with its version and method. In a shared
/// library or executable the new bundle must fit its space up to the next bundle (the next
/// alignment boundary): otherwise nothing is written and an error says by how many bytes it does
/// not fit. The result is written beside the target, re-read and checked, then renamed.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  offkit replace libk.so --image 'libk.so:.hip_fatbin[0]:[1]=patched.co'"
)]
pub struct Args {
    /// The file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// SELECTOR=NEWFILE: the image to replace and the file with the new code object.
    #[arg(long, value_name = "SELECTOR=NEWFILE")]
    image: String,
    /// Write the result here instead of over the input.
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    /// The level a compressed bundle is compressed again with; by default the level it was
    /// made with, found by compressing it again at the levels LLVM and hipcc use until one
    /// gives its bytes (3, LLVM 19's, with a warning when none does).
    #[arg(long, allow_negative_numbers = true)]
    level: Option<i32>,
}

/// Runs `offkit replace`.
pub fn run(a: Args, _env: &Env) -> Result<()> {
    let (selector, new) = a
        .image
        .rsplit_once('=')
        .filter(|(s, n)| !s.is_empty() && !n.is_empty())
        .ok_or_else(|| anyhow!("--image takes SELECTOR=NEWFILE, not `{}`", a.image))?;
    let wanted = Address::parse_uri(selector).map(|(_, a)| a);
    let mut found = None;
    let mut names = Vec::new();
    walk_file::<anyhow::Error>(&a.file, ScanOptions::images(), &mut |ev| {
        if let Event::Image(img) = ev {
            let loc = img.info.location.to_string();
            let hit = match &wanted {
                Some(w) => img.info.address.as_ref() == Some(w),
                None => loc == selector,
            };
            if hit && found.is_none() {
                found = Some(img.info.clone());
            }
            names.push(loc);
        }
        Ok(())
    })?;
    let Some(info) = found else {
        bail!(
            "no image of `{}` is `{selector}`; its images are: {}",
            a.file.display(),
            names.join(", ")
        );
    };
    let (Some(bundle), Some(address)) = (info.bundle, info.address) else {
        bail!(
            "`{}` is not an entry of an offload bundle in a section or file offkit rewrites",
            info.location
        );
    };
    let entry_offset = match address.inflated {
        Some((offset, _)) => offset,
        None => address.offset - bundle.offset,
    };
    if info
        .location
        .steps
        .iter()
        .any(|s| matches!(s, Step::Member(_) | Step::ThinMember(_)))
    {
        bail!(
            "`{}` is in an archive member: replace it in the member (`ar x`), then put the member back",
            info.location
        );
    }
    let Some(id) = info.location.steps.iter().rev().find_map(|s| match s {
        Step::BundleEntry(id) => Some(id.clone()),
        _ => None,
    }) else {
        bail!("`{}` is not an entry of an offload bundle", info.location);
    };
    let payload = std::fs::read(new).with_context(|| format!("failed to read `{new}`"))?;
    let dest = match a.output {
        Some(o) => Dest::To(o),
        None => Dest::InPlace,
    };
    let edit = Edit::Replace(Replacement {
        bundle: bundle.offset,
        id,
        entry_offset,
        payload,
        level: a.level,
    });
    let done = each(
        std::slice::from_ref(&a.file),
        |f| rewrite(f, &dest, &edit, &mut Progress::new(false)),
        |f, d| {
            for plan in &d.plans {
                for w in &plan.warnings {
                    eprintln!("warning: {}: {w}", plan.input);
                }
                print_changed(plan);
                println!(
                    "{}: replaced {}, {}{}",
                    f.display(),
                    info.location,
                    freed(plan.freed(), false),
                    how(d, plan)
                );
            }
        },
    )?;
    if !done
        .iter()
        .flat_map(|d| &d.plans)
        .any(|p| p.changes_anything())
    {
        bail!(
            "`{}` was found but its bundle was not rewritten (a bug)",
            info.location
        );
    }
    Ok(())
}
