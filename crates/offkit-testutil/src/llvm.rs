//! The LLVM 19 tools the conformance tests compare against, and where they are: under
//! `$OFFKIT_LLVM_ROOT` (read here and nowhere else), by default Debian's `/usr/lib/llvm-19`.
//!
//! This is the tests' oracle only: offkit itself finds its tools by the order documented in
//! `offkit_tools::lookup`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable that names LLVM 19's installation root (holding `bin/` and `lib/`).
pub const LLVM_ROOT_VAR: &str = "OFFKIT_LLVM_ROOT";

/// The root when [`LLVM_ROOT_VAR`] is not set: where Debian's LLVM 19 is installed.
pub const DEFAULT_LLVM_ROOT: &str = "/usr/lib/llvm-19";

/// LLVM 19's installation root: `$OFFKIT_LLVM_ROOT` if set and not empty, else
/// [`DEFAULT_LLVM_ROOT`].
pub fn llvm_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(
        || match offkit_tools::Env::capture().get_os(LLVM_ROOT_VAR) {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(DEFAULT_LLVM_ROOT),
        },
    )
}

/// LLVM 19's `bin/` (clang, lld, llvm-objcopy, the offload tools).
pub fn llvm_bin() -> PathBuf {
    llvm_root().join("bin")
}

/// LLVM 19's `lib/` (libomptarget, its device runtimes and plug-ins).
pub fn llvm_lib() -> PathBuf {
    llvm_root().join("lib")
}

/// The path of LLVM 19 tool `name` (e.g. `clang-offload-bundler`). Panics with a set-up hint
/// when it is missing: conformance tests never skip silently.
#[track_caller]
pub fn llvm_tool(name: &str) -> PathBuf {
    let p = llvm_bin().join(name);
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
