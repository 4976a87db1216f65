//! The errors of bounded reading.

use crate::limits::Limit;

/// Why a bounded read failed. Every variant carries the **absolute** offset (from the start of
/// the outermost input) of the bytes it is about, so that a message can point at the byte.
///
/// The parsers built on this crate have variants of the same names and messages in their own
/// error types, and convert from this one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
    /// A NUL-terminated string runs to the end of its container.
    #[error(
        "invalid {what} at offset {offset:#x}: string has no terminating NUL before the end of \
         its container"
    )]
    Unterminated {
        /// The string being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
    },
    /// A count or size is above one of the named [`limits`](crate::limits).
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
        /// The limit it is above.
        limit: Limit,
    },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Limit {
    /// The error for a `value` of `what` (read at `offset`) above this limit.
    pub fn exceeded(self, what: &'static str, offset: u64, value: u64) -> Error {
        Error::LimitExceeded {
            what,
            offset,
            value,
            limit: self,
        }
    }
}
