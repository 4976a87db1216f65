//! Static archives: every member holding bundles rewritten in memory, the archive written again
//! by the project's one archive writer (GNU format, symbol table rebuilt from the members, as
//! LLVM's `writeArchive` builds it).

use std::path::Path;

use offkit_bundle::archive;

use crate::edit::Edit;
use crate::error::{Error, Result};
use crate::plan::{plan, Plan};
use crate::write::rewrite_bytes;

/// The rewrite of an archive: one plan per member that holds bundles, in member order.
#[derive(Debug, Clone)]
pub struct ArchivePlan {
    /// The archive's name.
    pub input: String,
    /// Each member's name and, when it holds bundles, its plan.
    pub members: Vec<(String, Option<Plan>)>,
}

impl ArchivePlan {
    /// The plans of the members that hold bundles.
    pub fn plans(&self) -> impl Iterator<Item = &Plan> {
        self.members.iter().filter_map(|(_, p)| p.as_ref())
    }
}

/// The members of the archive `data` (named `input`) that surgery edits in place of it; thin
/// archives are refused (`what`: "rewritten", `fix`: "rewrite", for the message).
pub(crate) fn members<'d>(
    data: &'d [u8],
    input: &str,
    what: &str,
    fix: &str,
) -> Result<archive::Members<'d>> {
    let unusable = |message: String| Error::Unusable {
        input: input.to_string(),
        message,
    };
    if data.starts_with(b"!<thin>\n") {
        return Err(unusable(format!(
            "thin archives are not {what} (their members are files of their own: {fix} those)"
        )));
    }
    archive::read_members(data).map_err(|e| unusable(format!("cannot read it as an archive: {e}")))
}

/// Plans `edit` on every member of the archive `data` (named `input`) that holds bundles; the
/// members are named `input(member)`. Thin archives are refused.
pub fn plan_archive(data: &[u8], input: &str, edit: &Edit, threads: usize) -> Result<ArchivePlan> {
    let members = members(data, input, "rewritten", "rewrite")?;
    let mut out = Vec::with_capacity(members.len());
    for (name, bytes) in members {
        let name = String::from_utf8_lossy(&name).into_owned();
        let holds = object::FileKind::parse(bytes)
            .is_ok_and(|k| matches!(k, object::FileKind::Elf32 | object::FileKind::Elf64));
        let p = if holds {
            let p = plan(bytes, &format!("{input}({name})"), edit, threads)?;
            (!p.regions.is_empty() || p.changes_anything()).then_some(p)
        } else {
            None
        };
        out.push((name, p));
    }
    Ok(ArchivePlan {
        input: input.to_string(),
        members: out,
    })
}

/// The archive of `members` (name, bytes) written by the project's archive writer (its symbol
/// table rebuilt), then read back: the same members, in order, with the bytes given. `done`
/// says what was done to it (`rewritten`, `converted`) in errors.
pub(crate) fn rebuild(members: &[(String, Vec<u8>)], input: &str, done: &str) -> Result<Vec<u8>> {
    let refs: Vec<(String, &[u8])> = members.iter().map(|(n, b)| (n.clone(), &b[..])).collect();
    let bytes = archive::write(&refs)
        .map_err(|e| Error::unusable(input, format!("cannot write the archive: {e}")))?;
    let back = archive::read_members(&bytes).map_err(|e| {
        Error::validation(input, format!("the {done} archive does not read back: {e}"))
    })?;
    let same = back.len() == members.len()
        && back
            .iter()
            .zip(members)
            .all(|((n, b), (m, c))| n == m.as_bytes() && *b == &c[..]);
    if !same {
        return Err(Error::validation(
            input,
            format!("the {done} archive does not hold the members written"),
        ));
    }
    Ok(bytes)
}

/// Writes the archive `data` rewritten by `plan` to `dest` (beside it, checked: the archive
/// read back has the same members, each rewritten member as planned, then renamed) with the
/// mode `perms` gives it.
pub fn write_archive(
    plan: &ArchivePlan,
    data: &[u8],
    dest: &Path,
    perms: crate::Perms,
) -> Result<u64> {
    let werr = |source: std::io::Error| Error::Write {
        path: dest.to_path_buf(),
        source,
    };
    let bytes = archive_bytes(plan, data)?;
    let mut out = offkit_tools::fs::AtomicFile::create(dest).map_err(werr)?;
    std::io::Write::write_all(out.file(), &bytes).map_err(werr)?;
    perms.apply(&mut out).map_err(werr)?;
    out.commit().map_err(werr)?;
    Ok(bytes.len() as u64)
}

/// The archive `data` rewritten by `plan`, in memory (what [`write_archive`] writes; its size
/// is what `offkit size` says an archive would become).
pub(crate) fn archive_bytes(plan: &ArchivePlan, data: &[u8]) -> Result<Vec<u8>> {
    let members = archive::read_members(data).map_err(|e| Error::Unusable {
        input: plan.input.clone(),
        message: format!("cannot read it as an archive: {e}"),
    })?;
    let mut new: Vec<(String, Vec<u8>)> = Vec::with_capacity(members.len());
    for ((name, bytes), (_, p)) in members.iter().zip(&plan.members) {
        let name = String::from_utf8_lossy(name).into_owned();
        let b = match p {
            Some(p) if p.changes_anything() => rewrite_bytes(p, bytes)?,
            _ => bytes.to_vec(),
        };
        new.push((name, b));
    }
    rebuild(&new, &plan.input, "rewritten")
}
