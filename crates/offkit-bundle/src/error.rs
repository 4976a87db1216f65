//! The one error type of the file-level bundler, and how its messages name what they are
//! about: an input by its [`InputName`] (a file, or `libdev.a(kern.o)`), maybe one of the
//! bundles decompressed from it ([`Origin`]); or the output being written ([`Subject`]).

use std::fmt;
use std::path::PathBuf;

pub use offkit_tools::InputName;

/// A piece of input data holding entries: an input, or one bundle decompressed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The input.
    pub input: InputName,
    /// The file offset of the compressed bundle the data was decompressed from, if it was.
    pub decompressed_at: Option<u64>,
}

impl Origin {
    /// The input itself.
    pub fn input(input: InputName) -> Self {
        Origin {
            input,
            decompressed_at: None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.input)?;
        if let Some(at) = self.decompressed_at {
            write!(
                f,
                " (the bundle decompressed from the compressed bundle at {at:#x})"
            )?;
        }
        Ok(())
    }
}

/// What an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Subject {
    /// Input data: `` `k.o` ``, or `` `k.o` (the bundle decompressed from …) ``.
    Input(Origin),
    /// An input object being rewritten into an output: `` `k.o` (writing `out.o`) ``.
    Rewriting {
        /// The input.
        input: Origin,
        /// The output.
        output: PathBuf,
    },
    /// The output file.
    Output(PathBuf),
    /// The bundle being laid out in memory.
    Bundle,
}

impl From<Origin> for Subject {
    fn from(o: Origin) -> Self {
        Subject::Input(o)
    }
}

impl From<Origin> for Box<Subject> {
    fn from(o: Origin) -> Self {
        Box::new(Subject::Input(o))
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Input(o) => o.fmt(f),
            Subject::Rewriting { input, output } => {
                write!(f, "{input} (writing `{}`)", output.display())
            }
            Subject::Output(p) => write!(f, "{}", p.display()),
            Subject::Bundle => f.write_str("the bundle"),
        }
    }
}

/// Something that went wrong reading or writing bundle files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input could not be read.
    #[error("failed to read `{}`", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An output could not be written.
    #[error("failed to write `{}`", path.display())]
    Write {
        /// The file (`-` for stdout).
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The container scanner found an input malformed
    /// ([`crate::walk::walk_file`]).
    #[error("cannot read the offloading contents of `{input}`")]
    Scan {
        /// The input, as named.
        input: String,
        /// The format error (naming the archive member, section and absolute offset).
        #[source]
        source: offkit_format::Error,
    },
    /// A directory could not be created.
    #[error("failed to create `{}`", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input changed between two readings of it (an image is no longer where the first
    /// reading found it).
    #[error(
        "`{}` changed while it was being read{}",
        path.display(),
        gone.as_ref().map(|l| format!(": `{l}` is gone")).unwrap_or_default()
    )]
    Changed {
        /// The input.
        path: PathBuf,
        /// The image that is gone, by location.
        gone: Option<String>,
    },
    /// A compressed bundle could not be decompressed.
    #[error("cannot decompress the compressed bundle at {offset:#x} of `{}`", path.display())]
    Decompress {
        /// The file holding it.
        path: PathBuf,
        /// Where the bundle starts.
        offset: u64,
        /// Why.
        #[source]
        source: offkit_format::Error,
    },
    /// A compressed bundle decompressed to fewer bytes than an image in it needs.
    #[error(
        "the compressed bundle at {offset:#x} of `{}` holds {held} bytes, fewer than the \
         image at {image_offset:#x} ({image_size} bytes) needs",
        path.display()
    )]
    ShortBundle {
        /// The file holding it.
        path: PathBuf,
        /// Where the bundle starts.
        offset: u64,
        /// How many bytes it decompressed to.
        held: u64,
        /// Where the image starts in the decompressed bytes.
        image_offset: u64,
        /// The image's size.
        image_size: u64,
    },
    /// An image address (`file://PATH#offset=…`) names no image of its file.
    #[error("no device image of `{}` is at {uri}", input.display())]
    NoImageAt {
        /// The file.
        input: PathBuf,
        /// The address.
        uri: String,
    },
    /// A selection of images matched none.
    #[error("{0}")]
    NoMatch(Box<crate::select::NoMatch>),
    /// An input holds malformed offloading data.
    #[error("invalid offload data in {input}")]
    Format {
        /// The input (an archive member as `lib.a(member.o)`), or the output.
        input: Box<Subject>,
        /// The format error (with the absolute offset).
        #[source]
        source: offkit_format::Error,
    },
    /// An input is well formed but cannot be used as asked.
    #[error("{input}: {message}")]
    Unusable {
        /// The input (an archive member as `lib.a(member.o)`), or the output.
        input: Box<Subject>,
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
    /// A file LLVM 19's `Archive` cannot open as an archive, in LLVM's words (the bundler's
    /// drop-in prints them as they are).
    #[error("{0}")]
    Llvm19Archive(String),
    /// An object file could not be read or rewritten.
    #[error("cannot rewrite the object file {input}")]
    Object {
        /// The input, and the output written from it.
        input: Box<Subject>,
        /// Why: one of [`Error::ObjectBuild`], [`Error::ObjectIo`], [`Error::ObjectMalformed`].
        #[source]
        source: Box<Error>,
    },
    /// `object`'s ELF builder could not read or rebuild an object (the cause of an
    /// [`Error::Object`]).
    #[error(transparent)]
    ObjectBuild(#[from] object::build::Error),
    /// Writing a rewritten object failed (the cause of an [`Error::Object`]).
    #[error(transparent)]
    ObjectIo(#[from] std::io::Error),
    /// An ELF file that cannot be rewritten in place (the cause of an [`Error::Object`]).
    #[error("{0}")]
    ObjectMalformed(String),
    // What the LLVM bundler (`crate::llvm`) refuses, as data; the drop-in face words each
    // as the release does.
    /// A `-type` that is no bundler file type.
    #[error("`{files_type}` is not a bundler file type")]
    InvalidFileType {
        /// The type given.
        files_type: String,
    },
    /// A binary bundle header LLVM 19 crashes on.
    #[error("malformed bundle header at {offset:#x}: {reason}")]
    MalformedBundleHeader {
        /// The absolute offset of the field that leads to the crash.
        offset: u64,
        /// Why.
        reason: &'static str,
    },
    /// An object whose sections cannot be read.
    #[error("cannot read the sections of the object `{}`", path.display())]
    ObjectRead {
        /// The input (an archive member by its name).
        path: PathBuf,
        /// Why.
        #[source]
        source: object::Error,
    },
    /// A text bundle without its end marker (LLVM lists it forever, or reads past the end).
    #[error("a bundle of `{}` has no end marker", path.display())]
    UnterminatedTextBundle {
        /// The input.
        path: PathBuf,
        /// The bundle's ID, when it was being unbundled.
        id: Option<Vec<u8>>,
    },
    /// A binary bundle whose payload lies outside its input.
    #[error("the bundle `{}` of `{}` lies outside its input", String::from_utf8_lossy(id), path.display())]
    BundleOutside {
        /// The input.
        path: PathBuf,
        /// The archive member holding the bundle, if any.
        member: Option<String>,
        /// The bundle's ID.
        id: Vec<u8>,
        /// Its offset.
        offset: u64,
        /// Its size.
        size: u64,
    },
    /// An object's bundle section whose contents lie outside the object.
    #[error("the contents of section {index} lie outside the object")]
    SectionOutside {
        /// The section's index.
        index: usize,
    },
    /// A bundle ID read from a bundle without the five or six pieces LLVM 22 requires.
    #[error(
        "invalid bundle ID `{}` read from a bundle",
        String::from_utf8_lossy(id)
    )]
    InvalidReadBundleId {
        /// The ID.
        id: Vec<u8>,
    },
    /// Targets with no bundle in the input (without `-allow-missing-bundles`).
    #[error("no bundles for {}", targets.join(", "))]
    MissingBundles {
        /// The targets, in the work list's order.
        targets: Vec<String>,
    },
    /// Two code objects of an archive member whose target IDs conflict
    /// (`-check-input-archive`).
    #[error("conflicting target IDs in `{}`", archive.display())]
    ArchiveConflict {
        /// The archive.
        archive: PathBuf,
        /// The member.
        member: Vec<u8>,
        /// The first bundle ID.
        first: Vec<u8>,
        /// The second.
        second: Vec<u8>,
    },
    /// A bundle ID of an archive member that LLVM's conflict check crashes on.
    #[error("member `{}` of `{}` has the malformed bundle ID `{}`", String::from_utf8_lossy(member), archive.display(), String::from_utf8_lossy(id))]
    ArchiveMalformedId {
        /// The archive.
        archive: PathBuf,
        /// The member.
        member: Vec<u8>,
        /// The ID.
        id: Vec<u8>,
    },
    /// A target no member of the archive has a code object for.
    #[error("no code object of `{}` is compatible with `{target}`", archive.display())]
    NoCompatibleCodeObject {
        /// The target.
        target: String,
        /// The archive.
        archive: PathBuf,
    },
    /// A per-target archive could not be laid out.
    #[error("cannot write an archive")]
    ArchiveWrite {
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `-bundle-align=0`.
    #[error("the bundle alignment must be at least 1")]
    ZeroBundleAlignment,
    /// An object bundle without a host target.
    #[error("cannot bundle an object file without a host target")]
    ObjectWithoutHost,
    /// A size that a version-2 compressed bundle header cannot hold.
    #[error("{} too large for a version 2 compressed bundle header", if *total { "the total file size is" } else { "the uncompressed size is" })]
    Version2Limit {
        /// Whether it is the total file size (else the uncompressed size).
        total: bool,
    },
    /// A bundle could not be compressed.
    #[error("cannot compress the bundle")]
    Compress {
        /// Why.
        #[source]
        source: offkit_format::Error,
    },
    /// `llvm-objcopy` is missing or failed.
    #[error("llvm-objcopy failed")]
    ObjcopyFailed {
        /// Why.
        #[source]
        source: offkit_tools::Error,
    },
    // What the LLVM packager (`crate::packager`) refuses.
    /// An `--image` to package without `file=` (or, in LLVM 19, `triple=`).
    #[error("an image to package needs `file`{}", if *triple { " and `triple`" } else { "" })]
    MissingImageArguments {
        /// Whether `triple` is required too.
        triple: bool,
    },
    /// An `--image` filter without `file=` when extracting into an archive.
    #[error("an image filter needs `file` to name the archive")]
    ImageWithoutFile,
    /// A buffer LLVM's `OffloadBinary::create` refuses.
    #[error("not an offload binary that LLVM reads: {problem}")]
    OffloadBinaryCreate {
        /// Which check failed.
        problem: crate::packager::CreateError,
    },
    /// A bitcode module that cannot be read for its embedded offload binaries.
    #[error("cannot read the bitcode module")]
    BitcodeModule {
        /// Why.
        #[source]
        source: offkit_format::Error,
    },
    /// A bitcode image whose symbols cannot be listed for an archive's symbol table.
    #[error("cannot list the symbols of the bitcode member `{member}`")]
    BitcodeSymbols {
        /// The member's name.
        member: String,
        /// Why.
        #[source]
        source: offkit_format::Error,
    },
    /// The object `llvm-objcopy` wrote cannot be read back.
    #[error("cannot read back `{}`, written by llvm-objcopy", path.display())]
    ObjcopyOutput {
        /// The temporary file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_read_as_before() {
        let k = Origin::input(InputName::file("/d/k.o"));
        let inflated = Origin {
            decompressed_at: Some(0x40),
            ..k.clone()
        };
        let member = Origin::input(InputName::member("libdev.a", "kern.o"));
        let cases = [
            (Subject::from(k.clone()), "`/d/k.o`"),
            (
                Subject::from(inflated),
                "`/d/k.o` (the bundle decompressed from the compressed bundle at 0x40)",
            ),
            (Subject::from(member), "`libdev.a(kern.o)`"),
            (
                Subject::Rewriting {
                    input: k,
                    output: "o.o".into(),
                },
                "`/d/k.o` (writing `o.o`)",
            ),
            (Subject::Output("out.bundle".into()), "out.bundle"),
            (Subject::Bundle, "the bundle"),
        ];
        for (s, text) in cases {
            assert_eq!(s.to_string(), text);
        }
    }
}
