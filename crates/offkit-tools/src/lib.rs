//! # offkit-tools
//!
//! The I/O edge shared by offkit's crates: the one output path ([`fs::Output`], written
//! atomically through [`AtomicFile`]), the one way inputs are opened ([`mmap::open`]: regular
//! files mapped, special files refused at once — [`MappedFile`]), and the external tools offkit drives — clang, ld.lld, llvm-objcopy, llvm-ar, the host linker —
//! found the way LLVM finds them and run as values: a [`ToolInvocation`] is built, can be
//! printed (LLVM's `-v`/`--dry-run` style, or as a shell line for a plan), and is run only
//! through [`ToolInvocation::run`], which turns a missing tool or a failure into an [`Error`]
//! that names it. The environment is read in one place, [`Env`].
//!
//! ```text
//! Env ─► ToolFinder::find("clang") ─► ToolInvocation { program, args, env, cwd } ─► run ─► Output
//! ```
//!
//! ```no_run
//! use offkit_tools::{Env, ToolFinder, ToolInvocation};
//!
//! let env = Env::capture();
//! let finder = ToolFinder::new(&env, None);
//! let clang = finder.find("clang", None).unwrap();
//! let out = ToolInvocation::new(clang).arg("--version").run().unwrap();
//! println!("{}", String::from_utf8_lossy(&out.stdout));
//! ```
#![deny(missing_docs)]

pub mod env;
pub mod error;
pub mod fs;
pub mod input;
pub mod invoke;
pub mod jobserver;
pub mod lookup;
pub mod mmap;
pub mod walk;

pub use env::Env;
pub use error::{os_message, Error};
pub use fs::{write_file, AtomicFile};
pub use input::InputName;
pub use invoke::{Output, ToolInvocation};
pub use jobserver::Jobserver;
pub use lookup::ToolFinder;
pub use mmap::MappedFile;
