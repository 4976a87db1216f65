//! Inputs and outputs: inputs are mapped (so that reading a header touches only its pages) and
//! payloads are moved between files by the kernel (`copy_file_range` through `std::io::copy`)
//! rather than through memory; outputs are written to a temporary file in their directory and
//! renamed into place only when complete, so a failure never leaves a partial file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use offkit_tools::mmap::{self, MappedFile, Special};

pub use offkit_tools::fs::{write_file, Output, STDIO};

/// An input file: its bytes (mapped, or read when it is stdin or not a regular file) and, for a
/// regular file, a handle for copying ranges of it without reading them into memory.
#[derive(Debug)]
pub struct Input {
    path: PathBuf,
    data: MappedFile,
    file: Option<File>,
}

impl Input {
    /// Opens `path` (`-` is standard input); only a regular file is an input (see
    /// [`offkit_tools::mmap::open`]).
    pub fn open(path: &Path) -> io::Result<Input> {
        Input::open_with(path, Special::Refuse)
    }

    /// Opens `path` as LLVM's tools accept it: also an empty device (`/dev/null`); a device
    /// that yields bytes is refused ([`offkit_tools::mmap::Special::EmptyDevices`]).
    pub fn open_llvm(path: &Path) -> io::Result<Input> {
        Input::open_with(path, Special::EmptyDevices)
    }

    fn open_with(path: &Path, special: Special) -> io::Result<Input> {
        let opened = if path.as_os_str() == STDIO {
            mmap::stdin()?
        } else {
            mmap::open(path, special)?
        };
        Ok(Input {
            path: path.to_path_buf(),
            data: opened.data,
            file: opened.file,
        })
    }

    /// An input held in memory (decompressed data, an archive member), named `path` in messages.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Input {
        Input {
            path: path.into(),
            data: MappedFile::Read(bytes),
            file: None,
        }
    }

    /// The path it was opened as.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// All its bytes (mapped: only the pages touched are read).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Its size.
    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Copies `len` bytes at `offset` to `out`: by the kernel for a regular file, from memory
    /// otherwise. The range must lie within the input.
    pub fn copy_range(&self, offset: u64, len: u64, out: &mut Output) -> io::Result<()> {
        let end = offset
            .checked_add(len)
            .filter(|&e| e <= self.len())
            .ok_or_else(|| io::Error::other("range outside the input"))?;
        match &self.file {
            Some(f) => out.copy_range(f, offset, len),
            None => {
                let s = self
                    .data
                    .get(offset as usize..end as usize)
                    .unwrap_or_default();
                out.write_all(s)
            }
        }
    }

    /// Copies the whole input to `out`.
    pub fn copy_all(&self, out: &mut Output) -> io::Result<()> {
        self.copy_range(0, self.len(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_copied_and_outputs_are_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("in");
        std::fs::write(&src, b"0123456789").unwrap();
        let input = Input::open(&src).unwrap();
        let dst = dir.path().join("out");
        let mut out = Output::create(&dst).unwrap();
        input.copy_range(2, 3, &mut out).unwrap();
        out.write_zeros(2).unwrap();
        input.copy_range(8, 2, &mut out).unwrap();
        assert!(input.copy_range(8, 3, &mut out).is_err());
        assert!(!dst.exists());
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dst).unwrap(), b"234\0\089");
        // Dropped without commit: nothing is left behind.
        let other = dir.path().join("other");
        let mut out = Output::create(&other).unwrap();
        out.write_all(b"partial").unwrap();
        drop(out);
        assert!(!other.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
