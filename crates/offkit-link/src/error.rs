//! The one error type of the linker wrapper.
//!
//! Where LLVM 19's `clang-linker-wrapper` has a message for the same failure, the message is
//! the same text (the drop-in prints it after `<argv0>: error: `); the cause, if any, is in
//! the `source` chain that `offkit link` prints under `Caused by:`.

use std::path::PathBuf;

use crate::opts::ParseError;

pub use offkit_tools::InputName;

/// Everything that can make a link fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The command line could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The host command line of a [`crate::LinkConfig`] holds an option of the wrapper itself,
    /// which belongs in a field of the configuration.
    #[error("`{0}` in the host link command line is an option of the linker wrapper")]
    WrapperOptionInHostArgs(String),
    /// An option (or a [`crate::LinkConfig`] field) that only another LLVM release's wrapper
    /// has: the chosen release's would pass it to the host linker, or refuse it.
    #[error("`{option}` is an option of LLVM {release}'s clang-linker-wrapper, and this one is LLVM {chosen}'s")]
    OtherRelease {
        /// The option as given.
        option: String,
        /// The release that has it.
        release: offkit_llvm::LlvmVersion,
        /// The release of this link.
        chosen: offkit_llvm::LlvmVersion,
    },
    /// An option has a value the wrapper refuses; the message is LLVM 19's where it has one.
    #[error("{0}")]
    Usage(String),
    /// An option LLVM 19 implements with LLVM's own libraries, which offkit cannot reproduce.
    #[error("{option} is not supported by offkit's clang-linker-wrapper: {why}")]
    Unsupported {
        /// The option as given.
        option: String,
        /// Why, and what to do instead.
        why: String,
    },
    /// `-mllvm` / `--offload-opt=` options LLVM's option parser rejects; the text is what LLVM
    /// 19's wrapper prints (complete lines, no `error:` prefix).
    #[error("{0}")]
    LlvmOptions(String),
    /// `-mllvm --help` (or `--offload-opt=--help`): LLVM's option parser printed its help,
    /// this text, for standard output; the tool then exits 0.
    #[error("LLVM's option help was asked for")]
    LlvmHelp(String),
    /// `-l<name>` is in none of the search directories.
    #[error("unable to find library -l{0}")]
    LibraryNotFound(String),
    /// An input could not be read.
    #[error("'{}': {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write '{}': {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input holds offloading data that cannot be read.
    #[error("invalid offload data in {input}")]
    BadInput {
        /// The file or archive member.
        input: InputName,
        /// What is wrong, at which offset.
        #[source]
        source: Box<offkit_format::Error>,
    },
    /// A device image could not be read for symbol resolution.
    #[error("cannot read the symbols of the {} image in {}", .what.1, .what.0)]
    BadImage {
        /// Where the image comes from, and its target.
        what: Box<(InputName, String)>,
        /// What is wrong.
        #[source]
        source: Box<offkit_format::Error>,
    },
    /// A tool could not be found or started.
    #[error(transparent)]
    Tool(#[from] offkit_tools::Error),
    /// A tool ran and failed (LLVM 19: `'<tool>' failed`).
    #[error("'{tool}' failed")]
    ToolFailed {
        /// The tool's file name.
        tool: String,
        /// The failure.
        #[source]
        source: offkit_tools::Error,
    },
    /// A device target that cannot be linked (LLVM 19: `<arch> linking is not supported`).
    #[error("{0} linking is not supported")]
    LinkingNotSupported(String),
    /// Device code for NVPTX needs the CUDA toolkit, which is not installed.
    #[error(
        "linking {triple} device code needs the CUDA toolkit (nvlink, ptxas, fatbinary): {why}"
    )]
    NoCuda {
        /// The triple.
        triple: String,
        /// What is missing.
        why: String,
    },
    /// `--offload-targets` names a target no input has an image for.
    #[error("no device image for the requested offload target `{0}` in any input")]
    TargetNotFound(String),
    /// The registration object could not be made.
    #[error("cannot wrap the {kind} device images")]
    Wrap {
        /// The offload kind.
        kind: String,
        /// Why.
        #[source]
        source: Box<offkit_wrap::Error>,
    },
    /// A relocatable output cannot be rewritten: it is not a well-formed ELF object.
    #[error("cannot rename the offloading sections of '{}': {what} at offset {offset:#x}", path.display())]
    BadObject {
        /// The output.
        path: PathBuf,
        /// The absolute file offset of what is wrong.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A relocatable output's ELF headers cannot be read or rebuilt.
    #[error("cannot rename the offloading sections of '{}'", path.display())]
    Elf {
        /// The output.
        path: PathBuf,
        /// What is wrong (with the absolute offset).
        #[source]
        source: offkit_elf::Error,
    },
    /// A relocatable output could not be rebuilt by `object`'s ELF builder.
    #[error("cannot rename the offloading sections of '{}'", path.display())]
    Rebuild {
        /// The output.
        path: PathBuf,
        /// Why.
        #[source]
        source: object::build::Error,
    },
}

/// `object_error::parse_failed`'s text.
const PARSE_FAILED: &str = "Invalid data was encountered while parsing the file";
/// `object_error::unexpected_eof`'s text.
const UNEXPECTED_EOF: &str = "The end of the file was unexpectedly encountered";

impl Error {
    /// What LLVM 19's `clang-linker-wrapper` prints instead of this error, where its text is
    /// not offkit's: for an offload binary that `OffloadBinary::create` rejects, one of
    /// `object_error`'s two texts (a wrong magic or version, or too little data for the
    /// header: `parse_failed`; a size or offset beyond the data: `unexpected_eof`), with no
    /// file name or offset.
    pub fn llvm19_text(&self) -> Option<&'static str> {
        use offkit_format::Error as F;
        fn of(e: &F) -> Option<&'static str> {
            match e {
                F::Within { source, .. } => of(source),
                F::BadMagic { what, .. } | F::UnsupportedVersion { what, .. }
                    if what.starts_with("offload binary") =>
                {
                    Some(PARSE_FAILED)
                }
                F::Truncated {
                    what: "offload binary header",
                    ..
                } => Some(PARSE_FAILED),
                F::Truncated { what, .. } | F::Invalid { what, .. }
                    if what.starts_with("offload binary") =>
                {
                    Some(UNEXPECTED_EOF)
                }
                _ => None,
            }
        }
        match self {
            Error::BadInput { source, .. } => of(source),
            _ => None,
        }
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
