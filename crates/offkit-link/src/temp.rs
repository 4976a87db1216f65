//! Temporary files, named as LLVM 19's wrapper names them.
//!
//! Without `--save-temps`: `$TMPDIR/<prefix>-XXXXXX.<ext>` (six random hex digits, created
//! exclusively, as `sys::fs::createTemporaryFile` does), removed at the end. With it:
//! `<prefix>.<ext>` in the current directory, kept (and, as in LLVM 19, two inputs with the
//! same name overwrite each other). The random part never reaches an output: the tools are
//! given these paths, and nothing they write depends on the name of an input file.

use std::collections::hash_map::RandomState;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// The temporary files of one link.
#[derive(Debug)]
pub struct Temps {
    dir: PathBuf,
    save: bool,
    files: Mutex<Vec<PathBuf>>,
    dirs: Mutex<Vec<PathBuf>>,
    seed: RandomState,
    counter: AtomicU64,
}

impl Temps {
    /// Temporary files in `dir` (LLVM's `TMPDIR`, `TMP`, `TEMP`, `TEMPDIR`, else `/tmp`), kept in
    /// the current directory instead when `save` (`--save-temps`).
    pub fn new(dir: PathBuf, save: bool) -> Self {
        Temps {
            dir,
            save,
            files: Mutex::new(Vec::new()),
            dirs: Mutex::new(Vec::new()),
            seed: RandomState::new(),
            counter: AtomicU64::new(0),
        }
    }

    /// Whether files are kept (`--save-temps`).
    pub fn saving(&self) -> bool {
        self.save
    }

    /// A new file for `prefix` and extension `ext` (without the dot; may be empty).
    pub fn create(&self, prefix: &str, ext: &str) -> Result<PathBuf> {
        self.open(prefix, ext).map(|(p, _)| p)
    }

    /// A new file for `prefix` and `ext` holding `bytes`, written through the descriptor that
    /// created it (one `open` per file: creating files is what costs in a busy `/tmp`).
    pub fn create_with(&self, prefix: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf> {
        let (path, file) = self.open(prefix, ext)?;
        write_into(path, file, bytes)
    }

    /// The path of a new file, and the file itself when it was created here (without
    /// `--save-temps`; with it, the path in the current directory is only named).
    fn open(&self, prefix: &str, ext: &str) -> Result<(PathBuf, Option<File>)> {
        let dot = if ext.is_empty() { "" } else { "." };
        if self.save {
            let p = PathBuf::from(format!("{prefix}{dot}{ext}"));
            self.track(&p);
            return Ok((p, None));
        }
        let names = (0..128).map(|_| {
            self.dir
                .join(format!("{prefix}-{:06x}{dot}{ext}", self.random()))
        });
        let (p, f) = first_free(names, create_new, || {
            self.dir.join(format!("{prefix}-XXXXXX{dot}{ext}"))
        })?;
        self.track(&p);
        Ok((p, Some(f)))
    }

    /// A new private directory `$TMPDIR/<prefix>-XXXXXX` for files LLVM 19 never writes (the
    /// bitcode inputs of an LTO group, which it links in memory): creating many files in a
    /// busy `/tmp` costs far more than in a directory of their own. `None` with
    /// `--save-temps`, whose files go to the current directory as LLVM names them.
    pub fn private_dir(&self, prefix: &str) -> Result<Option<PathBuf>> {
        if self.save {
            return Ok(None);
        }
        let names = (0..128).map(|_| self.dir.join(format!("{prefix}-{:06x}", self.random())));
        let (p, ()) = first_free(
            names,
            |p| std::fs::create_dir(p),
            || self.dir.join(format!("{prefix}-XXXXXX")),
        )?;
        if let Ok(mut d) = self.dirs.lock() {
            d.push(p.clone());
        }
        Ok(Some(p))
    }

    /// A new file `dir/<prefix>.<ext>` (or `dir/<prefix>-N.<ext>` when that is taken) holding
    /// `bytes`, in a directory from [`Temps::private_dir`].
    pub fn create_in(&self, dir: &Path, prefix: &str, ext: &str, bytes: &[u8]) -> Result<PathBuf> {
        let dot = if ext.is_empty() { "" } else { "." };
        let names = (1..=4096u32).map(|n| match n {
            1 => dir.join(format!("{prefix}{dot}{ext}")),
            n => dir.join(format!("{prefix}-{n}{dot}{ext}")),
        });
        let (p, f) = first_free(names, create_new, || {
            dir.join(format!("{prefix}{dot}{ext}"))
        })?;
        self.track(&p);
        write_into(p, Some(f), bytes)
    }

    /// Six random hex digits, as LLVM puts in temporary names.
    fn random(&self) -> u64 {
        let mut h = self.seed.build_hasher();
        h.write_u64(self.counter.fetch_add(1, Ordering::Relaxed));
        h.write_u32(std::process::id());
        h.finish() & 0xff_ffff
    }

    fn track(&self, p: &Path) {
        if let Ok(mut f) = self.files.lock() {
            f.push(p.to_path_buf());
        }
    }

    /// Every file created so far.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// Removes the files (unless saving).
    pub fn cleanup(&self) {
        if self.save {
            return;
        }
        if let Ok(mut f) = self.files.lock() {
            for p in f.drain(..) {
                let _ = std::fs::remove_file(p);
            }
        }
        // Private directories last, once their files are gone.
        if let Ok(mut d) = self.dirs.lock() {
            for p in d.drain(..) {
                let _ = std::fs::remove_dir(p);
            }
        }
    }
}

impl Drop for Temps {
    fn drop(&mut self) {
        self.cleanup();
    }
}

/// Creates `p`, failing if it exists.
fn create_new(p: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(p)
}

/// The first of `names` that `make` creates (a name that exists already is skipped); when every
/// name is taken, an error naming the pattern `pattern()`.
fn first_free<T>(
    names: impl Iterator<Item = PathBuf>,
    make: impl Fn(&Path) -> std::io::Result<T>,
    pattern: impl FnOnce() -> PathBuf,
) -> Result<(PathBuf, T)> {
    for p in names {
        match make(&p) {
            Ok(made) => return Ok((p, made)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(Error::Write { path: p, source }),
        }
    }
    Err(Error::Write {
        path: pattern(),
        source: std::io::Error::other("no free temporary name"),
    })
}

/// Writes `bytes` through `file` (created for `path`), or to `path` when there is none.
fn write_into(path: PathBuf, file: Option<File>, bytes: &[u8]) -> Result<PathBuf> {
    let written = match file {
        Some(mut f) => std::io::Write::write_all(&mut f, bytes),
        None => std::fs::write(&path, bytes),
    };
    match written {
        Ok(()) => Ok(path),
        Err(source) => Err(Error::Write { path, source }),
    }
}

/// Writes `bytes` to `path` through offkit's one output path (atomically for a file; `-` is
/// standard output, as LLVM's `raw_fd_ostream` has it).
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    offkit_tools::fs::write_file(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to `path` atomically, keeping the permissions `path` already has (it
/// rewrites the host linker's output in place).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut out = offkit_tools::fs::Output::create(path).map_err(err)?;
    std::io::Write::write_all(&mut out, bytes).map_err(err)?;
    out.keep_permissions_of_dest().map_err(err)?;
    out.commit().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_directories_hold_unique_names_and_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let t = Temps::new(dir.path().to_path_buf(), false);
        let d = t.private_dir("p.amdgcn.gfx90a.lto").unwrap().unwrap();
        assert!(d.is_dir() && d.starts_with(dir.path()));
        let a = t.create_in(&d, "k-amdgcn-gfx90a", "o", b"a").unwrap();
        let b = t.create_in(&d, "k-amdgcn-gfx90a", "o", b"b").unwrap();
        assert_eq!(a, d.join("k-amdgcn-gfx90a.o"));
        assert_eq!(b, d.join("k-amdgcn-gfx90a-2.o"));
        assert_eq!(std::fs::read(&b).unwrap(), b"b");
        t.cleanup();
        assert!(!d.exists());
        let s = Temps::new(dir.path().to_path_buf(), true);
        assert_eq!(s.private_dir("p").unwrap(), None);
    }

    #[test]
    fn names_like_llvm() {
        let dir = tempfile::tempdir().unwrap();
        let t = Temps::new(dir.path().to_path_buf(), false);
        let a = t.create("p.x86_64.native", "img").unwrap();
        let name = a.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name.starts_with("p.x86_64.native-") && name.ends_with(".img"),
            "{name}"
        );
        assert_eq!(name.len(), "p.x86_64.native-".len() + 6 + 4);
        let b = t.create("p.x86_64.native", "img").unwrap();
        assert_ne!(a, b);
        assert!(a.exists() && b.exists());
        t.cleanup();
        assert!(!a.exists() && !b.exists());
        let s = Temps::new(dir.path().to_path_buf(), true);
        assert_eq!(s.create("p", "o").unwrap(), PathBuf::from("p.o"));
    }
}
