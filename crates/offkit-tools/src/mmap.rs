//! The one memory-mapping helper (the only `unsafe` outside the runtime crate).
//!
//! Inputs are mapped rather than read so that inspecting a gigabyte object touches only the
//! pages holding its headers, and so that bytes borrowed by the parsers need no copy.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

/// A read-only view of a whole file: mapped when it is a regular non-empty file, read into
/// memory otherwise (pipes, empty files, `/dev/stdin`).
#[derive(Debug)]
pub enum MappedFile {
    /// A memory map of the file.
    Mapped(memmap2::Mmap),
    /// The file's bytes, read.
    Read(Vec<u8>),
}

impl MappedFile {
    /// Opens and maps `path`.
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() || meta.len() == 0 {
            let mut v = Vec::new();
            io::Read::read_to_end(&mut &file, &mut v)?;
            return Ok(MappedFile::Read(v));
        }
        // SAFETY: the map is read-only and private to this process. Another process truncating
        // or rewriting the file while it is mapped could change or unmap the bytes under us
        // (SIGBUS); that is the accepted hazard of every mmap-based tool (LLVM's tools map their
        // inputs the same way), and offkit never maps a file it is writing.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(MappedFile::Mapped(map))
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

    /// Reads all of standard input.
    pub fn stdin() -> io::Result<MappedFile> {
        let mut v = Vec::new();
        io::Read::read_to_end(&mut io::stdin().lock(), &mut v)?;
        Ok(MappedFile::Read(v))
    }
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

    #[test]
    fn maps_and_reads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(&*MappedFile::open(&p).unwrap(), b"hello");
        std::fs::write(&p, b"").unwrap();
        assert_eq!(&*MappedFile::open(&p).unwrap(), b"");
        assert!(MappedFile::open(&dir.path().join("missing")).is_err());
    }
}
