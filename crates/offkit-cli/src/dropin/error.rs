//! The one error type of the drop-in tools: each variant prints as LLVM 19 words it (the driver
//! adds `<argv0>: error: `), so these messages carry their cause in the text, on one line, the
//! way LLVM's `toString(Error)` does.

use std::io;
use std::path::PathBuf;

use offkit_tools::os_message;

/// Why a drop-in tool stops.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A diagnostic in LLVM's own words (`'x': invalid file type specified`).
    #[error("{0}")]
    Message(String),
    /// A file that could not be opened, read or written: `'<path>': <strerror>`.
    #[error("'{}': {}", path.display(), os_message(io))]
    File {
        /// The file as named on the command line.
        path: PathBuf,
        /// What the OS said.
        io: io::Error,
    },
    /// An OS error that LLVM prints alone (the packager's `createFileError`-less paths).
    #[error("{}", os_message(.0))]
    Os(io::Error),
    /// A response file that cannot be read: `cannot not open file '<path>': <strerror>`
    /// (LLVM's wording, double negative and all).
    #[error("cannot not open file '{}': {}", path.display(), os_message(io))]
    ResponseFile {
        /// The response file, made absolute.
        path: PathBuf,
        /// What the OS said.
        io: io::Error,
    },
    /// A response file that includes itself, directly or not.
    #[error("recursive expansion of: '{}'", .0.display())]
    RecursiveResponseFile(PathBuf),
    /// The working directory, needed to make a response file's name absolute, is gone.
    #[error("cannot get absolute path for: {name}: {}", os_message(io))]
    WorkingDirectory {
        /// The response file as named.
        name: String,
        /// What the OS said.
        io: io::Error,
    },
    /// An offload format error, in offkit's words (where LLVM 19 would crash or read past
    /// the end): the error and its causes on one line, as LLVM's `toString(Error)` joins them.
    #[error("{}", one_line(.0))]
    Format(#[from] offkit_format::Error),
    /// A registration-object error.
    #[error(transparent)]
    Wrap(#[from] offkit_wrap::Error),
    /// An external tool that is missing or failed.
    #[error(transparent)]
    Tool(#[from] offkit_tools::Error),
    /// The diagnostics were already printed (LLVM's own multi-line texts); exit 1.
    #[error("")]
    Reported,
}

impl Error {
    /// A diagnostic in LLVM's words.
    pub fn msg(text: impl Into<String>) -> Error {
        Error::Message(text.into())
    }

    /// `'<path>': <strerror>`.
    pub fn file(path: impl Into<PathBuf>, io: io::Error) -> Error {
        Error::File {
            path: path.into(),
            io,
        }
    }
}

/// `error: cause: cause …`, on one line.
fn one_line(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        next = cause.source();
    }
    s
}

/// What LLVM's `CompressedOffloadBundle::decompress` prints (after the caller's
/// `Failed to decompress input: `) for a failure of its reading of a compressed bundle
/// ([`offkit_format::bundle::compressed::decompress_llvm`]): the same words in 19 and 22.
pub fn decompress_message(e: &offkit_format::Error) -> String {
    use offkit_format::Error as F;
    const COULD_NOT: &str = "Could not decompress embedded file contents: ";
    match e {
        F::LlvmHeaderTooShort { .. } => "Compressed bundle header size too small".into(),
        F::LlvmUnknownMethod { .. } => "Unknown compressing method".into(),
        F::LlvmZlib { name } => format!("{COULD_NOT}zlib error: {name}"),
        F::LlvmZstd { name } => format!("{COULD_NOT}{name}"),
        // Where LLVM reserves the size and aborts, offkit says why.
        F::LlvmReserve { size } => format!(
            "{COULD_NOT}cannot reserve the {size} bytes the header gives as the uncompressed size"
        ),
        e => e.to_string(),
    }
}

/// A drop-in result.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_texts() {
        let e = Error::file("x.o", io::Error::from_raw_os_error(2));
        assert_eq!(e.to_string(), "'x.o': No such file or directory");
        let e = Error::ResponseFile {
            path: "/d".into(),
            io: io::Error::from_raw_os_error(21),
        };
        assert_eq!(e.to_string(), "cannot not open file '/d': Is a directory");
    }
}
