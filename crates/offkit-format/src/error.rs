//! The one error type of the format library.

/// Everything that can go wrong while reading or writing an offloading format.
///
/// Every parse error carries the **absolute** offset (from the start of the outermost input) where
/// the problem was found, so that a message can point at the byte.
#[derive(Debug, thiserror::Error)]
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
        limit: offkit_read::Limit,
    },
    /// A size is above what the caller allows (the rest of its budget of
    /// [`MAX_INFLATED_SIZE`](offkit_read::limits::MAX_INFLATED_SIZE) for a whole input).
    #[error("{what} at offset {offset:#x} is {value}, above the {budget} bytes allowed here")]
    OverBudget {
        /// What was measured.
        what: &'static str,
        /// Where the size was read.
        offset: u64,
        /// The value found.
        value: u64,
        /// What the caller allows.
        budget: u64,
    },
    /// Decompressing a compressed payload failed one of offkit's checks (its sizes).
    #[error("cannot decompress {what} at offset {offset:#x}: {reason}")]
    Decompress {
        /// The compressed structure.
        what: &'static str,
        /// Where its compressed data starts.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A codec (zlib, zstd) cannot decompress a payload's data.
    #[error("cannot decompress the {method} data of {what} at offset {offset:#x}")]
    Codec {
        /// The compressed structure.
        what: &'static str,
        /// Where its compressed data starts.
        offset: u64,
        /// The method: `zlib`, `zstd`.
        method: &'static str,
        /// The codec's error.
        #[source]
        source: std::io::Error,
    },
    /// A codec (zlib, zstd) cannot compress a payload.
    #[error("cannot compress {what} with {method}")]
    Compress {
        /// The structure being written.
        what: &'static str,
        /// The method: `zlib`, `zstd`.
        method: &'static str,
        /// The codec's error.
        #[source]
        source: std::io::Error,
    },
    /// An error in the data a compressed structure inflates to: its offsets count from the
    /// structure's offset, as if it were inflated in place.
    #[error("in the inflated data of the {what} at offset {offset:#x} (offsets as if inflated in place)")]
    Inflated {
        /// The compressed structure.
        what: &'static str,
        /// Where its header is.
        offset: u64,
        /// The error in the inflated data.
        #[source]
        source: Box<Error>,
    },
    /// A thin archive's member, which lives in a file of its own, cannot be read.
    #[error("cannot read the thin archive member `{member}` (header at offset {offset:#x})")]
    ThinMember {
        /// The member's name as the archive stores it.
        member: String,
        /// The absolute offset of its header.
        offset: u64,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A thin archive's member is met, and the caller gave no way to read it.
    #[error(
        "thin archive member `{member}` (header at offset {offset:#x}) is in a file of its own, \
         and no resolver for thin archive members was given"
    )]
    ThinMemberUnresolved {
        /// The member's name as the archive stores it.
        member: String,
        /// The absolute offset of its header.
        offset: u64,
    },
    /// An object file (ELF, COFF, Mach-O, archive) that the `object` crate cannot read.
    #[cfg(feature = "scan")]
    #[error("malformed {what} at offset {offset:#x}")]
    Object {
        /// The container being read.
        what: &'static str,
        /// Where the container starts.
        offset: u64,
        /// The object crate's error.
        #[source]
        source: object::read::Error,
    },
    /// The contents of one section of an object file lie outside the file (the section
    /// header table itself reads). The iterator over offload sections goes on past it.
    #[cfg(feature = "scan")]
    #[error("malformed {what} at offset {offset:#x}")]
    SectionContents {
        /// The kind of section (`ELF section`, `COFF section`).
        what: &'static str,
        /// The section's name.
        name: String,
        /// Its index in the section header table.
        index: usize,
        /// Where its header says its contents are.
        offset: u64,
        /// The object crate's error.
        #[source]
        source: object::read::Error,
    },
    /// An error inside a nested container, with where that container is (an archive member, a
    /// section, a bundle entry, inflated data), so that a message names the member as well as
    /// the offset.
    #[error("in {location}")]
    Within {
        /// Where the inner container is, e.g. ``archive member `k.o`, section `.llvm.offloading` ``.
        location: String,
        /// The error inside it.
        #[source]
        source: Box<Error>,
    },
    /// A release's lenient reading of a compressed bundle (`compressed::decompress_llvm`)
    /// finds the buffer
    /// shorter than the header layout it reads for the bundle's version, or a version it has no
    /// layout for.
    #[error("compressed bundle header too short for the layout LLVM {llvm} reads")]
    LlvmHeaderTooShort {
        /// The release.
        llvm: offkit_llvm::LlvmVersion,
    },
    /// A release's lenient reading of a compressed bundle finds a method it does not know.
    #[error("compressed bundle method {method} is neither zlib (1) nor zstd (2)")]
    LlvmUnknownMethod {
        /// The method field.
        method: u16,
    },
    /// A release's one-shot decompression (`ZSTD_decompress`) of a zstd-compressed bundle
    /// fails, with zstd's name for the error (`ZSTD_getErrorName`).
    #[error("zstd cannot decompress the compressed bundle: {name}")]
    LlvmZstd {
        /// zstd's name for the error.
        name: &'static str,
    },
    /// A release's one-shot decompression (zlib's `uncompress`) of a zlib-compressed bundle
    /// fails, with zlib's name for the error (`Z_DATA_ERROR`).
    #[error("zlib cannot decompress the compressed bundle: {name}")]
    LlvmZlib {
        /// zlib's name for the error.
        name: &'static str,
    },
    /// The output a compressed bundle's header claims cannot be reserved (LLVM reserves it
    /// whole before decompressing, and aborts where that fails).
    #[error("cannot reserve the {size} bytes a compressed bundle's header gives as its uncompressed size")]
    LlvmReserve {
        /// The uncompressed size field.
        size: u64,
    },
    /// An error of the LLVM models that has no variant of its own here (all of those that
    /// [`offkit_llvm`] has today are converted to the variant of the same name).
    #[error(transparent)]
    Llvm(offkit_llvm::Error),
    /// Another error of a bounded read.
    #[error(transparent)]
    Read(offkit_read::Error),
    /// A value given to a writer that the format cannot represent.
    #[error("cannot write {what}: {reason}")]
    Unrepresentable {
        /// The structure being written.
        what: &'static str,
        /// Why it cannot be written.
        reason: String,
    },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::LimitExceeded`] for `limit`.
    pub fn limit(limit: offkit_read::Limit, what: &'static str, offset: u64, value: u64) -> Self {
        Error::LimitExceeded {
            what,
            offset,
            value,
            limit,
        }
    }

    /// The absolute offset the error is about, for the errors that have one (for an error
    /// inside a nested container, the inner error's).
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Within { source, .. } => source.offset(),
            Error::Truncated { offset, .. }
            | Error::BadMagic { offset, .. }
            | Error::UnsupportedVersion { offset, .. }
            | Error::Invalid { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::LimitExceeded { offset, .. }
            | Error::OverBudget { offset, .. }
            | Error::Decompress { offset, .. }
            | Error::Codec { offset, .. }
            | Error::Inflated { offset, .. }
            | Error::ThinMember { offset, .. }
            | Error::ThinMemberUnresolved { offset, .. } => Some(*offset),
            #[cfg(feature = "scan")]
            Error::Object { offset, .. } | Error::SectionContents { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// The reading errors of the LLVM models (the bounded reader, bitcode, triples, target IDs) are
/// the same kinds as this crate's own: each becomes the variant of the same name, with the same
/// message, so that a caller matches one set of variants whichever layer found the problem.
impl From<offkit_llvm::Error> for Error {
    fn from(e: offkit_llvm::Error) -> Self {
        use offkit_llvm::Error as L;
        match e {
            L::Truncated {
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
            L::BadMagic { what, offset } => Error::BadMagic { what, offset },
            L::UnsupportedVersion {
                what,
                offset,
                version,
                known,
            } => Error::UnsupportedVersion {
                what,
                offset,
                version,
                known,
            },
            L::Invalid {
                what,
                offset,
                reason,
            } => Error::Invalid {
                what,
                offset,
                reason,
            },
            L::Unsupported {
                what,
                offset,
                reason,
            } => Error::Unsupported {
                what,
                offset,
                reason,
            },
            L::LimitExceeded {
                what,
                offset,
                value,
                limit,
            } => Error::limit(limit, what, offset, value),
            L::Read(e) => Error::Read(e),
            e => Error::Llvm(e),
        }
    }
}

/// A bounded read's error is the variant of the same name and message.
impl From<offkit_read::Error> for Error {
    fn from(e: offkit_read::Error) -> Self {
        offkit_llvm::Error::from(e).into()
    }
}
