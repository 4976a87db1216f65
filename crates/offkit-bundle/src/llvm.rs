//! The bundler of LLVM 19.1.7 and 22.1.8 as a library: `clang-offload-bundler`'s listing,
//! bundling and unbundling (`OffloadBundler::{ListBundleIDsInFile, BundleFiles, UnbundleFiles,
//! UnbundleArchive}`) with the release's semantics, over a [`Config`] value.
//!
//! What differs between the releases is one table, [`Release`], and the release-aware models it
//! hands the version to (bundle entry IDs in `offkit_llvm::target_id::bundle`, the compressed
//! bundles in `offkit_format::bundle::compressed`). Where LLVM crashes, hangs or writes garbage
//! the calls return a typed [`Error`] instead, and no failure leaves a partial
//! output: outputs are written to temporary files and renamed into place together. What LLVM
//! prints on the way (its verbose reports, `-###` commands, warnings) is handed to the caller
//! as [`Event`]s, in order, for it to word; LLVM's exact messages are the drop-in face's.
//!
//! ```text
//! Config ─► list ──────────► IDs (StringMap order, section order, text order)
//!        ├► bundle ────────► binary | text | compressed | fat object (llvm-objcopy)
//!        ├► unbundle ──────► one output per target (payloads copied by the kernel)
//!        └► unbundle_archive ► one archive per target
//! ```

mod archive;
mod bundle;
mod objcopy;
mod unbundle;

use std::path::{Path, PathBuf};
use std::time::Duration;

use offkit_format::bundle::compressed;
use offkit_llvm::LlvmVersion;
use offkit_tools::fs::Outputs;

use crate::io::Input;
use crate::{Error, Result};

pub use archive::unbundle_archive;
pub use bundle::bundle;
pub use unbundle::{list, unbundle};

/// What differs between the releases' bundlers, beyond the ID rules (`offkit-llvm`), the
/// compressed bundles they write by default (`compressed::Options::written_by`) and their
/// decompression (`compressed::decompress_llvm`), which take the release themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// The release.
    pub llvm: LlvmVersion,
    /// Whether `COMPRESSED_BUNDLE_FORMAT_VERSION` (2 or 3) chooses the version written.
    pub ccob_version_env: bool,
    /// Whether bundle IDs read from a bundle must have five or six `-`-separated pieces when
    /// unbundling (`checkOffloadBundleID`).
    pub checks_read_ids: bool,
    /// The smallest input the decompressor looks at (shorter ones are used as they are,
    /// without even the verbose `Uncompressed bundle.`), as
    /// `compressed::is_compressed_for` has it.
    pub ccob_min_size: u64,
}

impl Release {
    /// The bundler of release `llvm`.
    pub fn of(llvm: LlvmVersion) -> Release {
        match llvm {
            LlvmVersion::V19 => Release {
                llvm,
                ccob_version_env: false,
                checks_read_ids: false,
                ccob_min_size: 20,
            },
            _ => Release {
                llvm,
                ccob_version_env: true,
                checks_read_ids: true,
                ccob_min_size: 8,
            },
        }
    }
}

/// One run of the bundler: `OffloadBundlerConfig` and the command line's files, after the
/// command-line checks (the targets are standardised, their counts match the files').
#[derive(Debug, Clone)]
pub struct Config {
    /// The release's behaviour.
    pub release: Release,
    /// `-type`: `o`, `a`, `bc`, `gch`, `ast` or a text type (`i`, `ii`, `cui`, `s`, `ll`, ...).
    pub files_type: String,
    /// The standardised bundle entry IDs, in command-line order.
    pub targets: Vec<String>,
    /// The input files (`-` is standard input).
    pub inputs: Vec<PathBuf>,
    /// The output files (`-` is standard output).
    pub outputs: Vec<PathBuf>,
    /// The target the host input belongs to, if any.
    pub host_index: Option<usize>,
    /// `-allow-missing-bundles`.
    pub allow_missing: bool,
    /// `-bundle-align` (binary bundles).
    pub bundle_align: u32,
    /// `-check-input-archive`.
    pub check_input_archive: bool,
    /// `-hip-openmp-compatible`.
    pub hip_openmp: bool,
    /// `-compress` (or `OFFLOAD_BUNDLER_COMPRESS`).
    pub compress: bool,
    /// `-compression-level`.
    pub compression_level: i32,
    /// The compressed-bundle header version `-compress` writes.
    pub ccob_version: u16,
    /// `-verbose`: the verbose reports are made ([`Event::Decompressed`], ...).
    pub verbose: bool,
    /// `-###`: `llvm-objcopy` commands are reported ([`Event::Command`]) instead of run.
    pub print_commands: bool,
    /// The `llvm-objcopy` that adds and removes bundle sections of objects.
    pub objcopy: PathBuf,
    /// The directory of temporary files (LLVM's `createTemporaryFile`: `$TMPDIR`, ...).
    pub tmpdir: PathBuf,
}

impl Config {
    /// The release's defaults for `-type=files_type`: no files, no targets, no host, LLVM's
    /// default options, the compressed-bundle version the release writes, `llvm-objcopy` from
    /// `PATH`, temporary files in `/tmp`.
    pub fn new(llvm: LlvmVersion, files_type: impl Into<String>) -> Config {
        Config {
            release: Release::of(llvm),
            files_type: files_type.into(),
            targets: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            host_index: None,
            allow_missing: false,
            bundle_align: 1,
            check_input_archive: false,
            hip_openmp: false,
            compress: false,
            compression_level: 3,
            ccob_version: compressed::Options::written_by(llvm).version,
            verbose: false,
            print_commands: false,
            objcopy: PathBuf::from("llvm-objcopy"),
            tmpdir: PathBuf::from("/tmp"),
        }
    }

    /// The first input (the one `-list` and the unbundling modes read).
    fn input(&self) -> PathBuf {
        self.inputs.first().cloned().unwrap_or_default()
    }
}

/// What LLVM's verbose mode reports of a decompressed bundle.
#[derive(Debug, Clone)]
pub struct Decompression {
    /// The compressed bundle's header.
    pub header: compressed::LlvmHeader,
    /// The size of the compressed input.
    pub file_size: u64,
    /// How long decompressing took.
    pub elapsed: Duration,
    /// How long the hash of the decompressed bytes took.
    pub hash_elapsed: Duration,
    /// The truncated MD5 of the decompressed bytes.
    pub recalculated_hash: u64,
}

/// What LLVM's verbose mode reports of a compressed bundle written.
#[derive(Debug, Clone)]
pub struct Compression {
    /// The header version.
    pub version: u16,
    /// The compression level.
    pub level: i32,
    /// The size of the whole compressed bundle.
    pub file_size: u64,
    /// The size of the plain bundle.
    pub plain_size: u64,
    /// The size of the compressed stream.
    pub stream_size: u64,
    /// How long compressing took.
    pub elapsed: Duration,
    /// The truncated MD5 hash in the header.
    pub hash: u64,
}

/// What happened on the way, in order, for the caller to report as LLVM does.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Event<'a> {
    /// Verbose: an input long enough to be looked at was not compressed.
    Uncompressed,
    /// Verbose: a compressed input was decompressed.
    Decompressed(&'a Decompression),
    /// Verbose: the output was compressed.
    Compressed(&'a Compression),
    /// `-###`: the `llvm-objcopy` command that would run.
    Command {
        /// The program.
        program: &'a std::path::Path,
        /// Its arguments.
        args: &'a [String],
    },
    /// A bitcode member of an output archive whose symbols cannot be read (LLVM warns
    /// `Malformed block` and lists none).
    MalformedBitcode {
        /// The member's name.
        member: &'a str,
    },
}

/// Where the calls hand their [`Event`]s.
pub type Events<'e> = dyn FnMut(Event<'_>) + 'e;

/// Opens an input as LLVM's `MemoryBuffer::getFileOrSTDIN` (`-` is stdin), through the one
/// input opener: a device that yields bytes is refused at once.
fn read_input(path: &Path) -> Result<Input> {
    Input::open_llvm(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// `'<path>'`'s write error.
fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Renames every output of `outs` into place.
fn commit(outs: Outputs) -> Result<()> {
    outs.commit()
        .map_err(|(path, source)| Error::Write { path, source })
}

/// The handler LLVM picks for a `-type` (text types by comment, binary types, `o`/`a` by
/// content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handler {
    Text(offkit_format::bundle::text::Comment),
    Binary,
    Object,
}

fn handler(ty: &str, reference: &[u8]) -> crate::Result<Handler> {
    use offkit_format::bundle::text::Comment;
    if let Some(c) = Comment::for_type(ty) {
        return Ok(Handler::Text(c));
    }
    match ty {
        "bc" | "gch" | "ast" => Ok(Handler::Binary),
        "o" | "a" if crate::fatobj::is_object(reference) => Ok(Handler::Object),
        "o" | "a" => Ok(Handler::Binary),
        _ => Err(crate::Error::InvalidFileType {
            files_type: ty.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_that_yields_bytes_is_refused_at_once() {
        let cfg = Config {
            inputs: vec![PathBuf::from("/dev/zero")],
            ..Config::new(LlvmVersion::V19, "o")
        };
        match list(&cfg, &mut |_| {}) {
            Err(crate::Error::Read { path, source }) => {
                assert_eq!(path, PathBuf::from("/dev/zero"));
                assert_eq!(source.kind(), std::io::ErrorKind::InvalidInput);
            }
            other => panic!("{other:?}"),
        }
        // `/dev/null` is an empty input, as HIP's driver gives it.
        let cfg = Config {
            inputs: vec![PathBuf::from("/dev/null")],
            ..cfg
        };
        assert!(list(&cfg, &mut |_| {}).unwrap().is_empty());
        let bad = Config::new(LlvmVersion::V22, "zip");
        assert!(matches!(
            handler(&bad.files_type, b""),
            Err(crate::Error::InvalidFileType { .. })
        ));
    }
}
