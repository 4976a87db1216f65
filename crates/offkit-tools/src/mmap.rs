//! Opening inputs: the one place offkit opens a file it reads, and the one memory-mapping
//! helper (with [`crate::fs::ignore_file_size_signal`] and [`crate::fs::map_large_allocations`],
//! the only `unsafe` outside the runtime crate).
//!
//! Inputs are mapped rather than read so that inspecting a gigabyte object touches only the
//! pages holding its headers, and so that bytes borrowed by the parsers need no copy.
//!
//! Only regular files are inputs. A FIFO would hang the reader (opening one blocks until a
//! writer comes), `/dev/zero` would be read until memory runs out, a directory has no bytes:
//! each is refused at once, by `fstat` on a descriptor opened with `O_NONBLOCK` (so that even
//! the open cannot block), with an error that says what the path is. Standard input (`-`, where
//! a command documents it) is mapped when it is a regular file and read otherwise, up to
//! [`MAX_STREAM_INPUT`] bytes, with every allocation fallible (a failed one is an error, not an
//! abort). The drop-in faces of LLVM's tools also take a character or block device that is
//! empty at its first read, because LLVM accepts them and clang's drivers use one
//! (`-input=/dev/null` is the HIP driver's host input); a device that yields bytes (`/dev/zero`,
//! `/dev/urandom`) is refused after that one read, where LLVM reads it until it runs out of
//! memory and aborts.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::ops::Deref;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The most bytes read from standard input: 4 GiB. Regular
/// files are mapped and have no such bound.
pub const MAX_STREAM_INPUT: u64 = 4 << 30;

/// How an input that is neither a regular file nor a directory is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// Refused, whatever it is (the `offkit` subcommands).
    Refuse,
    /// A character or block device that is empty at its first read (`/dev/null`) is an empty
    /// input, as in LLVM; one that yields bytes (`/dev/zero`) is refused at once (LLVM reads
    /// it until memory runs out); FIFOs and sockets are refused (LLVM hangs on them). The
    /// drop-in faces.
    EmptyDevices,
}

/// A read-only view of a whole input: mapped when it is a regular non-empty file, read into
/// memory otherwise (empty files, standard input, devices read by the drop-in faces).
#[derive(Debug)]
pub enum MappedFile {
    /// A memory map of the file.
    Mapped(memmap2::Mmap),
    /// The file's bytes, read.
    Read(Vec<u8>),
}

/// The error for a device that yielded bytes at its first read (see [`Special::EmptyDevices`]).
fn not_empty_device(t: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file ({} that is not empty); only regular files and empty devices \
             are read as inputs",
            describe(t)
        ),
    )
}

/// An opened input: its bytes, and for a regular file the open descriptor the bytes came from
/// (for copying ranges of it in the kernel — never a second open by path, which could find
/// another file).
#[derive(Debug)]
pub struct Opened {
    /// The input's bytes.
    pub data: MappedFile,
    /// The regular file they were mapped from.
    pub file: Option<File>,
}

/// What `path`'s file type is, in words, for an input that is not a regular file.
fn describe(t: std::fs::FileType) -> &'static str {
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// The error for an input of file type `t`: a directory is `EISDIR` ("Is a directory", as LLVM
/// prints it), anything else says what it is.
fn not_regular(t: std::fs::FileType) -> io::Error {
    if t.is_dir() {
        return io::Error::from_raw_os_error(libc::EISDIR);
    }
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file ({}); only regular files are read as inputs",
            describe(t)
        ),
    )
}

/// Opens the input `path`: the one function through which offkit opens what it reads.
pub fn open(path: &Path, special: Special) -> io::Result<Opened> {
    // O_NONBLOCK: opening a FIFO for reading blocks until a writer opens it; with the flag the
    // open returns at once and the fstat below refuses it. The flag does nothing to the mapping
    // or to `copy_file_range` on a regular file.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let t = file.metadata()?.file_type();
    if t.is_file() {
        let data = map(&file)?;
        return Ok(Opened {
            data,
            file: Some(file),
        });
    }
    if special == Special::EmptyDevices && (t.is_char_device() || t.is_block_device()) {
        // Reopened without O_NONBLOCK, so that a read waits as LLVM's would; one read of a
        // byte tells an empty device from one that would be read until memory runs out.
        drop(file);
        let mut byte = [0u8; 1];
        let mut device = File::open(path)?;
        loop {
            match device.read(&mut byte) {
                Ok(0) => break,
                Ok(_) => return Err(not_empty_device(t)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        return Ok(Opened {
            data: MappedFile::Read(Vec::new()),
            file: None,
        });
    }
    Err(not_regular(t))
}

/// Maps the regular file `file` (an empty one is read: a zero-length map is an error).
fn map(file: &File) -> io::Result<MappedFile> {
    if file.metadata()?.len() == 0 {
        return Ok(MappedFile::Read(Vec::new()));
    }
    // SAFETY: the map is read-only and private to this process. Another process truncating
    // or rewriting the file while it is mapped could change or unmap the bytes under us
    // (SIGBUS); that is the accepted hazard of every mmap-based tool (LLVM's tools map their
    // inputs the same way), and offkit never maps a file it is writing.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file)? };
    cover_holes(file, &map);
    Ok(MappedFile::Mapped(map))
}

/// The most holes of a file [`cover_holes`] covers (each costs the process two map areas; the
/// kernel allows about 65,000).
const MAX_COVERED_HOLES: usize = 8192;

/// The smallest hole [`cover_holes`] covers.
const MIN_COVERED_HOLE: u64 = 64 << 10;

/// Maps anonymous zero pages over the holes of the sparse file `file` in its fresh map `map`.
///
/// offkit's own rewrites leave the bytes they free as holes: a 1 GiB library compressed in place
/// is 1 GiB long and 500 KiB on disk. Walking its bundles skips the zero padding between them
/// byte by byte, and every page of a hole read through the file's map is a page-cache page of
/// zeros counted in the resident set: `inspect` of such a file peaked at 1 GiB. Anonymous pages
/// that are only read are the kernel's one shared zero page and count for nothing, so the walk
/// over a covered hole reads the same zeros at no cost in memory. Best effort: on any failure
/// the hole stays as mapped (the same bytes, read from the file).
fn cover_holes(file: &File, map: &memmap2::Mmap) {
    use std::os::fd::AsRawFd;
    let len = map.len() as u64;
    if len < 2 * MIN_COVERED_HOLE {
        return;
    }
    let fd = file.as_raw_fd();
    // SAFETY: `lseek` on a descriptor we own; the position is put back below (the caller may
    // read the file by its position).
    #[allow(unsafe_code)]
    let saved = unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) };
    if saved < 0 {
        return;
    }
    // SAFETY: `sysconf` has no preconditions.
    #[allow(unsafe_code)]
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as u64,
        _ => 4096,
    };
    let mut pos = 0u64;
    let mut covered = 0;
    while pos < len && covered < MAX_COVERED_HOLES {
        // SAFETY: as above; SEEK_HOLE and SEEK_DATA only report offsets.
        #[allow(unsafe_code)]
        let hole = unsafe { libc::lseek(fd, pos as libc::off_t, libc::SEEK_HOLE) };
        if hole < 0 || hole as u64 >= len {
            break;
        }
        let hole = hole as u64;
        // SAFETY: as above. ENXIO: only a hole is left, to the end of the file.
        #[allow(unsafe_code)]
        let data = unsafe { libc::lseek(fd, hole as libc::off_t, libc::SEEK_DATA) };
        let end = if data < 0 {
            len
        } else {
            (data as u64).min(len)
        };
        if end <= hole {
            break;
        }
        let start = hole.div_ceil(page) * page;
        let stop = end / page * page;
        if stop > start && stop - start >= MIN_COVERED_HOLE {
            // SAFETY: the range lies inside `map` (page-aligned, `stop <= len`), which nothing
            // borrows yet; MAP_FIXED replaces those pages of it by anonymous read-only pages
            // that read as zeros, which is what the hole holds, and dropping the map unmaps
            // them with the rest.
            #[allow(unsafe_code)]
            let r = unsafe {
                libc::mmap(
                    map.as_ptr().add(start as usize) as *mut libc::c_void,
                    (stop - start) as usize,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r == libc::MAP_FAILED {
                break;
            }
            covered += 1;
        }
        pos = end;
    }
    // SAFETY: as above.
    #[allow(unsafe_code)]
    unsafe {
        libc::lseek(fd, saved, libc::SEEK_SET);
    }
}

/// Reads `r` to its end, refusing more than `limit` bytes; a failed allocation is an
/// `OutOfMemory` error rather than an abort.
pub fn read_bounded(mut r: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut v: Vec<u8> = Vec::new();
    let mut chunk = 64 << 10;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(v),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if (v.len() + n) as u64 > limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the input is larger than {limit} bytes, the most offkit reads from a stream"
                ),
            ));
        }
        if v.capacity() - v.len() < n {
            v.try_reserve(chunk.max(n)).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    format!(
                        "cannot hold the input in memory after {} bytes: {e}",
                        v.len()
                    ),
                )
            })?;
            chunk = chunk.saturating_mul(2).min(256 << 20);
        }
        v.extend_from_slice(buf.get(..n).unwrap_or_default());
    }
}

impl MappedFile {
    /// Opens and maps the regular file `path`; anything else is refused
    /// ([`Special::Refuse`]).
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        open(path, Special::Refuse).map(|o| o.data)
    }

    /// Drops the pages of the map from the process's resident set; they stay in the page cache,
    /// and a later access maps them again. A walk over a large file touches one page per
    /// header, and the kernel maps 64 KiB around each touch (a whole 2 MiB huge page where the
    /// page cache holds the file in huge folios): releasing as it goes keeps the resident set
    /// within a few MiB however many headers the file has. Errors are ignored (the
    /// only cost of a failure is memory).
    pub fn release(&self) {
        if let MappedFile::Mapped(m) = self {
            // SAFETY: the map is a read-only shared mapping of a file: after MADV_DONTNEED its
            // pages are read back from the file (the page cache) on the next access, with the
            // same contents, so slices borrowed from it stay valid.
            #[allow(unsafe_code)]
            let _ = unsafe { m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Opens `path` as LLVM's tools would accept it: a regular file, or an empty device
    /// ([`Special::EmptyDevices`]). For the drop-in faces.
    pub fn open_llvm(path: &Path) -> io::Result<MappedFile> {
        open(path, Special::EmptyDevices).map(|o| o.data)
    }

    /// Standard input: mapped when it is a regular file (`< file`), read otherwise, up to
    /// [`MAX_STREAM_INPUT`] bytes.
    pub fn stdin() -> io::Result<MappedFile> {
        Ok(stdin()?.data)
    }
}

/// Standard input as an [`Opened`] input (see [`MappedFile::stdin`]).
pub fn stdin() -> io::Result<Opened> {
    let stdin = io::stdin();
    let file = File::from(stdin.as_fd().try_clone_to_owned()?);
    let meta = file.metadata()?;
    if meta.is_file() {
        // Mapped from offset 0 whatever the descriptor's position, as LLVM maps it.
        let data = map(&file)?;
        return Ok(Opened {
            data,
            file: Some(file),
        });
    }
    if meta.is_dir() {
        return Err(not_regular(meta.file_type()));
    }
    let data = read_bounded(stdin.lock(), MAX_STREAM_INPUT)?;
    Ok(Opened {
        data: MappedFile::Read(data),
        file: None,
    })
}

impl Deref for MappedFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            MappedFile::Mapped(m) => m,
            MappedFile::Read(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_sparse_file_reads_the_same_with_its_holes_covered() {
        use std::io::{Seek, SeekFrom, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        let mut f = File::create(&path).unwrap();
        // Data, a 3 MiB hole, data not on a page boundary, a hole to the end.
        f.write_all(&[7; 5000]).unwrap();
        f.seek(SeekFrom::Start((3 << 20) + 123)).unwrap();
        f.write_all(&[9; 70_000]).unwrap();
        f.set_len(6 << 20).unwrap();
        drop(f);
        let m = MappedFile::open(&path).unwrap();
        assert_eq!(m.len(), 6 << 20);
        let want = |i: usize| match i {
            0..5000 => 7,
            i if (((3 << 20) + 123)..((3 << 20) + 123 + 70_000)).contains(&i) => 9,
            _ => 0,
        };
        assert!(m.iter().enumerate().all(|(i, &b)| b == want(i)));
        // The position of the descriptor is not moved by the hole search.
        let o = open(&path, Special::Refuse).unwrap();
        let mut file = o.file.unwrap();
        assert_eq!(file.stream_position().unwrap(), 0);
    }

    #[test]
    fn maps_and_reads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(&*MappedFile::open(&p).unwrap(), b"hello");
        let o = open(&p, Special::Refuse).unwrap();
        assert!(o.file.is_some());
        std::fs::write(&p, b"").unwrap();
        assert_eq!(&*MappedFile::open(&p).unwrap(), b"");
        let e = MappedFile::open(&dir.path().join("missing")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn special_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let e = MappedFile::open(dir.path()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        assert_eq!(
            MappedFile::open_llvm(dir.path())
                .unwrap_err()
                .raw_os_error(),
            Some(libc::EISDIR)
        );
        // A FIFO with no writer: opening it for reading would block forever.
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let start = Instant::now();
        for special in [Special::Refuse, Special::EmptyDevices] {
            let e = open(&fifo, special).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().contains("a FIFO"), "{e}");
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        let zero = Path::new("/dev/zero");
        let e = MappedFile::open(zero).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        // The drop-in faces take an empty device as LLVM does, and refuse one that yields
        // bytes after one read.
        assert_eq!(
            &*MappedFile::open_llvm(Path::new("/dev/null")).unwrap(),
            b""
        );
        let start = Instant::now();
        let e = MappedFile::open_llvm(zero).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string()
                .contains("a character device that is not empty"),
            "{e}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn streams_are_read_with_a_bound() {
        let zero = File::open("/dev/zero").unwrap();
        let e = read_bounded(zero, 3 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("larger than"), "{e}");
        let v = read_bounded(&b"abc"[..], 3).unwrap();
        assert_eq!(v, b"abc");
        let v = read_bounded(io::repeat(7).take(200_000), 1 << 20).unwrap();
        assert_eq!(v.len(), 200_000);
        assert!(v.iter().all(|&b| b == 7));
    }
}
