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
//! `DenseMap`/`StringMap` orders, bitcode — is `offkit-llvm`'s; this crate builds on it and
//! never the reverse. Both read with `offkit-read`'s bounded `Reader` and named limits.
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
#![warn(unreachable_pub)]

pub mod binary;
pub mod bundle;
pub mod code_object;
pub mod container;
pub mod coverage;
pub mod device;
pub mod entry;
mod error;
pub mod fatbin;
pub mod kind;
pub mod scan;

pub use error::{Error, Result};
