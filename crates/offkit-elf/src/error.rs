//! The one error type of the ELF editor.

/// What went wrong reading, editing or rebuilding an ELF file. Every variant about the input
/// names the absolute file offset of what is wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A header or table cannot be read (not ELF, truncated, out of range).
    #[error("bad ELF {what} at {offset:#x}")]
    Malformed {
        /// What was being read.
        what: &'static str,
        /// Where it is (or should be) in the file.
        offset: u64,
        /// What the `object` crate found.
        #[source]
        source: object::read::Error,
    },
    /// Something readable that this editor does not edit, or a value out of its range.
    #[error("{what} (at {offset:#x})")]
    Unsupported {
        /// What it is.
        what: &'static str,
        /// Where it is in the file.
        offset: u64,
    },
    /// A value does not fit its field in a 32-bit ELF file.
    #[error("{field} {value:#x} does not fit a 32-bit ELF file")]
    TooLarge {
        /// The field (`sh_offset`, `e_shoff`, …).
        field: &'static str,
        /// The value.
        value: u64,
    },
    /// The symbol table has a local symbol after a global one: a rebuild would renumber them.
    #[error("local symbol {index} (at {offset:#x}) follows a global one")]
    LocalAfterGlobal {
        /// The symbol's index.
        index: usize,
        /// The symbol's file offset.
        offset: u64,
    },
    /// `object`'s builder failed to read or write the file.
    #[error("cannot rebuild the ELF file")]
    Rebuild(#[source] object::build::Error),
}

impl Error {
    /// The file offset the error is about (0 for a rebuild error: `object`'s builder does not
    /// say).
    pub fn offset(&self) -> u64 {
        match self {
            Error::Malformed { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::LocalAfterGlobal { offset, .. } => *offset,
            Error::TooLarge { .. } | Error::Rebuild(_) => 0,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
