//! # offkit-link
//!
//! The linker wrapper: what LLVM 19's `clang-linker-wrapper` does between clang and the host
//! linker, without LLVM inside. It reads the host link's command line, finds the device code in
//! the inputs (objects and the archive members the wrapper's rules pull in), links it per
//! target with clang/ld.lld, wraps the images into registration objects (offkit-wrap) and runs
//! the host linker with those objects inserted after `-o <file>`.
//!
//! ```text
//! host.o / libdev.a ─scan─► .llvm.offloading ─parse─► [DeviceInput] ─resolve─► groups
//!   ─device link (clang, ld.lld; parallel, jobserver)─► images ─bundle─► wrap ─► registration .o
//!   ─► host linker ─► a.out   (─► -r: rename the entry sections in place)
//! ```
//!
//! Beyond LLVM 19: `--offload-targets=` / `OFFKIT_OFFLOAD_TARGETS` keep only some targets,
//! `--explain` says why each device image was or was not linked, `--emit-plan=FILE` writes the
//! link as a shell script.
//!
//! Where LLVM 19 uses LLVM's libraries inside the wrapper, offkit runs LLVM 19's tools, unprinted
//! as LLVM's in-process work is: the LTO of bitcode device code is `llvm-lto2` given the symbol
//! resolutions LLVM 19 computes (its object is LLVM's, byte for byte), and the registration
//! module of a COFF host is compiled by `llc` (with `--clang-backend`, clang gets LLVM's
//! optimized module from `llvm-lto2` as from LLVM 19, and `--embed-bitcode` embeds it).
//! `docs/linking.md` lists what is left.
//!
//! ```no_run
//! use offkit_link::{link, opts, wrap::OffkitWrap};
//!
//! let words: Vec<String> = ["--linker-path=/usr/bin/ld", "-o", "a.out", "main.o"]
//!     .iter().map(|s| s.to_string()).collect();
//! let args = opts::parse(&words).unwrap();
//! let env = offkit_tools::Env::capture();
//! let session = link::Session { args: &args, env: &env, argv0: None, wrap: &OffkitWrap, log: None };
//! link::run(session).unwrap();
//! ```
#![deny(missing_docs)]

pub mod device;
pub mod elf_target;
pub mod error;
pub mod explain;
pub mod invoke;
pub mod link;
pub mod lto;
pub mod opts;
pub mod plan;
pub mod relocate;
pub mod resolve;
pub mod scan;
pub mod symbols;
pub mod targets;
pub mod temp;
pub mod trace;
pub mod wrap;

pub use error::{Error, InputName, Result};
