//! The linker wrapper's LLVM 22 tests: device objects that clang-22 makes (OpenMP for x86_64
//! and gfx90a, HIP on the new driver with and without `-fgpu-rdc`, an archive), stand-in host
//! runtimes (`libomptarget.so`, `libamdhip64.so`, which Debian 13 does not ship), and the
//! comparison of LLVM 22's tool and offkit's face on one command line.
//!
//! The objects are made once per test process, in one [`Scratch`] directory that both sides
//! then read: the same objects, since clang names OpenMP kernels after the source file's inode
//! and HIP's after a hash of the compile's options (`-cuid=` fixes it here).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::llvm22::{self, Run, Scratch, Side};
use crate::run::Output;

/// An OpenMP program with one target region.
pub const OPENMP_MAIN: &str = r#"#include <stdio.h>
int lib_f(int x);
int main(void) {
  int x = 0;
#pragma omp target map(tofrom: x)
  x = 41;
  printf("%d\n", x + 1);
  return 0;
}
"#;

/// A declare-target function, the archive member of the tests.
pub const OPENMP_LIB: &str = r#"#pragma omp declare target
int lib_f(int x) { return x + 1; }
#pragma omp end declare target
"#;

/// HIP kernels with no HIP headers: what the host side needs is declared here.
pub const HIP_KERNELS: &str = r#"#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shm, void *stream);
__global__ void k(int *x) { *x = 42; }
__device__ int dv;
"#;

/// The host runtime functions the programs' registration code calls (OpenMP and HIP).
const RUNTIME_STUB: &str = r#"void __tgt_register_lib(void *d) {}
void __tgt_unregister_lib(void *d) {}
int __tgt_target_kernel(void *l, long d, int t, int th, void *h, void *a) { return 1; }
void __tgt_init_all_rtls(void) {}
void **__hipRegisterFatBinary(const void *d) { (void)d; return 0; }
void __hipUnregisterFatBinary(void **h) { (void)h; }
void __hipRegisterFunction(void **h, const void *f, char *d, const char *n, unsigned t, void *a, void *b, void *c, void *e, int *s) {}
void __hipRegisterVar(void **h, void *v, char *a, const char *b, int e, unsigned long s, int c, int g) {}
void __hipRegisterManagedVar(void *h, void **p, void *i, const char *n, unsigned long s, unsigned a) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
int __hipPopCallConfiguration(void *g, void *b, unsigned long *s, void *st) { return 0; }
int hipLaunchKernel(const void *f) { (void)f; return 0; }
"#;

/// The architectures of the AMDGPU objects.
pub const AMD_ARCHS: [&str; 2] = ["gfx90a", "gfx1030"];

/// The objects, made once.
#[derive(Debug)]
pub struct Objects {
    dir: Scratch,
}

impl Objects {
    /// The objects of this test process (made on first use).
    pub fn get() -> &'static Objects {
        static OBJECTS: OnceLock<Objects> = OnceLock::new();
        OBJECTS.get_or_init(Objects::make)
    }

    /// Their directory, inside the root.
    pub fn inner(&self) -> PathBuf {
        self.dir.inner()
    }

    /// The directory's host path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Copies them (and the runtimes) into `to`, so that a test's outputs land beside its own
    /// copy.
    pub fn copy_to(&self, to: &Scratch) {
        self.dir.copy_to(to);
    }

    /// Makes, in a new directory: `omp-x86.o` (x86_64 host offload), `omp-amd.o` (gfx90a,
    /// `-nogpulib`), `omp-both.o` (both), `libk.a` (`OPENMP_LIB` for gfx90a and gfx1030, and for
    /// x86_64), `hip-rdc.o` and `hip.o` (HIP, new driver, gfx90a and gfx1030, with and without
    /// `-fgpu-rdc`), `hip-z.o` (rdc, `--offload-compress`), `hip-dev.out` (the device offload
    /// binary of a HIP compile without `-fgpu-rdc`), `main.o` (a host `main`), and the
    /// stand-in runtimes `libomptarget.so` and `libamdhip64.so`. All by LLVM 22's own tools.
    fn make() -> Objects {
        let dir = Scratch::new();
        dir.write("main.c", OPENMP_MAIN);
        dir.write("lib.c", OPENMP_LIB);
        dir.write("k.hip", HIP_KERNELS);
        dir.write("rt.c", RUNTIME_STUB);
        dir.write("hmain.c", "int main(void) { return 0; }\n");
        let amd = format!("--offload-arch={}", AMD_ARCHS.join(","));
        let omp_x86 = "-fopenmp-targets=x86_64-pc-linux-gnu";
        let hip = [
            "-x",
            "hip",
            "--offload-new-driver",
            &amd,
            "-nogpulib",
            "-nogpuinc",
            "-cuid=offkit",
        ];
        let steps: Vec<Vec<&str>> = vec![
            vec!["-fopenmp", omp_x86, "-c", "main.c", "-o", "omp-x86.o"],
            vec![
                "-fopenmp",
                "--offload-arch=gfx90a",
                "-nogpulib",
                "-c",
                "main.c",
                "-o",
                "omp-amd.o",
            ],
            vec![
                "-fopenmp",
                "-fopenmp-targets=x86_64-pc-linux-gnu,amdgcn-amd-amdhsa",
                "-Xopenmp-target=amdgcn-amd-amdhsa",
                "-march=gfx90a",
                "-nogpulib",
                "-c",
                "main.c",
                "-o",
                "omp-both.o",
            ],
            vec![
                "-fopenmp",
                &amd,
                "-nogpulib",
                "-c",
                "lib.c",
                "-o",
                "lib-amd.o",
            ],
            vec!["-fopenmp", omp_x86, "-c", "lib.c", "-o", "lib-x86.o"],
            [&hip[..], &["-fgpu-rdc", "-c", "k.hip", "-o", "hip-rdc.o"]].concat(),
            [&hip[..], &["-c", "k.hip", "-o", "hip.o"]].concat(),
            [
                &hip[..],
                &[
                    "-fgpu-rdc",
                    "--offload-compress",
                    "-c",
                    "k.hip",
                    "-o",
                    "hip-z.o",
                ],
            ]
            .concat(),
            vec!["-c", "hmain.c", "-o", "main.o"],
            vec!["-shared", "-fPIC", "rt.c", "-o", "libomptarget.so"],
            vec!["-shared", "-fPIC", "rt.c", "-o", "libamdhip64.so"],
        ];
        for s in steps {
            llvm22::clang(&s, &dir.inner());
        }
        // The device side of a HIP compile without -fgpu-rdc, as the offload binary clang hands
        // the wrapper with `--emit-fatbin-only`: kept by -save-temps, in a directory of its own.
        dir.write("st/.keep", "");
        llvm22::clang(
            &[&hip[..], &["-save-temps", "-c", "../k.hip", "-o", "k.o"]].concat(),
            &dir.inner().join("st"),
        );
        let dev = std::fs::read(dir.join("st/k-hip-amdgcn-amd-amdhsa.out"))
            .expect("clang -save-temps keeps the device offload binary");
        dir.write("hip-dev.out", dev);
        Run::new(
            Side::Llvm,
            "llvm-ar",
            ["rcs", "libk.a", "lib-amd.o", "lib-x86.o"],
            &dir.inner(),
        )
        .ok();
        Objects { dir }
    }
}

/// `s` with what differs between two runs of the same link and is no difference: temporary
/// names (`-XXXXXX`), and offkit's shims' directory, where offkit finds the tools it is (as
/// LLVM finds them beside itself), as LLVM 22's `bin/`.
pub fn normalize(s: &str) -> String {
    // The shims live in `/tmp/offkit-shims-22-<random>/` inside the root.
    const SHIMS: &str = "\"/tmp/offkit-shims-22-";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(SHIMS) {
        out.push_str(&rest[..i]);
        let after = &rest[i + SHIMS.len()..];
        match after.find('/') {
            Some(j) => {
                out.push('"');
                out.push_str(llvm22::LLVM22_BIN);
                rest = &after[j..];
            }
            None => {
                out.push_str(SHIMS);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    crate::link::normalize_temps(&out)
}

/// Runs `tool args` in `cwd` (inner) with LLVM 22's tool and with offkit's face (its shims
/// must have been made): both outputs.
pub fn both(tool: &str, args: &[&str], cwd: &Path) -> (Output, Output) {
    let theirs = Run::new(Side::Llvm, tool, args, cwd).output();
    let ours = Run::new(Side::Offkit, tool, args, cwd).output();
    (theirs, ours)
}

/// Asserts that both sides exit the same, print the same on stdout and, [`normalize`]d, on
/// stderr.
#[track_caller]
pub fn same(tool: &str, args: &[&str], cwd: &Path) {
    let (theirs, ours) = both(tool, args, cwd);
    assert_eq!(
        (ours.code, ours.stdout_str(), normalize(&ours.stderr_str())),
        (
            theirs.code,
            theirs.stdout_str(),
            normalize(&theirs.stderr_str())
        ),
        "for {tool} {args:?}"
    );
}
