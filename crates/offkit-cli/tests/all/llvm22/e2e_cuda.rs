//! CUDA through `clang-22 -B <shims made with offkit shims --llvm 22>`: the new driver's CUDA
//! objects (`-fgpu-rdc` and not), a static library and programs, byte-identical to clang-22's
//! own build, with NVIDIA's tools of the minimal CUDA installation `scripts/setup-cuda-tools.sh`
//! assembles from PyPI (`/opt/cuda-tools` in the root: `bin/{ptxas,nvlink,fatbinary}` of
//! `nvidia-cuda-nvcc`, `include/` of `nvidia-cuda-runtime`, whose `cuda.h` gives clang the CUDA
//! version it chooses the PTX version by). No CUDA headers or libdevice are used
//! (`-nocudainc -nocudalib`: the kernels declare what they need); NVIDIA's tools are found on
//! `PATH` too, as a CUDA user has them (the device link's clang is given no `--cuda-path`).
//! The architecture is sm_75: CUDA 13's ptxas, the one PyPI ships with `nvlink` and
//! `fatbinary`, no longer knows sm_70.
//!
//! Each build runs in `ref/` by clang-22 alone and in `ours/` with `-B <shims>` and
//! `COMPILER_PATH=<shims>`; every output must be the same bytes, offkit's side must have run no
//! offload tool of LLVM 22 (clang's `-v` and the device compiler's, `--device-compiler=-v`,
//! show every tool run), and the programs, run with a stand-in CUDA runtime (there is no GPU
//! here), register the same fat binary, kernel and variable.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};

/// Where `scripts/setup-cuda-tools.sh` puts the CUDA installation in the root.
const CUDA: &str = "/opt/cuda-tools";

/// The kernels, a device variable, and a host function that takes a kernel's address (so that
/// a program linking the library pulls its member).
const KERNELS: &str = r#"#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct { unsigned x, y, z; } dim3;
typedef struct CUstream_st *cudaStream_t;
extern "C" int cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shm, cudaStream_t s);
__global__ void k(int *x) { *x = 42; }
__global__ void scale(float *x, float a) { x[0] *= a; }
__device__ int dv;
extern "C" const void *kernel_handle(void) { return (const void *)k; }
"#;

/// LLVM 22's offload tools, which offkit's side must not run.
const OFFLOAD_TOOLS: [&str; 4] = [
    "clang-linker-wrapper",
    "clang-nvlink-wrapper",
    "clang-offload-packager",
    "llvm-offload-binary",
];

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

/// The flags of every CUDA compile and link.
fn cuda_flags() -> Vec<String> {
    [
        &format!("--cuda-path={CUDA}"),
        "--offload-new-driver",
        "--cuda-gpu-arch=sm_75",
        "-nocudainc",
        "-nocudalib",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

struct Build {
    dir: Scratch,
}

impl Build {
    fn new() -> Build {
        shims();
        let tools = llvm22::host_path(Path::new(CUDA));
        assert!(
            tools.join("bin/nvlink").is_file() && tools.join("include/cuda.h").is_file(),
            "no CUDA installation at {CUDA} in the root: run scripts/setup-cuda-tools.sh"
        );
        let dir = Scratch::new();
        dir.write("src/k.cu", KERNELS);
        dir.write(
            "src/main.c",
            "const void *kernel_handle(void);\nint main(void) { return kernel_handle() == 0; }\n",
        );
        dir.write("src/rt.c", offkit_testutil::stub_runtime::STUB_RUNTIME);
        let src = dir.inner().join("src");
        llvm22::clang(&["-shared", "-fPIC", "rt.c", "-o", "libcudart.so"], &src);
        llvm22::clang(&["-c", "main.c", "-o", "main.o"], &src);
        dir.write("ref/.keep", "");
        dir.write("ours/.keep", "");
        Build { dir }
    }

    /// Runs `clang args` in `ref/` and, through offkit's shims, in `ours/`, with NVIDIA's tools
    /// on `PATH`; both must succeed, and offkit's side must run none of LLVM's offload tools.
    #[track_caller]
    fn clang(&self, args: &[&str]) {
        let shims = shims().display().to_string();
        for side in ["ref", "ours"] {
            let mut a: Vec<&str> = Vec::new();
            if side == "ours" {
                a.extend(["-B", &shims]);
            }
            a.extend_from_slice(args);
            a.extend(["-v", "-Wl,--device-compiler=-v"]);
            let path = format!("{CUDA}/bin:{}:/usr/bin:/bin", llvm22::LLVM22_BIN);
            let run =
                Run::new(Side::Llvm, "clang", &a, &self.dir.inner().join(side)).env("PATH", &path);
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

    #[track_caller]
    fn same(&self, file: &str) {
        let theirs = self.dir.read(format!("ref/{file}"));
        assert!(theirs.is_some(), "clang-22 wrote no {file}");
        assert!(
            theirs == self.dir.read(format!("ours/{file}")),
            "{file} differs from clang-22's"
        );
    }

    /// What the program `exe` registers, run on both sides (the same on both).
    #[track_caller]
    fn registers(&self, exe: &str) -> String {
        let outs: Vec<String> = ["ref", "ours"]
            .iter()
            .map(|side| {
                let dir = self.dir.inner().join(side);
                let program = dir.join(exe).display().to_string();
                let lib = self.dir.inner().join("src").display().to_string();
                Run::new(Side::Llvm, &program, Vec::<String>::new(), &dir)
                    .env("LD_LIBRARY_PATH", &lib)
                    .ok()
                    .stdout_str()
            })
            .collect();
        assert_eq!(outs[0], outs[1], "{exe} registers differently");
        outs[0].clone()
    }
}

#[test]
fn cuda_objects_library_and_programs() {
    let b = Build::new();
    let cuda = cuda_flags();
    let cuda: Vec<&str> = cuda.iter().map(String::as_str).collect();
    let compile = |extra: &[&str], out: &str| {
        b.clang(
            &[
                &["-x", "cuda"],
                &cuda[..],
                extra,
                &["-c", "../src/k.cu", "-o", out],
            ]
            .concat(),
        )
    };
    compile(&["-fgpu-rdc"], "k.o");
    compile(&[], "k-whole.o");
    b.same("k.o");
    b.same("k-whole.o");
    for side in ["ref", "ours"] {
        Run::new(
            Side::Llvm,
            "llvm-ar",
            ["rcs", "libk.a", "k.o"],
            &b.dir.inner().join(side),
        )
        .ok();
    }
    let link = |inputs: &[&str], rdc: bool, out: &str| {
        let rdc: &[&str] = if rdc { &["-fgpu-rdc"] } else { &[] };
        b.clang(
            &[
                &cuda[..],
                rdc,
                &["../src/main.o"],
                inputs,
                &["-L../src", "-lcudart", "-o", out],
            ]
            .concat(),
        )
    };
    link(&["k.o"], true, "prog");
    // The linker wrapper takes an archive member's device code when device code needs it, or
    // under --whole-archive.
    link(&["-L.", "-lk"], true, "prog-lib");
    link(
        &[
            "-L.",
            "-Wl,--whole-archive",
            "-lk",
            "-Wl,--no-whole-archive",
        ],
        true,
        "prog-whole-lib",
    );
    link(&["k-whole.o"], false, "prog-whole");
    b.same("prog-lib");
    assert_eq!(b.registers("prog-lib"), "");
    for p in ["prog", "prog-whole-lib", "prog-whole"] {
        b.same(p);
        let got = b.registers(p);
        for line in [
            "__cuda register: magic 0x466243b1 version 1",
            "  function _Z1kPi",
            "  function _Z5scalePff",
            "  variable dv size 4",
        ] {
            assert!(
                got.lines().any(|l| l.starts_with(line)),
                "{p}: {line}:\n{got}"
            );
        }
    }
}
