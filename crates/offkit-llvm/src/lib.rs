//! # offkit-llvm
//!
//! What offkit models of LLVM itself (19 and 22, the release a value: [`LlvmVersion`]), as
//! opposed to the offload formats (those are
//! `offkit-format`'s, which builds on this crate):
//!
//! - [`triple`]: `llvm::Triple` (parsing, `normalize`, `isCompatibleWith`);
//! - [`target_id`]: target IDs (`gfx90a:xnack+`), each release's processor tables, and the rules of
//!   single tools over them: the bundler's entry IDs, compatibility and `-targets` checks with
//!   LLVM's messages ([`target_id::bundle`]), the linker wrapper's grouping
//!   ([`target_id::linker`]);
//! - [`adt`]: the iteration orders of LLVM's `DenseMap` and `StringMap` where they reach output
//!   bytes;
//! - [`bitcode`]: the bitstream, the embedded offload objects of a module, and the irsymtab;
//! - [`string_table`]: the layout of LLVM's `StringTableBuilder` (offload binaries' string
//!   tables, ELF string tables);
//! - the two LLVM command-line parsers the drop-ins use: [`cl`] (`llvm/Support/CommandLine`:
//!   the bundler, the packager, the wrapper; and how it reads integers) and [`opt_table`]
//!   (`llvm/Option`'s `OptTable`: the linker wrapper).
//!
//! Parsing is bounded (on `offkit-read`'s `Reader` and named limits) and zero-copy, and every
//! error names the absolute offset of the bad byte. This crate does no file I/O and runs no
//! processes.
//!
//! ```text
//!  LlvmVersion (V19 | V22): each release's tables, one column per concept
//!      │
//! "amdgcn-amd-amdhsa" ─Triple::parse_in─► Triple ─normalize─► canonical text
//!      │                                     │
//! "gfx90a:xnack+" ─TargetId::parse─► TargetId (canonical processor, features)
//!      │                                     │
//!      └─ bundle entry ID ─BundleEntryId::parse─► is_compatible / check_targets (bundler)
//!                                            └─ linker::is_compatible (linker wrapper groups)
//! module.bc ─bitcode::embedded_objects─► offload binaries;  SYMTAB + STRTAB ─symtab─► Symtab
//! argv ─cl / opt_table─► options as LLVM's parsers read them
//! ```
//!
//! The front door: a release, a triple and a target ID, and what each tool of that release
//! makes of them.
//!
//! ```
//! use offkit_llvm::target_id::bundle::{is_compatible, BundleEntryId};
//! use offkit_llvm::{LlvmVersion, TargetId, Triple};
//!
//! let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
//! assert!(amdgcn.is_amdgcn());
//! let id = TargetId::parse(LlvmVersion::V22, &amdgcn, b"gfx90a:xnack-:sramecc+").unwrap();
//! assert_eq!(id.canonical(), b"gfx90a:sramecc+:xnack-");
//! // gfx950 is new in 22.
//! assert!(TargetId::parse(LlvmVersion::V19, &amdgcn, "gfx950").is_err());
//!
//! // The bundler's reading of an entry ID, and whether a code object serves a request.
//! let entry = BundleEntryId::parse(LlvmVersion::V19, b"hipv4-amdgcn-amd-amdhsa--gfx90a");
//! let wanted = BundleEntryId::parse(LlvmVersion::V19, b"hip-amdgcn-amd-amdhsa--gfx90a:xnack+");
//! assert!(is_compatible(&entry, &wanted, false));
//! assert!(!offkit_llvm::bitcode::is_bitcode(b"\x7fELF"));
//! ```
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod adt;
pub mod bitcode;
pub mod cl;
mod error;
pub mod opt_table;
pub mod string_table;
pub mod target_id;
pub mod triple;
pub mod version;

pub use error::Error;
pub(crate) use error::Result;
pub use version::{LlvmVersion, Releases};

// The types of the front door, where a reader looks first.
pub use target_id::TargetId;
pub use triple::Triple;
