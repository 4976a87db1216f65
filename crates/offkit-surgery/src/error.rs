//! The one error type of surgery.

use std::path::PathBuf;

/// Something that went wrong planning, writing or checking a rewrite.
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
    /// An input could not be opened or mapped.
    #[error("failed to read `{}`", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input to be rewritten in place is mapped for writing by a process.
    #[error(
        "`{}` is mapped for writing by process {pid}: rewriting it in place would lose that \
         process's writes (stop it, or write elsewhere with -o)",
        path.display()
    )]
    MappedForWriting {
        /// The file.
        path: PathBuf,
        /// The process.
        pid: u32,
    },
    /// An input to be written somewhere is not a regular file.
    #[error("`{}` is not a regular file", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// An output could not be written.
    #[error("cannot write `{}`", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input holds malformed offloading data.
    #[error("invalid offload data in {input}")]
    Format {
        /// The input.
        input: String,
        /// The format error (with the absolute offset).
        #[source]
        source: offkit_format::Error,
    },
    /// A rewritten bundle does not fit where it must stay.
    #[error(
        "{input}: bundle {index} of `{section}` at {offset:#x} would be {new_size} bytes, but its \
         space up to the next bundle is {slot} bytes: {short} bytes short (a linked file's \
         sections cannot move)"
    )]
    DoesNotFit {
        /// The input.
        input: String,
        /// The section (`.hip_fatbin`, or `(file)` for a raw bundle file).
        section: String,
        /// The bundle's index in its section.
        index: usize,
        /// Its absolute offset.
        offset: u64,
        /// Its size once rewritten.
        new_size: u64,
        /// The bytes it may take.
        slot: u64,
        /// By how many bytes it does not fit.
        short: u64,
    },
    /// An input is well formed but cannot be rewritten as asked.
    #[error("{input}: {message}")]
    Unusable {
        /// The input.
        input: String,
        /// What is wrong.
        message: String,
    },
    /// An input's ELF headers cannot be read or edited as asked.
    #[error("{input}: cannot edit its ELF headers")]
    Elf {
        /// The input.
        input: String,
        /// What is wrong (with the absolute offset).
        #[source]
        source: offkit_elf::Error,
    },
    /// An input's offloading contents could not be read (`offkit size`).
    #[error(transparent)]
    Scan(offkit_bundle::Error),
    /// A prune would leave a file without any device image (`allow_empty` not given).
    #[error(
        "{input}: the prune would leave no device image (it drops {}); keep one of their devices, \
         or give --allow-empty",
        removed.join(", ")
    )]
    NoDeviceImage {
        /// The input.
        input: String,
        /// The images it would drop: every device image of the file.
        removed: Vec<String>,
    },
    /// The rewritten file's offload data does not parse (a bug: nothing was written).
    #[error("{input}: the rewritten file does not read back")]
    Reread {
        /// The input.
        input: String,
        /// The format error (with the absolute offset).
        #[source]
        source: offkit_format::Error,
    },
    /// The rewritten file did not read back as it should (a bug: nothing was written).
    #[error("{input}: the rewritten file does not check out: {message}")]
    Validation {
        /// The input.
        input: String,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// [`Error::Unusable`] for `input`.
    pub(crate) fn unusable(input: &str, message: impl Into<String>) -> Error {
        Error::Unusable {
            input: input.to_string(),
            message: message.into(),
        }
    }

    /// [`Error::Validation`] for `input`.
    pub(crate) fn validation(input: &str, message: impl Into<String>) -> Error {
        Error::Validation {
            input: input.to_string(),
            message: message.into(),
        }
    }

    /// [`Error::Elf`] for `input`.
    pub(crate) fn elf(input: &str, source: offkit_elf::Error) -> Error {
        Error::Elf {
            input: input.to_string(),
            source,
        }
    }

    /// [`Error::Reread`] for `input`.
    pub(crate) fn reread(input: &str, source: offkit_format::Error) -> Error {
        Error::Reread {
            input: input.to_string(),
            source,
        }
    }
}

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
