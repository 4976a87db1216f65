//! Test support for offkit (not published): where the LLVM 19 oracle tools are, building
//! fixtures with clang-19, running commands and comparing their results.
//!
//! The conformance tests run LLVM 19's own tools on the same inputs as offkit; the project's
//! set-up (`scripts/test.sh`) installs them, so a missing tool is a set-up error and the tests
//! fail loudly rather than skip.

pub mod bitcode;
pub mod bundler;
pub mod code_objects;
mod error;
pub mod fatbin;
pub mod fixtures;
pub mod hip;
pub mod hostile;
pub mod link;
pub mod llvm;
pub mod llvm22;
pub mod llvm22_arch;
pub mod llvm22_bundler;
pub mod llvm22_link;
pub mod llvm22_objdump;
pub mod llvm22_packager;
pub mod llvm22_wrap;
pub mod offload;
pub mod packager;
pub mod run;
pub mod stub_runtime;
pub mod targets;
pub mod wrap;

pub use error::Error;
pub use llvm::{clang, llvm_bin, llvm_lib, llvm_root, llvm_tool};
pub use run::{run, run_ok, Output};
