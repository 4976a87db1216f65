//! The drop-in `clang-offload-bundler` (LLVM 19).
//!
//! Not landed yet (issue 3).

use std::ffi::OsString;
use std::process::ExitCode;

use offkit_tools::Env;

/// Runs the tool with its full argument vector.
pub fn main(args: Vec<OsString>, _env: &Env) -> ExitCode {
    super::not_landed(&args, super::Tool::Bundler, 3)
}
