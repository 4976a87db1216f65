//! The one error type of the wrapper library.

use std::fmt;

/// How an error names an image: its position in the caller's list and, when the caller gave
/// one, its name (usually the file it came from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageName {
    /// The index in the list given to the library (before sorting).
    pub index: usize,
    /// The caller's name for it (may be empty).
    pub name: String,
}

impl fmt::Display for ImageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "image {}", self.index)
        } else {
            write!(f, "image {} (`{}`)", self.index, self.name)
        }
    }
}

/// Everything that can go wrong while writing a registration object.
///
/// All of these except [`Error::Io`] are found before the first byte is written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The host triple is not one offkit writes objects for.
    #[error(
        "unsupported host triple `{triple}`: offkit writes registration objects for x86_64 and \
         aarch64 ELF and COFF hosts (and modules for 64-bit PowerPC, SystemZ and RISC-V)"
    )]
    UnsupportedHost {
        /// The triple given.
        triple: String,
    },
    /// An object was asked for a host whose registration module offkit writes as LLVM IR only
    /// (COFF, 64-bit PowerPC, SystemZ, RISC-V).
    #[error(
        "offkit writes the registration module for the host `{triple}` as LLVM IR only \
         (compile it with `llc -O2 -relocation-model=pic -filetype=obj`)"
    )]
    IrOnly {
        /// The host triple.
        triple: String,
    },
    /// No images were given.
    #[error("no device images to wrap")]
    NoImages,
    /// More images than the library handles.
    #[error("{count} device images are more than the {limit} offkit wraps in one object")]
    TooManyImages {
        /// How many were given.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// An image's triple names no known offload architecture.
    #[error("{image}: unknown target triple `{triple}`")]
    UnknownTriple {
        /// The image.
        image: ImageName,
        /// Its triple.
        triple: String,
    },
    /// An image's triple does not fit the offload kind.
    #[error("{image}: target triple `{triple}` cannot carry {kind} code")]
    WrongTarget {
        /// The image.
        image: ImageName,
        /// Its triple.
        triple: String,
        /// The offload kind being wrapped.
        kind: &'static str,
    },
    /// An image's target ID does not parse (for its triple).
    #[error("{image}: invalid target ID `{arch}`")]
    BadTargetId {
        /// The image.
        image: ImageName,
        /// The target ID.
        arch: String,
        /// What is wrong with it.
        #[source]
        source: offkit_llvm::Error,
    },
    /// An image's contents are not what its kind and triple say.
    #[error("{image} is not {expected}: {found}")]
    WrongImageKind {
        /// The image.
        image: ImageName,
        /// What was expected, e.g. "an x86-64 ELF object or LLVM bitcode".
        expected: String,
        /// What it is instead.
        found: String,
    },
    /// An image embedded as given is an offload binary whose header or first entry lies
    /// (partly) past the end of the image.
    #[error(
        "{image} is an offload binary whose header points past its end: 8 bytes at offset \
         {offset:#x} of {size}"
    )]
    BinaryOutOfBounds {
        /// The image.
        image: ImageName,
        /// Where the field LLVM reads would be.
        offset: u64,
        /// The image's size.
        size: u64,
    },
    /// Bitcode given to [`crate::Wrapper::bitcode_as_llvm_writes`] does not read.
    #[error("cannot read the wrapper module's bitcode")]
    Bitcode {
        /// Why.
        #[source]
        source: offkit_llvm::Error,
    },
    /// The options do not fit together.
    #[error("{0}")]
    BadOptions(String),
    /// A format the object embeds could not be built (e.g. the HIP offload bundle).
    #[error("cannot build the {what}")]
    Format {
        /// What was being built.
        what: &'static str,
        /// Why.
        #[source]
        source: offkit_format::Error,
    },
    /// Writing the output failed.
    #[error("cannot write the output")]
    Io(#[from] std::io::Error),
}
