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
//! Parsing is bounded (on `offkit-read`'s `Reader` and named limits) and zero-copy, and every error names the absolute offset of the bad byte.
//! This crate does no file I/O and runs no processes.
//!
//! ```text
//! "amdgcn-amd-amdhsa" ─parse─► Triple ─┐
//! "gfx90a:xnack+"  ───────────────────┴─► TargetId ─► bundler / linker wrapper rules
//! module.bc ─bitstream─► MODULE ─► embedded offload objects;  SYMTAB + STRTAB ─► irsymtab
//! ```
//!
//! ```
//! use offkit_llvm::target_id::TargetId;
//! use offkit_llvm::triple::Triple;
//! use offkit_llvm::LlvmVersion;
//!
//! let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
//! let id = TargetId::parse(LlvmVersion::V22, &amdgcn, b"gfx90a:xnack-:sramecc+").unwrap();
//! assert_eq!(id.canonical(), b"gfx90a:sramecc+:xnack-");
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
