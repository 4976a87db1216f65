//! # offkit-link
//!
//! The linker wrapper: what LLVM 19's `clang-linker-wrapper` does between clang and the host
//! linker, without LLVM inside. It reads the host link's command line, finds the device code in
//! the inputs (objects and the archive members the wrapper's rules pull in), links it per
//! target with clang/ld.lld, wraps the images into registration objects (offkit-wrap) and runs
//! the host linker with those objects inserted after `-o <file>`.
//!
//! ```text
//! LinkConfig ─Link::new─► Link
//!   host.o / libdev.a ─load, scan─► .llvm.offloading ─parse─► [DeviceInput] ─group─► Groups
//!   ─link_devices (clang, ld.lld; parallel, jobserver)─► [KindImages] ─wrap (bundle)─►
//!   registration .o ─host_link─► a.out   (─► -r: rename the entry sections in place)
//!   ─finish─► time trace, --explain, --emit-plan
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
//! The API is typed: build a [`LinkConfig`] (or read one from LLVM's command line with
//! [`LinkConfig::from_llvm_args`]), then [`Link::run`] it, or call its phases one by one —
//! [`Link::load`], [`Link::scan`], [`Link::group`], [`Link::link_devices`], [`Link::wrap`],
//! [`Link::host_link`], [`Link::finish`] — to look at or change what passes between them.
//!
//! ```no_run
//! use offkit_link::{Link, LinkConfig};
//!
//! // main.o: `clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c main.c`
//! let host_link = ["-fopenmp", "-o", "app", "main.o", "-L/usr/lib/llvm-19/lib", "-lomptarget"];
//! let mut config = LinkConfig::new("clang-19", host_link.map(String::from).to_vec());
//! config.offload_targets = Some("x86_64-pc-linux-gnu".into());
//! config.jobs = Some(2);
//! let env = offkit_tools::Env::capture();
//! let link = Link::new(&config, &env)?;
//!
//! // Phase by phase (or all at once: `link.run()?`).
//! let inputs = link.load()?;
//! let scanned = link.scan(&inputs)?;
//! let groups = link.group(&scanned)?;
//! for g in &groups.groups {
//!     println!("linking {} image(s) for {} {}", g.inputs.len(), g.target.0, g.target.1);
//! }
//! let result = (|| {
//!     let images = link.link_devices(&scanned, &groups)?;
//!     let objects = link.wrap(&images)?;
//!     link.host_link(&objects)
//! })();
//! link.finish(result)?;
//! # Ok::<(), offkit_link::Error>(())
//! ```
#![deny(missing_docs)]

mod config;
mod device;
mod elf_target;
mod error;
mod explain;
mod invoke;
mod link;
mod lto;
pub mod nvlink;
pub mod opts;
mod plan;
pub mod relocate;
mod resolve;
mod scan;
mod symbols;
mod targets;
mod temp;
mod trace;
mod wrap;

pub use config::{BitcodeLibrary, LinkConfig, OverrideImage, DEFAULT_HOST_TRIPLE};
pub use error::{Error, InputName, Result};
pub use link::{
    DeviceImage, Groups, Inputs, KindImages, Link, Scanned, Wrap, WrapImage, WrapRequest,
};
pub use resolve::{Group, Reason, TargetId};
pub use scan::DeviceInput;
pub use wrap::OffkitWrap;
