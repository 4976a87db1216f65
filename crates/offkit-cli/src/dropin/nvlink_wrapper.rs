//! The drop-in clang-nvlink-wrapper: not yet in this offkit (being written).

use std::ffi::OsString;
use std::process::ExitCode;

use offkit_tools::Env;

/// Runs the tool with its full argument vector.
pub fn main(face: &super::Face, _args: Vec<OsString>, _env: &Env) -> ExitCode {
    eprintln!(
        "offkit: error: the {} face of LLVM {} is not in this offkit yet",
        face.tool.name(),
        face.version
    );
    ExitCode::from(1)
}
