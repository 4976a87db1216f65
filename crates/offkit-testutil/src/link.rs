//! Test support for the linker wrapper: LLVM 19's tool, offkit's shims, OpenMP programs and
//! the normalisation of LLVM's random temporary names.

use std::path::{Path, PathBuf};

use crate::llvm::llvm_tool;
use crate::run::run_ok;

/// LLVM 19's `clang-linker-wrapper`.
#[track_caller]
pub fn llvm_wrapper() -> PathBuf {
    llvm_tool("clang-linker-wrapper")
}

/// Makes offkit's drop-in links in `dir` with `offkit shims` (`offkit` is the binary under
/// test); returns `dir`.
#[track_caller]
pub fn shims(offkit: &Path, dir: &Path) -> PathBuf {
    run_ok(
        offkit,
        [Path::new("shims"), dir],
        dir.parent().unwrap_or(dir),
    );
    dir.to_path_buf()
}

/// Replaces the six random hex digits LLVM (and offkit, which names temporaries the same way)
/// puts in temporary file names (`/tmp/p.x86_64.native-051d9b.img`) by `XXXXXX`.
pub fn normalize_temps(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
        if b[i] == b'-'
            && i + 8 <= b.len()
            && b[i + 1..i + 7].iter().all(|&c| hex(c))
            && (b[i + 7] == b'.')
        {
            out.push_str("-XXXXXX");
            i += 7;
            continue;
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// OpenMP test programs: name, sources (file name, text), expected output.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    /// The program's name.
    pub name: &'static str,
    /// Its translation units.
    pub sources: &'static [(&'static str, &'static str)],
    /// What it prints when its target regions ran on the offload device.
    pub expected: &'static str,
}

/// A target region, data mapping and a check that the region ran on the device.
pub const TARGET_REGION: Program = Program {
    name: "region",
    sources: &[(
        "region.c",
        r#"#include <stdio.h>
#include <omp.h>
int main(void) {
  int a[8], dev = 1;
  for (int i = 0; i < 8; ++i) a[i] = i;
#pragma omp target map(tofrom: a) map(from: dev)
  {
    for (int i = 0; i < 8; ++i) a[i] *= 3;
    dev = omp_is_initial_device();
  }
  printf("initial=%d sum=%d\n", dev, a[0] + a[7]);
  return 0;
}
"#,
    )],
    expected: "initial=0 sum=21\n",
};

/// `declare target` globals, initialised and `link`, over several translation units.
pub const DECLARE_TARGET: Program = Program {
    name: "globals",
    sources: &[
        (
            "globals.c",
            r#"#include <stdio.h>
#include <omp.h>
#pragma omp declare target
int counter = 40;
int bump(int x);
#pragma omp end declare target
int linked[4] = {1, 2, 3, 4};
#pragma omp declare target link(linked)
int main(void) {
  int dev = 1, s = 0;
#pragma omp target map(from: dev, s) map(tofrom: linked)
  {
    counter = bump(counter);
    s = counter + linked[3];
    dev = omp_is_initial_device();
  }
  printf("initial=%d s=%d\n", dev, s);
  return 0;
}
"#,
        ),
        (
            "bump.c",
            r#"#pragma omp declare target
int bump(int x) { return x + 2; }
#pragma omp end declare target
"#,
        ),
    ],
    expected: "initial=0 s=46\n",
};

/// C++ device constructors.
pub const CXX_CTORS: Program = Program {
    name: "ctors",
    sources: &[(
        "ctors.cpp",
        r#"#include <cstdio>
#include <omp.h>
struct S { int v; S() : v(7) {} };
#pragma omp declare target
S s;
#pragma omp end declare target
int main() {
  int v = 0, dev = 1;
#pragma omp target map(from: v, dev)
  { v = s.v; dev = omp_is_initial_device(); }
  std::printf("initial=%d v=%d\n", dev, v);
  return 0;
}
"#,
    )],
    expected: "initial=0 v=7\n",
};

/// A static library: `used.c` is needed, `unused.c` is not (but defines a visible device
/// function, which LLVM 19 links anyway).
pub const LIBRARY_MAIN: &str = r#"#include <stdio.h>
#include <omp.h>
#pragma omp declare target
int twice(int);
#pragma omp end declare target
int main(void) {
  int r = 0, dev = 1;
#pragma omp target map(from: r, dev)
  { r = twice(21); dev = omp_is_initial_device(); }
  printf("initial=%d r=%d\n", dev, r);
  return 0;
}
"#;

/// The needed member of the library.
pub const LIBRARY_USED: &str = r#"#pragma omp declare target
int twice(int x) { return 2 * x; }
#pragma omp end declare target
"#;

/// The unneeded member of the library.
pub const LIBRARY_UNUSED: &str = r#"#pragma omp declare target
int thrice(int x) { return 3 * x; }
#pragma omp end declare target
"#;

/// The output of the library program.
pub const LIBRARY_EXPECTED: &str = "initial=0 r=42\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(
            normalize_temps("-o /tmp/p.x86_64.native-051d9b.img /tmp/p-x86_64--b47ab7.o -lm-abc"),
            "-o /tmp/p.x86_64.native-XXXXXX.img /tmp/p-x86_64--XXXXXX.o -lm-abc"
        );
    }
}
