//! # offkit-format
//!
//! Reads and writes the formats of LLVM's offloading toolchain and their containers, exactly as
//! LLVM 19 does: offload binaries (`0x10FF10AD`, the `.llvm.offloading` section, [`binary`]),
//! offload bundles (`__CLANG_OFFLOAD_BUNDLE__` and the compressed `CCOB` form, [`bundle`]),
//! CUDA fat binaries ([`fatbin`]), AMDGPU code objects ([`code_object`]), offload entry tables
//! ([`entry`]), the one walk over objects, archives and sections that finds them all
//! ([`scan`], [`container`]), which image a device would load ([`device`]) and which devices a
//! file's images cover ([`coverage`]).
//!
//! What models LLVM itself — `Triple`, target IDs and the single tools' rules over them, the
//! `DenseMap`/`StringMap` orders, bitcode — is `offkit-llvm`'s; this crate builds on it (the
//! bounded reader and the named limits are there too) and never the reverse.
//!
//! Parsing is bounded and zero-copy: readers take `&[u8]` (from a `Vec` or a memory map) and
//! return views that borrow it; every error names the absolute offset of the bad byte. This
//! crate does no file I/O and runs no processes.
//!
//! ```text
//! host.o / libdev.a ─scan─► .llvm.offloading ─parse─► [Binary] ─► Entry { triple, arch, image }
//!                                   bundle ─parse─► [BundleEntry] ─► payload
//! ```
//!
//! ```
//! use offkit_format::binary::{self, ImageSpec};
//! use offkit_format::kind::{ImageKind, OffloadKind};
//!
//! let spec = ImageSpec {
//!     image_kind: ImageKind::Object,
//!     offload_kind: OffloadKind::OpenMp,
//!     flags: 0,
//!     strings: vec![(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"")],
//! };
//! let bytes = binary::write_v1(&spec, b"\x7fELF...", offkit_llvm::LlvmVersion::V19).unwrap();
//! let bin = binary::parse_all(&bytes, 0).next().unwrap().unwrap();
//! assert_eq!(bin.entries[0].triple(), "x86_64-pc-linux-gnu");
//! ```
#![deny(missing_docs)]
// The crate docs link the modules of the default features.
#![cfg_attr(not(feature = "scan"), allow(rustdoc::broken_intra_doc_links))]

// The default features `compress` and `scan` (Cargo.toml) bring the modules that need zlib,
// zstd, MD5 or the `object` crate; the runtime builds without them.
pub mod binary;
#[cfg(feature = "compress")]
pub mod bundle;
#[cfg(feature = "scan")]
pub mod code_object;
#[cfg(feature = "scan")]
pub mod container;
pub mod coverage;
pub mod device;
#[cfg(feature = "scan")]
pub mod entry;
pub mod error;
#[cfg(feature = "compress")]
pub mod fatbin;
pub mod kind;
#[cfg(feature = "scan")]
pub mod scan;

pub use error::{Error, Result};
