//! Conformance tests of `triple` and `target_id` against the LLVM 19 (and, in `llvm22`, 22) tools that apply each
//! rule: `clang-offload-bundler` (entry-ID standardisation, code-object compatibility,
//! `-targets` checks, `-check-input-archive`), `clang-linker-wrapper` (grouping of device
//! images), and `opt` (which prints `Triple::normalize` of `-mtriple`). The matrices are
//! generated from a fixed seed; the tools run two at a time.

use std::fmt::Write as _;

mod bundler;
mod checks;
mod linker;
mod llvm22;
mod target_id;
mod triple;

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Fails with the first mismatches (and how many there were) if there are any.
#[track_caller]
fn assert_no_mismatch(what: &str, compared: usize, mismatches: &[String]) {
    assert!(compared > 0, "{what}: nothing was compared");
    if !mismatches.is_empty() {
        let mut msg = format!(
            "{what}: {} of {compared} cases differ from LLVM:\n",
            mismatches.len()
        );
        for m in mismatches.iter().take(25) {
            let _ = writeln!(msg, "  {m}");
        }
        panic!("{msg}");
    }
    eprintln!("{what}: {compared} cases agree with LLVM");
}
