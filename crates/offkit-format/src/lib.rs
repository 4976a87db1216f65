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
//!  bytes (a Vec or a memory map)
//!    │ scan::scan / scan::walk: by content, nested to any depth
//!    ├─ archive ──container::members──► member ─┐
//!    ├─ ELF / COFF ──container::sections──► Section { kind, index, offset, data }
//!    │     ├─ OffloadBinaries ──binary::parse_all──► Binary ─► Entry { kind, triple, arch, image }
//!    │     ├─ HipFatbin / Bundle ──bundle::sequence──► bundle (plain, CCOB) ─► entries
//!    │     ├─ CudaFatbin ──fatbin::parse_all──► Fatbin ─► entries (sm_XY, PTX, ELF)
//!    │     └─ EntryTable ──entry::read_tables──► Table ─► [Entry { addr, name, size, flags }]
//!    └─ bundle, offload binary, bitcode (embedded objects)
//!          ▼
//!  scan::Report { containers, images: [ImageInfo { offload_kind: Model, triple: Triple,
//!                 target_id: ImageTargetId, compression, .. }], tables, warnings }
//!          │ device::Device::fit(&triple, &target_id, image_kind) ─► Fit
//!          ▼ coverage::check_file(&images, &[Device])
//!  FileCoverage { available, verdicts: [Verdict { status, image, reason, flag }] }
//! ```
//!
//! The front door: scan a file's bytes, read the typed report, ask which image a device would
//! load and whether the file covers a set of devices. Writing goes the other way
//! ([`binary::write_v1`], [`bundle::binary::write`], [`bundle::compressed::compress`]).
//!
//! ```
//! use object::write::{Object, StandardSection};
//! use object::{elf, Architecture, BinaryFormat, Endianness, SectionFlags, SectionKind};
//! use offkit_format::binary::{self, ImageSpec};
//! use offkit_format::coverage::{self, Status};
//! use offkit_format::device::{Device, Fit};
//! use offkit_format::kind::{ImageKind, Model, OffloadKind};
//! use offkit_format::{container, scan};
//!
//! // An offload binary holding one AMD GPU code object, as clang embeds it.
//! let spec = ImageSpec {
//!     image_kind: ImageKind::Object,
//!     offload_kind: OffloadKind::OpenMp,
//!     flags: 0,
//!     strings: vec![(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a:xnack+")],
//! };
//! let blob = binary::write_v1(&spec, b"\x7fELF...", offkit_llvm::LlvmVersion::V19).unwrap();
//! let bin = binary::parse_all(&blob, 0).next().unwrap().unwrap();
//! assert_eq!(bin.entries[0].arch(), "gfx90a:xnack+");
//!
//! // In the `.llvm.offloading` section of a host object.
//! let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
//! let text = obj.section_id(StandardSection::Text);
//! obj.append_section_data(text, &[0xc3], 1);
//! let s = obj.add_section(Vec::new(), b".llvm.offloading".to_vec(), SectionKind::Data);
//! obj.section_mut(s).flags = SectionFlags::Elf {
//!     sh_type: elf::SectionType(container::SHT_LLVM_OFFLOADING),
//!     sh_flags: elf::SectionFlags(0),
//! };
//! obj.append_section_data(s, &blob, 8);
//! let host = obj.write().unwrap();
//! let found = container::sections(&host, 0).next().unwrap().unwrap();
//! assert_eq!(found.kind, container::SectionKind::OffloadBinaries);
//!
//! // The scan finds it, typed.
//! let report = scan::scan(&host, "k.o", &mut scan::Options::default()).unwrap();
//! let image = &report.images[0];
//! assert_eq!(image.location.to_string(), "k.o:.llvm.offloading[0]");
//! assert_eq!(image.offload_kind, Model::Offload(OffloadKind::OpenMp));
//! assert!(image.triple.is_amdgcn());
//!
//! // Which devices load it, and whether the file covers a set of devices.
//! let gfx90a = Device::parse("gfx90a:xnack+").unwrap();
//! let fit = gfx90a.fit(&image.triple, &image.target_id, image.image_kind);
//! assert_eq!(fit, Some(Fit::Exact));
//! let devices = [gfx90a, Device::parse("gfx90a:xnack-").unwrap()];
//! let file = coverage::check_file(&report.images, &devices, false);
//! assert_eq!(file.verdicts[0].status, Status::Covered);
//! assert_eq!(file.verdicts[1].status, Status::Missing);
//! assert_eq!(file.verdicts[1].flag.as_deref(), Some("--offload-arch=gfx90a:xnack-"));
//! ```
#![deny(missing_docs)]
// The crate docs link the modules of the default features.
#![cfg_attr(not(feature = "scan"), allow(rustdoc::broken_intra_doc_links))]
#![warn(unreachable_pub)]

// The default features `compress` and `scan` (Cargo.toml) bring the modules that need zlib,
// zstd, MD5 or the `object` crate; the runtime builds without them.
pub mod binary;
#[cfg(feature = "compress")]
pub mod bundle;
#[cfg(feature = "scan")]
pub mod code_object;
#[cfg(feature = "scan")]
pub mod container;
#[cfg(feature = "scan")]
pub mod coverage;
pub mod device;
#[cfg(feature = "scan")]
pub mod entry;
mod error;
#[cfg(feature = "compress")]
pub mod fatbin;
pub mod kind;
pub mod msgpack;
pub mod nvinfo;
#[cfg(feature = "scan")]
pub mod scan;

pub use error::{Error, Result};

// The types of the front door, where a reader looks first.
pub use device::{Device, Fit, ImageTargetId};
pub use kind::{BundleKind, ImageKind, Model, OffloadKind};
#[cfg(feature = "scan")]
pub use scan::{ImageInfo, Report};
