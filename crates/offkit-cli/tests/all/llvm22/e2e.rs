//! `clang-22 -B <shims made with offkit shims --llvm 22>` builds real programs with no LLVM 22
//! offload tool, byte-identical to clang-22's own build: OpenMP (x86_64 host offload, gfx90a
//! with `-nogpulib`, static libraries, `-r`), HIP on the new driver (`-fgpu-rdc`, archives,
//! `--offload-compress`, and without `-fgpu-rdc`) and on the old one.
//!
//! Each build runs twice inside the root, from the same sources (OpenMP names kernels after the
//! source file's inode, HIP after `-cuid=`): in `ref/` by clang-22 alone, in `ours/` by
//! clang-22 with `-B <shims>` and `COMPILER_PATH=<shims>` (so that the device links' clang
//! finds offkit's tools first too). Every output file must be the same bytes, and offkit's
//! side must have run no offload tool of LLVM 22 (clang's `-v` and the wrapper's commands show
//! every tool run). Running the programs needs LLVM 22's runtime, which Debian 13 does not ship:
//! stand-in host libraries are linked instead.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::llvm22_link::{HIP_KERNELS, OPENMP_LIB, OPENMP_MAIN};

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

/// LLVM 22's offload tools, which offkit's side must not run.
const OFFLOAD_TOOLS: [&str; 6] = [
    "clang-linker-wrapper",
    "clang-nvlink-wrapper",
    "clang-offload-bundler",
    "clang-offload-packager",
    "llvm-offload-binary",
    "llvm-offload-wrapper",
];

/// One build, on both sides.
struct Build {
    dir: Scratch,
}

impl Build {
    /// A build with `files` (name, text) in `src/`, and the stand-in runtimes built there.
    fn new(files: &[(&str, &str)]) -> Build {
        shims();
        let dir = Scratch::new();
        for (name, text) in files {
            dir.write(format!("src/{name}"), text);
        }
        dir.write(
            "src/rt.c",
            "void __tgt_register_lib(void *d) {}\nvoid __tgt_unregister_lib(void *d) {}\n\
             int __tgt_target_kernel(void *l, long d, int t, int th, void *h, void *a) { return 1; }\n\
             void **__hipRegisterFatBinary(const void *d) { return 0; }\n\
             void __hipUnregisterFatBinary(void **h) {}\n\
             void __hipRegisterFunction(void **h, const void *f, char *d, const char *n, unsigned t, void *a, void *b, void *c, void *e, int *s) {}\n\
             void __hipRegisterVar(void **h, void *v, char *a, const char *b, int e, unsigned long s, int c, int g) {}\n\
             void __hipRegisterManagedVar(void *h, void **p, void *i, const char *n, unsigned long s, unsigned a) {}\n\
             void __hipRegisterSurface(void) {}\nvoid __hipRegisterTexture(void) {}\n\
             int __hipPopCallConfiguration(void *g, void *b, unsigned long *s, void *st) { return 0; }\n\
             int hipLaunchKernel(const void *f) { return 0; }\n",
        );
        dir.write("src/hmain.c", "int main(void) { return 0; }\n");
        let src = dir.inner().join("src");
        for lib in ["libomptarget.so", "libamdhip64.so"] {
            llvm22::clang(&["-shared", "-fPIC", "rt.c", "-o", lib], &src);
        }
        llvm22::clang(&["-c", "hmain.c", "-o", "hmain.o"], &src);
        dir.write("ref/.keep", "");
        dir.write("ours/.keep", "");
        Build { dir }
    }

    /// Runs `clang args` in `ref/` and, through offkit's shims, in `ours/`; both must succeed.
    #[track_caller]
    fn clang(&self, args: &[&str]) {
        let shims = shims().display().to_string();
        for side in ["ref", "ours"] {
            let mut a: Vec<&str> = Vec::new();
            if side == "ours" {
                a.extend(["-B", &shims]);
            }
            a.extend_from_slice(args);
            a.push("-v");
            let run = Run::new(Side::Llvm, "clang", &a, &self.dir.inner().join(side));
            let run = if side == "ours" {
                run.env("COMPILER_PATH", &shims)
            } else {
                run
            };
            let out = run.output();
            let log = out.stderr_str();
            assert_eq!(out.code, Some(0), "{side}: clang {a:?}:\n{log}");
            if side == "ours" {
                for tool in OFFLOAD_TOOLS {
                    let theirs = format!("{}/{tool}\"", llvm22::LLVM22_BIN);
                    assert!(!log.contains(&theirs), "LLVM 22's {tool} ran:\n{log}");
                }
            }
        }
    }

    /// Runs `program args` (an LLVM 22 tool that is no offload tool) on both sides.
    #[track_caller]
    fn tool(&self, program: &str, args: &[&str]) {
        for side in ["ref", "ours"] {
            Run::new(Side::Llvm, program, args, &self.dir.inner().join(side)).ok();
        }
    }

    /// Runs `clang args` (clang-22 alone) in `src/`, for objects both sides link.
    #[track_caller]
    fn clang_src(&self, args: &[&str]) {
        llvm22::clang(args, &self.dir.inner().join("src"));
    }

    /// Asserts that `file` is the same bytes on both sides.
    #[track_caller]
    fn same(&self, file: &str) {
        let theirs = self.dir.read(format!("ref/{file}"));
        assert!(theirs.is_some(), "clang-22 wrote no {file}");
        assert!(
            theirs == self.dir.read(format!("ours/{file}")),
            "{file} differs from clang-22's"
        );
    }
}

#[test]
fn openmp_x86_64_program_and_library() {
    let b = Build::new(&[("main.c", OPENMP_MAIN), ("lib.c", OPENMP_LIB)]);
    let t = "-fopenmp-targets=x86_64-pc-linux-gnu";
    b.clang(&["-fopenmp", t, "-c", "../src/main.c", "-o", "main.o"]);
    b.clang(&["-fopenmp", t, "-c", "../src/lib.c", "-o", "lib.o"]);
    b.same("main.o");
    b.same("lib.o");
    b.tool("llvm-ar", &["rcs", "libk.a", "lib.o"]);
    b.clang(&[
        "-fopenmp", t, "main.o", "-L.", "-lk", "-L../src", "-o", "prog",
    ]);
    b.same("prog");
    b.clang(&[
        "-fopenmp", t, "-fPIC", "-shared", "lib.o", "-L../src", "-o", "libk.so",
    ]);
    b.same("libk.so");
    // A relocatable link registers its own images (its entry section renamed).
    b.clang(&[
        "-fopenmp",
        t,
        "--offload-link",
        "-r",
        "main.o",
        "lib.o",
        "-o",
        "merged.o",
    ]);
    b.same("merged.o");
}

#[test]
fn openmp_gfx90a_without_device_libraries() {
    let b = Build::new(&[("main.c", OPENMP_MAIN), ("lib.c", OPENMP_LIB)]);
    let amd = ["-fopenmp", "--offload-arch=gfx90a", "-nogpulib"];
    b.clang(&[&amd[..], &["-c", "../src/main.c", "-o", "main.o"]].concat());
    b.clang(
        &[
            &amd[..],
            &["-foffload-lto", "-c", "../src/lib.c", "-o", "lib.o"],
        ]
        .concat(),
    );
    b.same("main.o");
    b.same("lib.o");
    b.tool("llvm-ar", &["rcs", "libk.a", "lib.o"]);
    // No device runtime: its functions stay undefined in the device link.
    let link = [
        "-Xoffload-linker",
        "--unresolved-symbols=ignore-all",
        "main.o",
        "-L.",
        "-lk",
        "-L../src",
        "-o",
        "prog",
    ];
    b.clang(&[&amd[..], &link[..]].concat());
    b.same("prog");
}

#[test]
fn hip_new_driver() {
    let b = Build::new(&[("k.hip", HIP_KERNELS)]);
    let hip = [
        "-x",
        "hip",
        "--offload-new-driver",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "-nogpuinc",
        "-cuid=offkit",
    ];
    // Without -fgpu-rdc, the fat binary is made at compile time (--emit-fatbin-only).
    b.clang(&[&hip[..], &["-c", "../src/k.hip", "-o", "k.o"]].concat());
    b.same("k.o");
    let link = ["../src/hmain.o", "-L../src", "-lamdhip64"];
    b.clang(&[&["k.o", "-o", "prog"][..], &link[..]].concat());
    b.same("prog");
    // -fgpu-rdc: the device code is linked with the program, here also from an archive.
    // (The objects are clang-22's own: `hip_rdc_objects` compiles them through the shims.)
    b.clang_src(&[&hip[..], &["-fgpu-rdc", "-c", "k.hip", "-o", "rdc.o"]].concat());
    b.tool("cp", &["../src/rdc.o", "."]);
    b.tool("llvm-ar", &["rcs", "libhk.a", "rdc.o"]);
    let rdc = [
        "--offload-new-driver",
        "-fgpu-rdc",
        "--hip-link",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
    ];
    b.clang(&[&rdc[..], &["rdc.o", "-o", "prog-rdc"], &link[..]].concat());
    b.same("prog-rdc");
    b.clang(&[&rdc[..], &["-L.", "-lhk", "-o", "prog-ar"], &link[..]].concat());
    b.same("prog-ar");
}

#[test]
fn hip_new_driver_compressed() {
    let b = Build::new(&[("k.hip", HIP_KERNELS)]);
    let hip = [
        "-x",
        "hip",
        "--offload-new-driver",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "-nogpuinc",
        "-cuid=offkit",
        "--offload-compress",
    ];
    b.clang(&[&hip[..], &["-c", "../src/k.hip", "-o", "k.o"]].concat());
    b.same("k.o");
    b.clang_src(&[&hip[..], &["-fgpu-rdc", "-c", "k.hip", "-o", "rdc.o"]].concat());
    b.tool("cp", &["../src/rdc.o", "."]);
    b.clang(&[
        "--offload-new-driver",
        "-fgpu-rdc",
        "--hip-link",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "--offload-compress",
        "rdc.o",
        "../src/hmain.o",
        "-L../src",
        "-lamdhip64",
        "-o",
        "prog",
    ]);
    b.same("prog");
}

#[test]
fn hip_old_driver() {
    let b = Build::new(&[("k.hip", HIP_KERNELS)]);
    let hip = [
        "-x",
        "hip",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "-nogpuinc",
        "-cuid=offkit",
    ];
    b.clang(&[&hip[..], &["-c", "../src/k.hip", "-o", "k.o"]].concat());
    b.same("k.o");
    b.clang(
        &[
            &hip[..],
            &["-fgpu-rdc", "-c", "../src/k.hip", "-o", "rdc.o"],
        ]
        .concat(),
    );
    b.same("rdc.o");
    b.clang(&[
        "-fgpu-rdc",
        "--hip-link",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "rdc.o",
        "../src/hmain.o",
        "-L../src",
        "-lamdhip64",
        "-o",
        "prog",
    ]);
    b.same("prog");
}

/// HIP objects for `-fgpu-rdc` on the new driver, compiled through the shims: the device code
/// is packaged by offkit's `llvm-offload-binary` (kind `hip`, LLVM 22's value 4).
#[test]
fn hip_rdc_objects() {
    let b = Build::new(&[("k.hip", HIP_KERNELS)]);
    let hip = [
        "-x",
        "hip",
        "--offload-new-driver",
        "-fgpu-rdc",
        "--offload-arch=gfx90a,gfx1030",
        "-nogpulib",
        "-nogpuinc",
        "-cuid=offkit",
    ];
    b.clang(&[&hip[..], &["-c", "../src/k.hip", "-o", "rdc.o"]].concat());
    b.same("rdc.o");
}
