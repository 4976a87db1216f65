//! A whole rewrite of one file: the input opened (and, in place, checked that no process maps
//! it for writing), an archive's members or the file planned, written to its destination with
//! the right permissions (pending bundles made even for a dry run, for their sizes).
//! `offkit compress`, `decompress`, `prune` and `replace` are this call and their printing.

use std::path::{Path, PathBuf};

use offkit_tools::mmap::{self, Special};

use crate::{Edit, Error, Perms, Plan, Result, Written};

/// Where a rewritten input goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    /// Over itself (mode and ownership kept); nothing is written when nothing changes.
    InPlace,
    /// To this file, with the input's mode less the umask.
    To(PathBuf),
    /// Nowhere: only plan, to say what would change.
    DryRun,
}

/// One input rewritten.
#[derive(Debug)]
pub struct Done {
    /// Its plans: one for a file, one per member holding bundles for an archive.
    pub plans: Vec<Plan>,
    /// What was written (`None` for a dry run, or in place when nothing changes).
    pub written: Option<Written>,
    /// Whether the input is an archive (written again whole).
    pub archive: bool,
}

/// Plans `edit` on the file at `path` and writes the result to `dest`, calling `progress`
/// with the bytes done and the total as a large file is written.
pub fn rewrite_file(
    path: &Path,
    dest: &Dest,
    edit: &Edit,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Done> {
    let open_err = |source| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    if matches!(dest, Dest::InPlace) {
        if let Some(pid) = offkit_tools::fs::mapped_for_writing(path).map_err(open_err)? {
            return Err(Error::MappedForWriting {
                path: path.to_path_buf(),
                pid,
            });
        }
    }
    let opened = mmap::open(path, Special::Refuse).map_err(open_err)?;
    let name = path.display().to_string();
    let meta = match &opened.file {
        Some(f) => Some(f.metadata().map_err(open_err)?),
        None => None,
    };
    // In place: the file's own mode and owner; elsewhere: the input's mode less the umask.
    let perms = |in_place| {
        meta.as_ref()
            .map_or(Perms::KeepDest, |m| Perms::of(m, in_place))
    };
    let target = |changes: bool| match dest {
        Dest::DryRun => None,
        Dest::InPlace if !changes => None,
        Dest::InPlace => Some((path.to_path_buf(), true)),
        Dest::To(o) => Some((o.clone(), false)),
    };
    if offkit_bundle::archive::is_archive(&opened.data) {
        let ap = crate::plan_archive(&opened.data, &name, edit, 0)?;
        let plans: Vec<Plan> = ap.plans().cloned().collect();
        let written = match target(plans.iter().any(Plan::changes_anything)) {
            Some((out, in_place)) => {
                let size = crate::write_archive(&ap, &opened.data, &out, perms(in_place))?;
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
        Some(f) => crate::plan_file(&opened.data, f, &name, edit, 0)?,
        None => crate::plan(&opened.data, &name, edit, 0)?,
    };
    let written = match (target(plan.changes_anything()), &opened.file) {
        (Some((out, in_place)), Some(file)) => Some(crate::write(
            &mut plan,
            &opened.data,
            file,
            &out,
            perms(in_place),
            progress,
        )?),
        (Some(_), None) => {
            return Err(Error::NotRegular {
                path: path.to_path_buf(),
            })
        }
        (None, Some(file)) => {
            // A dry run still makes the pending bundles, for their sizes.
            crate::settle(&mut plan, file, progress)?;
            None
        }
        (None, None) => None,
    };
    Ok(Done {
        plans: vec![plan],
        written,
        archive: false,
    })
}

/// What a rewrite would make of one input, without writing anything.
#[derive(Debug)]
pub struct Estimate {
    /// Its plans, settled (every bundle's new size known): one for a file, one per member
    /// holding bundles for an archive.
    pub plans: Vec<Plan>,
    /// Whether the input is an archive.
    pub archive: bool,
    /// The input's size.
    pub size_before: u64,
    /// The size the output would have: what [`rewrite_file`] writes, byte for byte (a linked
    /// file keeps its size, the freed bytes zeroed; a raw bundle, an object or an archive is
    /// laid out anew).
    pub size_after: u64,
}

impl Estimate {
    /// The bytes freed (negative: taken), summed over the plans: what `offkit prune` and
    /// `offkit compress` print.
    pub fn freed(&self) -> i64 {
        self.plans.iter().map(Plan::freed).sum()
    }
}

/// Plans `edit` on the file at `path` as [`rewrite_file`] does, makes the pending bundles (for
/// their sizes, a window at a time, without keeping them) and works out the size of the output,
/// writing nothing. `offkit size` is this call; its figures are those of the real rewrite.
pub fn estimate_file(
    path: &Path,
    edit: &Edit,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Estimate> {
    let opened = mmap::open(path, Special::Refuse).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    let size_before = opened.data.len() as u64;
    if offkit_bundle::archive::is_archive(&opened.data) {
        let ap = crate::plan_archive(&opened.data, &name, edit, 0)?;
        let plans: Vec<Plan> = ap.plans().cloned().collect();
        let size_after = if plans.iter().any(Plan::changes_anything) {
            crate::archive::archive_bytes(&ap, &opened.data)?.len() as u64
        } else {
            size_before
        };
        return Ok(Estimate {
            plans,
            archive: true,
            size_before,
            size_after,
        });
    }
    let plan = match &opened.file {
        Some(f) => {
            let mut plan = crate::plan_file(&opened.data, f, &name, edit, 0)?;
            crate::settle(&mut plan, f, progress)?;
            plan
        }
        None => crate::plan(&opened.data, &name, edit, 0)?,
    };
    if plan.changes.iter().any(|c| c.pending) {
        return Err(Error::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let size_after = if plan.changes_anything() {
        crate::write::output_size(&plan, &opened.data)?
    } else {
        size_before
    };
    Ok(Estimate {
        plans: vec![plan],
        archive: false,
        size_before,
        size_after,
    })
}
