//! The LLVM 19 tools the conformance tests compare against.

use std::path::{Path, PathBuf};

/// Where Debian's LLVM 19 installs its tools.
pub const LLVM_BIN: &str = "/usr/lib/llvm-19/bin";

/// The path of LLVM 19 tool `name` (e.g. `clang-offload-bundler`). Panics with a set-up hint
/// when it is missing: conformance tests never skip silently.
#[track_caller]
pub fn llvm_tool(name: &str) -> PathBuf {
    let p = Path::new(LLVM_BIN).join(name);
    assert!(
        p.exists(),
        "{} is missing: the LLVM 19 oracle is not installed; run scripts/test.sh, which installs \
         clang-19 lld-19 llvm-19 libomp-19-dev",
        p.display()
    );
    p
}

/// clang 19.
#[track_caller]
pub fn clang() -> PathBuf {
    llvm_tool("clang")
}
