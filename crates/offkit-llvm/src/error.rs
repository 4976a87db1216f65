//! The one error type of the LLVM models.

use offkit_read::Limit;

/// Everything that can go wrong while reading LLVM's data (bitcode, triples, target IDs) or
/// through the bounded [`Reader`](offkit_read::Reader).
///
/// Every parse error carries the **absolute** offset (from the start of the outermost input) where
/// the problem was found, so that a message can point at the byte. `offkit_format::Error` has a
/// variant of the same name and message for each of these, and converts from this type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A command line `OptTable::parseArgs` rejects: a separate option at its end (`-o`), in
    /// LLVM's words.
    #[error("{0}: missing argument")]
    MissingArgument(String),
    /// The data ends before a structure does.
    #[error("{what} truncated at offset {offset:#x}: needs {needed} bytes, {left} left")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Where the read started.
        offset: u64,
        /// How many bytes it needed.
        needed: u64,
        /// How many bytes were left.
        left: u64,
    },
    /// The data does not start with the expected magic bytes.
    #[error("{what} at offset {offset:#x} does not start with its magic bytes")]
    BadMagic {
        /// The structure expected.
        what: &'static str,
        /// Where it was expected.
        offset: u64,
    },
    /// A version this library does not know.
    #[error("{what} at offset {offset:#x} has version {version}, which offkit does not know (known: {known})")]
    UnsupportedVersion {
        /// The structure.
        what: &'static str,
        /// Where its header starts.
        offset: u64,
        /// The version found.
        version: u64,
        /// The versions that are understood, for the message.
        known: &'static str,
    },
    /// A field has a value that makes the structure invalid.
    #[error("invalid {what} at offset {offset:#x}: {reason}")]
    Invalid {
        /// The structure or field.
        what: &'static str,
        /// Where the offending field is.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Valid input that offkit does not handle (where LLVM would take a path offkit does not
    /// implement, such as rebuilding a bitcode symbol table from the module).
    #[error("{what} at offset {offset:#x} is not supported: {reason}")]
    Unsupported {
        /// The structure.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// What offkit does not do.
        reason: String,
    },
    /// A count or size is above one of the named limits of [`offkit_read::limits`].
    #[error(
        "{what} at offset {offset:#x} is {value}, above the limit of {} ({})",
        limit.value(),
        limit.name()
    )]
    LimitExceeded {
        /// What was counted or measured.
        what: &'static str,
        /// Where the count or size was read.
        offset: u64,
        /// The value found.
        value: u64,
        /// The limit.
        limit: Limit,
    },
    /// Another error of a bounded read.
    #[error(transparent)]
    Read(offkit_read::Error),
}

/// The result type of this crate.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::LimitExceeded`] for `limit`.
    pub(crate) fn limit(limit: Limit, what: &'static str, offset: u64, value: u64) -> Self {
        Error::LimitExceeded {
            what,
            offset,
            value,
            limit,
        }
    }
}

/// What [`offkit_read::Error::Unterminated`] says after `invalid {what} at offset {offset}: `.
pub(crate) const UNTERMINATED: &str =
    "string has no terminating NUL before the end of its container";

/// A bounded read's error is the variant of the same name and message.
impl From<offkit_read::Error> for Error {
    fn from(e: offkit_read::Error) -> Self {
        use offkit_read::Error as R;
        match e {
            R::Truncated {
                what,
                offset,
                needed,
                left,
            } => Error::Truncated {
                what,
                offset,
                needed,
                left,
            },
            R::LimitExceeded {
                what,
                offset,
                value,
                limit,
            } => Error::limit(limit, what, offset, value),
            R::Unterminated { what, offset } => Error::Invalid {
                what,
                offset,
                reason: UNTERMINATED.into(),
            },
            e => Error::Read(e),
        }
    }
}
