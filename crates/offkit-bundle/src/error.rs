//! The one error type of the file-level bundler.

use std::path::PathBuf;

/// Something that went wrong reading or writing bundle files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input could not be read.
    #[error("cannot read `{}`", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An output could not be written.
    #[error("cannot write `{}`", path.display())]
    Write {
        /// The file (`-` for stdout).
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input holds malformed offloading data.
    #[error("invalid offload data in {input}")]
    Format {
        /// The input, with the archive member as `lib.a(member.o)`.
        input: String,
        /// The format error (with the absolute offset).
        #[source]
        source: offkit_format::Error,
    },
    /// An input is well formed but cannot be used as asked.
    #[error("{input}: {message}")]
    Unusable {
        /// The input, with the archive member as `lib.a(member.o)`.
        input: String,
        /// What is wrong.
        message: String,
    },
    /// Several entries of a bundle are compatible with a requested target and none is it
    /// exactly.
    #[error("several entries are compatible with `{target}`: {}; name one exactly", .entries.join(", "))]
    AmbiguousTarget {
        /// The requested target.
        target: String,
        /// The IDs of the compatible entries.
        entries: Vec<String>,
    },
    /// An object file could not be read or rewritten.
    #[error("cannot rewrite the object file {input}")]
    Object {
        /// The input.
        input: String,
        /// The object crate's error.
        #[source]
        source: crate::fatobj::FatObjError,
    },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
