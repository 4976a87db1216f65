//! The errors of the test support's fallible helpers (those a test may expect to fail).

use std::path::PathBuf;

/// Why a fixture could not be made or an object could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An LLVM tool exited with failure; `stderr` is what it printed.
    #[error("`{tool}` exited with {code:?}\n{stderr}")]
    ToolFailed {
        /// The tool's name.
        tool: &'static str,
        /// Its exit code (`None` when killed by a signal).
        code: Option<i32>,
        /// Its standard error, lossily decoded.
        stderr: String,
    },
    /// A tool succeeded but its output file cannot be read.
    #[error("`{tool}` wrote no readable `{}`", path.display())]
    NoOutput {
        /// The tool's name.
        tool: &'static str,
        /// The file it should have written.
        path: PathBuf,
        /// Why it cannot be read.
        #[source]
        source: std::io::Error,
    },
    /// Bytes that should be an ELF64 relocatable object are not one, or part of it is
    /// malformed.
    #[error("bad ELF64 object: cannot read its {what}")]
    Object {
        /// The part that could not be read.
        what: &'static str,
        /// The reader's error.
        #[source]
        source: object::read::Error,
    },
    /// A relocation that is not an ELF relocation.
    #[error("non-ELF relocation at offset {offset:#x} of section `{section}`")]
    NonElfRelocation {
        /// The section holding it.
        section: String,
        /// Its offset in the section.
        offset: u64,
    },
}
