//! Files as LLVM 19's packager sees them: `sys::path` name rules, and outputs written the way
//! `FileOutputBuffer` writes them (a temporary file in the same directory renamed into place,
//! mode 0666 less the umask; `-` is standard output; a device or pipe is written in place; a
//! directory is "Is a directory").

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::dropin::cl::os_message;

/// `sys::path::filename`: the last component; a path ending in `/` names `.`.
pub fn filename(path: &str) -> &str {
    if path.is_empty() {
        return "";
    }
    if path.ends_with('/') {
        // A root of only slashes is its own name.
        return if path.bytes().all(|b| b == b'/') {
            "/"
        } else {
            "."
        };
    }
    path.rsplit('/').next().unwrap_or(path)
}

/// `sys::path::extension`, without the dot (what the packager gives `getImageKind`).
pub fn extension(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return "";
    }
    match name.rfind('.') {
        Some(at) => &name[at + 1..],
        None => "",
    }
}

/// `sys::path::stem`: the file name without its last extension.
pub fn stem(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return name;
    }
    match name.rfind('.') {
        Some(at) => &name[..at],
        None => name,
    }
}

/// The message LLVM prints for an I/O error (`std::error_code::message()`).
pub fn message(e: &io::Error) -> String {
    os_message(e)
}

fn is_a_directory() -> io::Error {
    io::Error::from_raw_os_error(21)
}

/// Where an output goes.
enum Target {
    Stdout,
    /// A device, pipe or socket: written in place (LLVM will not rename over it).
    InPlace(File),
    /// A regular file (or none yet): a temporary file renamed into place on success.
    Temp(TempFile, PathBuf),
}

/// A temporary file next to the output, removed unless kept. (Not `tempfile`'s: its errors
/// hide the OS error code that LLVM's messages are made of.)
struct TempFile {
    file: File,
    path: PathBuf,
    keep: bool,
}

impl TempFile {
    /// Creates `<dir>/<name>.tmp<random>` with mode 0666 less the umask, as LLVM's
    /// `TempFile::create` does.
    fn create(dir: &Path, name: &str) -> io::Result<TempFile> {
        use std::os::unix::fs::OpenOptionsExt;
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id()) << 32;
        for attempt in 0u64..100 {
            let tag = seed.wrapping_add(attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let path = dir.join(format!("{name}.tmp{:07x}", tag & 0xFFF_FFFF));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(&path)
            {
                Ok(file) => {
                    return Ok(TempFile {
                        file,
                        path,
                        keep: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from_raw_os_error(17))
    }

    fn persist(mut self, to: &Path) -> io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.keep = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The destination of an [`Output`]: concrete types, so that `std::io::copy` from a file can
/// use `copy_file_range` (or `splice` into a pipe).
pub enum Sink<'a> {
    /// The destination file.
    File(&'a mut File),
    /// Standard output.
    Stdout(io::StdoutLock<'static>),
}

impl Sink<'_> {
    /// Copies `len` bytes of `src` (from its current position) here, in the kernel where it
    /// can; returns how many bytes were copied.
    pub fn copy_from(&mut self, src: &File, len: u64) -> io::Result<u64> {
        let mut src = src.take(len);
        match self {
            Sink::File(f) => io::copy(&mut src, *f),
            Sink::Stdout(s) => io::copy(&mut src, s),
        }
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(f) => f.write_all(buf),
            Sink::Stdout(s) => s.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
        }
    }
}

/// An output being written; dropped without [`Output::commit`], it leaves nothing behind.
pub struct Output {
    target: Target,
}

impl Output {
    /// Opens `path` as `FileOutputBuffer::create` would.
    pub fn create(path: &str) -> io::Result<Output> {
        if path == "-" {
            return Ok(Output {
                target: Target::Stdout,
            });
        }
        let p = Path::new(path);
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => return Err(is_a_directory()),
            Ok(m) if !m.is_file() => {
                let f = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(p)?;
                return Ok(Output {
                    target: Target::InPlace(f),
                });
            }
            _ => {}
        }
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let tmp = TempFile::create(dir, &name)?;
        Ok(Output {
            target: Target::Temp(tmp, p.to_path_buf()),
        })
    }

    /// Writes through `fill`, which gets the destination file itself when there is one (so
    /// that copies can go file to file) or standard output.
    pub fn fill(&mut self, fill: impl FnOnce(&mut Sink<'_>) -> io::Result<()>) -> io::Result<()> {
        let mut sink = match &mut self.target {
            Target::Stdout => Sink::Stdout(io::stdout().lock()),
            Target::InPlace(f) => Sink::File(f),
            Target::Temp(t, _) => Sink::File(&mut t.file),
        };
        fill(&mut sink)?;
        sink.flush()
    }

    /// Puts the output in place.
    pub fn commit(self) -> io::Result<()> {
        match self.target {
            Target::Stdout | Target::InPlace(_) => Ok(()),
            // No fsync: LLVM's FileOutputBuffer does not sync either, and syncing a gigabyte
            // would cost more than writing it.
            Target::Temp(t, path) => t.persist(&path),
        }
    }
}

/// Writes `data` to `path` as LLVM's `writeFile` helper does.
pub fn write_file(path: &str, data: &[u8]) -> Result<(), String> {
    let mut out = Output::create(path).map_err(|e| message(&e))?;
    out.fill(|w| w.write_all(data)).map_err(|e| message(&e))?;
    out.commit().map_err(|e| message(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_path_rules() {
        assert_eq!(extension("a/b.o"), "o");
        assert_eq!(extension("a.b/c"), "");
        assert_eq!(extension(".o"), "o");
        assert_eq!(extension("x."), "");
        assert_eq!(extension(".."), "");
        assert_eq!(extension("-"), "");
        assert_eq!(stem("dir/k.tar.gz"), "k.tar");
        assert_eq!(stem(".hidden"), "");
        assert_eq!(stem("-"), "-");
        assert_eq!(stem("a/"), ".");
        assert_eq!(filename("/"), "/");
    }

    #[test]
    fn outputs_are_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        let ps = p.to_str().unwrap();
        let mut o = Output::create(ps).unwrap();
        o.fill(|w| w.write_all(b"abc")).unwrap();
        drop(o);
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        write_file(ps, b"abc").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"abc");
        assert_eq!(
            write_file(dir.path().to_str().unwrap(), b"x"),
            Err("Is a directory".to_string())
        );
        assert_eq!(
            write_file(dir.path().join("no/x").to_str().unwrap(), b"x"),
            Err("No such file or directory".to_string())
        );
    }
}
