//! Choosing a face's version: shims, the environment, the tool's name.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

/// The oracle is there and runs: clang-22 says its version inside the root.
#[test]
fn oracle_runs() {
    let s = Scratch::new();
    let out = llvm22::clang(&["--version"], &s.inner());
    assert!(
        out.stdout_str().starts_with("Debian clang version 22.1."),
        "{}",
        out.stdout_str()
    );
}

/// Shims made with `--llvm 22` answer to LLVM 22's new names; the environment can make them
/// LLVM 19 again, and a 22-only tool then says how to choose 22.
#[test]
fn version_from_shims_and_environment() {
    shims();
    let s = Scratch::new();
    let out = Run::new(
        Side::Offkit,
        "llvm-offload-binary",
        ["--version"],
        &s.inner(),
    )
    .env("OFFKIT_LLVM", "19")
    .output();
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr_str(),
        "offkit: error: llvm-offload-binary is a tool of LLVM 22 and later; this face is LLVM \
         19: set OFFKIT_LLVM=22\n"
    );
    let out = Run::new(
        Side::Offkit,
        "clang-offload-bundler",
        ["--version"],
        &s.inner(),
    )
    .env("OFFKIT_LLVM", "20")
    .output();
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr_str().contains("OFFKIT_LLVM=20"),
        "{}",
        out.stderr_str()
    );
    assert!(shims().join("llvm-offload-wrapper").is_absolute());
    assert!(llvm22::host_path(&shims().join(".offkit-llvm")).exists());
}
