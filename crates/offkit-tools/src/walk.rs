//! Searching directories for input files: what `offkit check DIR` reads (a wheel's unpacked
//! `lib/`, a prefix's `lib64/`).

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

/// The files under `dir` that `keep` accepts, sorted by name within each directory,
/// recursively. Symbolic links to directories are not followed. A symbolic link to a file is
/// kept only when that file is not found itself (`libk.so.1 -> libk.so.1.1` is listed once, as
/// `libk.so.1.1`), and two links to one file outside give it once. A directory that cannot be
/// read is an error naming it; entries that vanish while being read are passed over.
pub fn files_under(
    dir: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let mut found = Vec::new();
    collect(dir, keep, &mut found)?;
    let real: BTreeSet<PathBuf> = found
        .iter()
        .filter(|(_, link)| !link)
        .filter_map(|(p, _)| std::fs::canonicalize(p).ok())
        .collect();
    let mut linked = BTreeSet::new();
    Ok(found
        .into_iter()
        .filter(|(p, link)| {
            !link || std::fs::canonicalize(p).is_ok_and(|c| !real.contains(&c) && linked.insert(c))
        })
        .map(|(p, _)| p)
        .collect())
}

/// Every file under `dir` that `keep` accepts, with whether it is a symbolic link.
fn collect(
    dir: &Path,
    keep: &dyn Fn(&Path) -> bool,
    out: &mut Vec<(PathBuf, bool)>,
) -> Result<(), (PathBuf, io::Error)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| (dir.to_path_buf(), e))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            collect(&p, keep, out)?;
        } else if (t.is_file() || t.is_symlink()) && p.is_file() && keep(&p) {
            out.push((p, t.is_symlink()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_recursive_links_once() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        std::fs::write(root.join("b/c/k.so.1.1"), b"x").unwrap();
        std::fs::write(root.join("a.o"), b"x").unwrap();
        std::fs::write(root.join("skip.txt"), b"x").unwrap();
        std::os::unix::fs::symlink("k.so.1.1", root.join("b/c/k.so.1")).unwrap();
        let keep = |p: &Path| p.extension().is_none_or(|e| e != "txt");
        let found = files_under(root, &keep).unwrap();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap())
            .collect();
        assert_eq!(rel, [Path::new("a.o"), Path::new("b/c/k.so.1.1")]);
        let (at, _) = files_under(&root.join("none"), &keep).unwrap_err();
        assert_eq!(at, root.join("none"));
    }
}
