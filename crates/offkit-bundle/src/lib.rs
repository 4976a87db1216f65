//! # offkit-bundle
//!
//! The offload bundler's file-level work: bundling, unbundling and listing binary and text
//! bundles, compressed bundles, fat objects and archives. Payloads move between files without
//! passing through memory (headers are read from a memory map, payloads are copied by the
//! kernel); outputs appear atomically (temporary file + rename).
//!
//! ```text
//! inputs ─map─► write::{binary, text} ─stream─► Output (tmp ─rename─► file)
//!        └─────► write::compressed (one buffer, or pieces with zstd workers; zstd ∥ MD5)
//! bundle ─map─► read::open (strict; CCOB v1–3 decompressed) ─► Entry ─extract─► Output
//! fat.o  ─────► fatobj::{bundle_sections, add_bundle_sections, strip_bundle_sections}
//! lib.a  ─────► archive::{read_members, write}
//! llvm::Config ► llvm::{list, bundle, unbundle, unbundle_archive}: LLVM 19's or 22's bundler
//! packager::{PackageConfig, ExtractConfig} ► packager::{package, extract}: its packager
//! ```
//!
//! ```no_run
//! use std::path::Path;
//! use offkit_bundle::{io::Output, read};
//!
//! let bundle = read::open(Path::new("k.bc"), None, 16 << 30).unwrap();
//! let entry = bundle.find(b"hip-amdgcn-amd-amdhsa--gfx90a").unwrap();
//! let mut out = Output::create(Path::new("k-gfx90a.bc")).unwrap();
//! bundle.extract(entry, &mut out).unwrap();
//! out.commit().unwrap();
//! ```
//!
//! [`llvm`] is `clang-offload-bundler` of LLVM 19 or 22 as a library (the release is a value of
//! the [`llvm::Config`]): the same outputs, byte for byte, and typed errors where LLVM prints
//! its messages; what it would print on the way comes back as [`llvm::Event`]s.
//!
//! ```
//! use offkit_bundle::llvm::{self, Config};
//! use offkit_llvm::LlvmVersion;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = |name: &str| dir.path().join(name);
//! std::fs::write(path("host.bc"), b"host code")?;
//! std::fs::write(path("dev.bc"), b"device code")?;
//! let (host, dev) = ("host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a");
//! let mut events = |_: llvm::Event<'_>| {};
//! // clang-offload-bundler -type=bc -targets=host…,hip… -input=host.bc -input=dev.bc -output=fat.bc
//! let bundle = Config {
//!     targets: vec![host.into(), dev.into()],
//!     inputs: vec![path("host.bc"), path("dev.bc")],
//!     outputs: vec![path("fat.bc")],
//!     host_index: Some(0),
//!     ..Config::new(LlvmVersion::V22, "bc")
//! };
//! llvm::bundle(&bundle, &mut events)?;
//! // -list
//! let list = Config { inputs: vec![path("fat.bc")], ..Config::new(LlvmVersion::V22, "bc") };
//! let mut ids = llvm::list(&list, &mut events)?;
//! ids.sort();
//! assert_eq!(ids, [dev.as_bytes(), host.as_bytes()]);
//! // -unbundle -targets=hip… -output=dev-out.bc
//! let unbundle = Config {
//!     targets: vec![dev.into()],
//!     outputs: vec![path("dev-out.bc")],
//!     ..list
//! };
//! llvm::unbundle(&unbundle, &mut events)?;
//! assert_eq!(std::fs::read(path("dev-out.bc"))?, b"device code");
//! // A target the bundle lacks is a typed error (LLVM: "Can't find bundles for …").
//! let missing = Config { targets: vec!["hip-amdgcn-amd-amdhsa--gfx1100".into()], ..unbundle };
//! assert!(matches!(
//!     llvm::unbundle(&missing, &mut events),
//!     Err(offkit_bundle::Error::MissingBundles { .. })
//! ));
//! # Ok(())
//! # }
//! ```
//!
//! [`packager`] is `clang-offload-packager` (LLVM 19) and `llvm-offload-binary` (LLVM 22):
//!
//! ```
//! use offkit_bundle::packager::{self, ExtractConfig, ImageArgs, PackageConfig, Rules};
//! use offkit_llvm::LlvmVersion;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = |name: &str| dir.path().join(name);
//! std::fs::write(path("k.bc"), b"BC\xc0\xde a module")?;
//! // llvm-offload-binary -o k.bin --image=file=k.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
//! let image = format!("file={},triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", path("k.bc").display());
//! let rules = Rules::of(LlvmVersion::V22);
//! packager::package(&PackageConfig {
//!     rules,
//!     output: path("k.bin"),
//!     images: vec![ImageArgs::parse(&image)],
//! })?;
//! // llvm-offload-binary k.bin --image=file=out.bc,arch=gfx90a
//! let filter = format!("file={},arch=gfx90a", path("out.bc").display());
//! let extract = ExtractConfig {
//!     rules,
//!     input: path("k.bin"),
//!     images: vec![ImageArgs::parse(&filter)],
//!     archive: false,
//! };
//! packager::extract(&extract, &mut |_| {})?;
//! assert_eq!(std::fs::read(path("out.bc"))?, b"BC\xc0\xde a module");
//! // LLVM 19 also needs `triple=`: a typed error (LLVM: "'file' and 'triple' are required …").
//! let no_triple = PackageConfig {
//!     rules: Rules::of(LlvmVersion::V19),
//!     output: path("k19.bin"),
//!     images: vec![ImageArgs::parse("file=k.bc")],
//! };
//! assert!(matches!(
//!     packager::package(&no_triple),
//!     Err(offkit_bundle::Error::MissingImageArguments { triple: true })
//! ));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod archive;
pub mod error;
pub mod extract;
pub mod fatobj;
pub mod inspect;
pub mod io;
pub mod llvm;
pub mod packager;
pub mod read;
pub mod select;
pub mod thin;
pub mod types;
pub mod walk;
pub mod write;

pub use error::{Error, InputName, Origin, Result, Subject};
