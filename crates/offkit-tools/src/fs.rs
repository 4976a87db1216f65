//! Writing outputs — the one output path of offkit: every file offkit writes goes through
//! [`Output`] (or [`write_file`], its one-call form).
//!
//! A file output is written to a temporary file beside the destination ([`AtomicFile`], on
//! `tempfile::Builder`), renamed into place (`persist`) only when everything was written, and
//! removed otherwise — so a failure never leaves a partial output, and readers never see a
//! half-written file. Killed outright (`kill -9`), offkit leaves the previous output intact or
//! none; only the temporary file (`.<name>.<random>.tmp`) can remain. A file-size limit
//! (`RLIMIT_FSIZE`) is an `EFBIG` error, not a kill, once [`ignore_file_size_signal`] has run.
//!
//! The file ends up with mode `0666` less the umask, as a file created in place would (and as
//! LLVM's `FileOutputBuffer` leaves it). Errors are the raw OS errors, so that drop-in tools can
//! print them the way LLVM does.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file being written under a temporary name next to its destination.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile<File>,
    dest: PathBuf,
}

impl AtomicFile {
    /// Creates `<dir of dest>/.<name of dest>.<random>.tmp` (mode 0666 less the umask).
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        let dir = dest
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        // `make_in` with our own open (rather than `tempfile_in`) keeps the OS error bare, so
        // that `raw_os_error` — and with it LLVM's text — survives.
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .make_in(dir, |p| {
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .mode(0o666)
                    .open(p)
            })?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
        })
    }

    /// The open temporary file (a real `File`, so `std::io::copy` can use `copy_file_range`).
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// The temporary file's path (for tools that write it themselves).
    pub fn tmp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Gives the new file the permissions `dest` has now, if it exists (for rewriting a file in
    /// place, e.g. an executable).
    pub fn keep_permissions_of_dest(&self) -> io::Result<()> {
        match std::fs::metadata(&self.dest) {
            Ok(m) => std::fs::set_permissions(self.tmp.path(), m.permissions()),
            Err(_) => Ok(()),
        }
    }

    /// Renames the temporary file over the destination.
    pub fn commit(mut self) -> io::Result<()> {
        self.tmp.as_file_mut().flush()?;
        // No fsync: LLVM's FileOutputBuffer does not sync either, and syncing a gigabyte
        // would cost more than writing it.
        self.tmp.persist(&self.dest).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    // Through the `File`: `NamedTempFile`'s own `Write` wraps errors with its path.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tmp.as_file_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tmp.as_file_mut().flush()
    }
}

/// Makes a write past the file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) fail with `EFBIG`
/// instead of killing the process with `SIGXFSZ`, so that the error path removes the temporary
/// file. Called once at the start of the `offkit` binary. The disposition is inherited by the
/// tools offkit runs, which then see `EFBIG` too (LLVM's tools report it as a write error).
pub fn ignore_file_size_signal() {
    // SAFETY: `signal` with `SIG_IGN` installs no handler (no code runs on the signal), so
    // nothing can run in a signal context; it only changes how the kernel treats SIGXFSZ.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// The size from which an allocation gets its own mapping, returned to the system when freed:
/// 1 MiB.
pub const LARGE_ALLOCATION: usize = 1 << 20;

/// Makes glibc's `malloc` serve every allocation of [`LARGE_ALLOCATION`] bytes or more from its
/// own mapping, unmapped when freed. By default glibc raises that threshold each time such a
/// block is freed (up to 32 MiB), after which blocks of a few MiB come from per-thread arenas
/// and stay there: a rewrite that inflates bundles of 8 MiB on a few threads then kept ~100 MiB
/// mapped although at most ~40 MiB were live. With a fixed threshold, peak memory follows what
/// is live, which is what offkit bounds (its limits, and the windows of
/// bundles in flight). Called once at the start of the `offkit` binary; nothing else on other
/// C libraries, whose allocators do not keep freed large blocks this way.
pub fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a tunable of the allocator; it is called before any thread
    // is started, and the value is in the range glibc accepts (at most 32 MiB).
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_ALLOCATION as libc::c_int);
    }
}

/// The path that names standard input or output.
pub const STDIO: &str = "-";

/// An output being written, as LLVM's `FileOutputBuffer` writes one: `-` is standard output; an
/// existing device, pipe or socket is written in place (nothing can be renamed over it); a
/// directory is "Is a directory"; anything else goes through an [`AtomicFile`]. Dropped without
/// [`Output::commit`], a file output leaves nothing behind.
#[derive(Debug)]
pub struct Output {
    path: PathBuf,
    target: Target,
}

#[derive(Debug)]
enum Target {
    Stdout(io::Stdout),
    InPlace(File),
    Atomic(AtomicFile),
}

impl Output {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> io::Result<Output> {
        let target = if path.as_os_str() == STDIO {
            Target::Stdout(io::stdout())
        } else {
            match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => return Err(io::Error::from_raw_os_error(21)),
                Ok(m) if !m.is_file() => Target::InPlace(
                    OpenOptions::new()
                        .write(true)
                        .create(true)
                        .truncate(true)
                        .open(path)?,
                ),
                _ => Target::Atomic(AtomicFile::create(path)?),
            }
        };
        Ok(Output {
            path: path.to_path_buf(),
            target,
        })
    }

    /// The path it was created for (`-` for stdout).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this is standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.target, Target::Stdout(_))
    }

    /// Copies `len` bytes at `offset` of `src` here — by the kernel (`copy_file_range`, or
    /// `splice` into a pipe) through `std::io::copy` on concrete file types. An input shorter
    /// than promised is an `UnexpectedEof` error.
    pub fn copy_range(&mut self, src: &File, offset: u64, len: u64) -> io::Result<()> {
        let mut from = src;
        io::Seek::seek(&mut from, io::SeekFrom::Start(offset))?;
        let mut from = io::Read::take(from, len);
        let n = match &mut self.target {
            Target::Stdout(s) => io::copy(&mut from, &mut s.lock())?,
            Target::InPlace(f) => io::copy(&mut from, f)?,
            Target::Atomic(a) => io::copy(&mut from, a.file())?,
        };
        if n != len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the input ended after {n} of {len} bytes"),
            ));
        }
        Ok(())
    }

    /// Writes `n` zero bytes.
    pub fn write_zeros(&mut self, mut n: u64) -> io::Result<()> {
        const ZEROS: [u8; 8192] = [0; 8192];
        while n > 0 {
            let k = n.min(ZEROS.len() as u64) as usize;
            self.write_all(&ZEROS[..k])?;
            n -= k as u64;
        }
        Ok(())
    }

    /// Gives a file output the permissions its destination has now, if it exists (for
    /// rewriting an executable in place); nothing for other outputs.
    pub fn keep_permissions_of_dest(&self) -> io::Result<()> {
        match &self.target {
            Target::Atomic(a) => a.keep_permissions_of_dest(),
            _ => Ok(()),
        }
    }

    /// The temporary file a file output is written to, for a tool that writes it itself
    /// (`None` for standard output, a device or a pipe).
    pub fn tmp_path(&self) -> Option<&Path> {
        match &self.target {
            Target::Atomic(a) => Some(a.tmp_path()),
            _ => None,
        }
    }

    /// Finishes: renames a file into place, or flushes.
    pub fn commit(self) -> io::Result<()> {
        match self.target {
            Target::Stdout(s) => s.lock().flush(),
            Target::InPlace(mut f) => f.flush(),
            Target::Atomic(a) => a.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Stdout(s) => s.lock().write(buf),
            Target::InPlace(f) => f.write(buf),
            Target::Atomic(a) => a.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(s) => s.lock().write_all(buf),
            Target::InPlace(f) => f.write_all(buf),
            Target::Atomic(a) => a.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(s) => s.lock().flush(),
            Target::InPlace(f) => f.flush(),
            Target::Atomic(a) => a.flush(),
        }
    }
}

/// Outputs that appear together: each is written to its temporary file, and only when all
/// are written are they renamed into place, one after another — so a failure while writing
/// any of them leaves none behind (only a failing rename, after the others succeeded, can
/// leave some).
#[derive(Debug, Default)]
pub struct Outputs(Vec<Output>);

impl Outputs {
    /// Adds a written output, to be committed with the others.
    pub fn push(&mut self, out: Output) {
        self.0.push(out);
    }

    /// Commits them all, in order; the error names the output that failed.
    pub fn commit(self) -> Result<(), (PathBuf, io::Error)> {
        for out in self.0 {
            let path = out.path().to_path_buf();
            out.commit().map_err(|e| (path, e))?;
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` through an [`Output`]: atomically for a file, in place for a
/// device or pipe, to standard output for `-`.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = Output::create(path)?;
    out.write_all(bytes)?;
    out.commit()
}

/// The ID of a process that has `path`'s file mapped shared and writable (`/proc/*/maps`:
/// `rw-s`, the file's device and inode), if any: rewriting such a file in place would lose
/// that process's writes. `None` where `/proc` cannot be read.
pub fn mapped_for_writing(path: &Path) -> io::Result<Option<u32>> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    let (dev, ino) = (m.dev(), m.ino());
    // `/proc/PID/maps` shows the device as `major:minor` in hex (Linux's `new_encode_dev`
    // split the same way as glibc's `major`/`minor`).
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let want_dev = format!("{major:02x}:{minor:02x}");
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Ok(None);
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(maps) = std::fs::read_to_string(p.path().join("maps")) else {
            continue;
        };
        for line in maps.lines() {
            let mut f = line.split_whitespace();
            let (Some(_), Some(perms), Some(_), Some(d), Some(i)) =
                (f.next(), f.next(), f.next(), f.next(), f.next())
            else {
                continue;
            };
            if perms.as_bytes().get(1) == Some(&b'w')
                && perms.as_bytes().get(3) == Some(&b's')
                && d == want_dev
                && i.parse::<u64>().ok() == Some(ino)
            {
                return Ok(Some(pid));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn commit_renames_and_drop_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.bin");
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"partial").unwrap();
            // Dropped without commit.
        }
        assert!(!dest.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        write_file(&dest, b"whole").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"whole");
        // 0666 less some umask: at least owner read/write, never executable.
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600, "{mode:o}");
        assert_eq!(mode & 0o111, 0, "{mode:o}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn keeps_permissions_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("exe");
        std::fs::write(&dest, b"old").unwrap();
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"new").unwrap();
        f.keep_permissions_of_dest().unwrap();
        f.commit().unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }

    #[test]
    fn outputs_copy_ranges_and_are_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("in");
        std::fs::write(&src, b"0123456789").unwrap();
        let input = File::open(&src).unwrap();
        let dst = dir.path().join("out");
        let mut out = Output::create(&dst).unwrap();
        out.copy_range(&input, 2, 3).unwrap();
        out.write_zeros(2).unwrap();
        out.copy_range(&input, 8, 2).unwrap();
        assert!(!dst.exists());
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dst).unwrap(), b"234\0\089");
        // A short input is an error, and the uncommitted output leaves nothing behind.
        let other = dir.path().join("other");
        let mut out = Output::create(&other).unwrap();
        assert_eq!(
            out.copy_range(&input, 8, 3).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
        drop(out);
        assert!(!other.exists());
        let e = Output::create(dir.path()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(21));
        let mut dev = Output::create(Path::new("/dev/null")).unwrap();
        dev.write_all(b"x").unwrap();
        dev.commit().unwrap();
    }

    #[test]
    fn output_sets_appear_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = Outputs::default();
        for name in ["a", "b"] {
            let mut o = Output::create(&dir.path().join(name)).unwrap();
            o.write_all(name.as_bytes()).unwrap();
            set.push(o);
        }
        // A third output fails before the set is committed: nothing appears.
        assert!(Output::create(&dir.path().join("no/c")).is_err());
        drop(set);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut set = Outputs::default();
        let mut o = Output::create(&dir.path().join("a")).unwrap();
        o.write_all(b"a").unwrap();
        set.push(o);
        set.commit().unwrap();
        assert_eq!(std::fs::read(dir.path().join("a")).unwrap(), b"a");
    }

    #[test]
    fn missing_directory_is_the_os_error() {
        let e = AtomicFile::create(Path::new("/nonexistent-offkit/x")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
