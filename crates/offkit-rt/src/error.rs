//! The crate's one error type: what device detection (`offkit arch`) and image loading report.
//! The image-loading messages are LLVM 19's, word for word: the runtime prints them where
//! LLVM 19's runtime prints its own, and the tests compare the two runtimes' stderr.

use std::path::PathBuf;

/// Why detecting devices or loading an image failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory of the topology could not be read.
    #[error("failed to read `{}`", path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A topology file is not in the KFD's format.
    #[error("`{}`: {what} at offset {offset:#x}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The offset of the offending line or byte.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The topology has more nodes than offkit reads.
    #[error("`{}` has more than {limit} nodes", path.display())]
    TooManyNodes {
        /// The nodes directory.
        path: PathBuf,
        /// How many nodes offkit reads at most (`arch::MAX_NODES`).
        limit: usize,
    },
    /// The CUDA driver is present but a call failed.
    #[error("the CUDA driver's `{call}` failed with error {code}")]
    Cuda {
        /// The driver function.
        call: &'static str,
        /// Its `CUresult`.
        code: i32,
    },
    /// The host plugin could not create the in-memory file an image is loaded from (LLVM 19's
    /// message).
    #[error("Failed to create tmpfile for loading target image")]
    ImageTmpfile,
    /// The host plugin could not write an image to its in-memory file (LLVM 19's message).
    #[error("Failed to write target image to tmpfile /proc/self/fd/{fd}")]
    ImageWrite {
        /// The file's descriptor.
        fd: i32,
    },
    /// The dynamic loader refused an image (LLVM 19's message, with `dlerror`'s text).
    #[error("Failed to load target image: {reason}")]
    ImageLoad {
        /// What `dlerror` said.
        reason: String,
    },
}
