//! End to end on the real runtime: a program compiled by clang-19 for OpenMP offloading to the
//! host, its device code linked as LLVM's linker wrapper links it, registered by offkit's
//! object (LLVM 19's form and the seed-002 form), run against LLVM 19's libomptarget.

use std::path::{Path, PathBuf};

use offkit_format::container::offload_binaries;
use offkit_testutil::{clang, llvm_tool, run_ok};
use offkit_wrap::{Image, Kind, Large, WrapOptions, Wrapper};

/// Target regions, `declare target` globals (updated both ways), and a C++ global whose device
/// copy is built by its constructor on the device.
pub const PROGRAM: &str = r#"
#include <omp.h>
#include <stdio.h>
#pragma omp declare target
int counter = 5;
int table[4] = {1, 2, 3, 4};
struct Init {
  int v;
  Init() : v(42) {}
};
Init g;
#pragma omp end declare target

int main() {
  int initial = -1, gv = 0, sum = 0, cnt = 0;
  g.v = 1;  // the host copy; the device copy keeps what its constructor set
  counter = 7;
#pragma omp target update to(counter)
#pragma omp target map(from : initial, gv, sum, cnt)
  {
    initial = omp_is_initial_device();
    gv = g.v;
    sum = table[0] + table[1] + table[2] + table[3];
    cnt = counter;
    counter += 1;
  }
#pragma omp target update from(counter)
  printf("initial=%d g=%d sum=%d counter=%d after=%d\n", initial, gv, sum, cnt, counter);
  return initial;
}
"#;

/// What the program prints when its target region ran on the offload device.
pub const EXPECTED: &str = "initial=0 g=42 sum=10 counter=7 after=8\n";

pub const LLVM_LIB: &str = "/usr/lib/llvm-19/lib";

/// Compiles [`PROGRAM`] to `host.o` and links its device object to `device.so` the way
/// `clang-linker-wrapper` 19 does for a CPU target (`-Wl,-Bsymbolic -shared` plus the host
/// libraries). Returns `(host.o, device.so)`.
#[track_caller]
pub fn build(dir: &Path) -> (PathBuf, PathBuf) {
    let src = dir.join("p.cpp");
    std::fs::write(&src, PROGRAM).unwrap();
    let host = dir.join("host.o");
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            "-fopenmp-targets=x86_64-pc-linux-gnu",
            "-c",
            &src.display().to_string(),
            "-o",
            &host.display().to_string(),
        ],
        dir,
    );
    let obj = std::fs::read(&host).unwrap();
    let bins = offload_binaries(&obj, 0).unwrap();
    assert_eq!(bins.len(), 1, "one device object");
    let entry = &bins[0].entries[0];
    assert_eq!(entry.triple(), "x86_64-pc-linux-gnu");
    let dev_o = dir.join("device.o");
    std::fs::write(&dev_o, &entry.image).unwrap();
    let dev_so = dir.join("device.so");
    run_ok(
        clang(),
        [
            "--no-default-config",
            "-o",
            &dev_so.display().to_string(),
            "--target=x86_64-pc-linux-gnu",
            "-O2",
            "-Wl,--no-undefined",
            &dev_o.display().to_string(),
            "-Wl,-Bsymbolic",
            "-shared",
            "-L",
            LLVM_LIB,
            "-lomp",
            "-lomptarget",
            // clang++ links the host with libstdc++; the linker wrapper passes the host
            // libraries on to a CPU device link.
            "-lstdc++",
        ],
        dir,
    );
    (host, dev_so)
}

/// Links `host.o` with `wrapper` (plain `-fopenmp`: no linker wrapper, no second registration)
/// into `name` with `linker` (`bfd` or `lld`) and runs it; returns its stdout.
#[track_caller]
pub fn link_and_run(dir: &Path, host: &Path, wrapper: &Path, name: &str, linker: &str) -> String {
    let exe = dir.join(name);
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            &format!("-fuse-ld={linker}"),
            &host.display().to_string(),
            &wrapper.display().to_string(),
            "-L",
            LLVM_LIB,
            "-lomptarget",
            "-o",
            &exe.display().to_string(),
        ],
        dir,
    );
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", LLVM_LIB)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} failed ({:?}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[track_caller]
fn write_wrapper(dir: &Path, name: &str, image: &[u8], opts: &WrapOptions) -> PathBuf {
    let images = [Image::new(image, "x86_64-pc-linux-gnu", "")];
    let mut bytes = Vec::new();
    Wrapper::new(&images, opts)
        .unwrap()
        .write_object(&mut bytes)
        .unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn openmp_program_runs_on_the_device_with_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (host, dev) = build(d);
    let image = std::fs::read(&dev).unwrap();
    let llvm19 = WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp);
    let seed = WrapOptions {
        image_info: true,
        ..llvm19.clone()
    };
    // The large-image layout (`.lrodata…`), forced on a small image, runs the same.
    let large = |o: &WrapOptions| WrapOptions {
        large: Large::Always,
        ..o.clone()
    };
    let wrappers = [
        write_wrapper(d, "llvm19.o", &image, &llvm19),
        write_wrapper(d, "seed.o", &image, &seed),
        write_wrapper(d, "llvm19-large.o", &image, &large(&llvm19)),
        write_wrapper(d, "seed-large.o", &image, &large(&seed)),
    ];
    for linker in ["bfd", "lld"] {
        for w in &wrappers {
            let name = format!("p-{}-{linker}", w.file_stem().unwrap().to_string_lossy());
            assert_eq!(link_and_run(d, &host, w, &name, linker), EXPECTED, "{name}");
        }
    }
    // the target region does not run on the device (LLVM 19's libomptarget even crashes).
    let exe = d.join("p-none");
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            &host.display().to_string(),
            "-L",
            LLVM_LIB,
            "-lomptarget",
            "-o",
            &exe.display().to_string(),
        ],
        d,
    );
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", LLVM_LIB)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("initial=0"));
}
