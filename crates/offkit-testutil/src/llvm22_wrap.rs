//! Test support for LLVM 22's registration objects: realistic inputs made by clang-22 in the
//! Debian 13 root ([`crate::llvm22`]) — OpenMP host offload and amdgcn, HIP and CUDA on the new
//! offload driver — and LLVM 22's `clang-linker-wrapper --save-temps --print-wrapped-module`
//! run on them, which keeps the linked device images and the registration object.
//!
//! Debian 13 ships no device runtime and no CUDA: amdgcn device links ignore undefined
//! symbols, and CUDA runs NVIDIA's tools as [`crate::stub_runtime::fake_cuda`]'s stand-ins
//! (with the `nvvm/libdevice`, `include/cuda.h` and `version.txt` that make clang take it for
//! CUDA 12.0, so that `sm_70` code gets a PTX version it accepts).

use std::path::{Path, PathBuf};

use crate::fixtures::{HIP_KERNEL, OPENMP_SAXPY};
use crate::llvm22::{clang, Run, Scratch, Side};

/// What LLVM 22's linker wrapper made in one directory.
#[derive(Debug, Clone)]
pub struct Wrapped {
    /// `a.out.<kind>.image.wrapper.o`.
    pub object: Vec<u8>,
    /// `a.out.<kind>.image.wrapper.bc`, the module as bitcode (before code generation).
    pub bitcode: Vec<u8>,
    /// The module printed by `--print-wrapped-module`.
    pub ir: String,
    /// The directory it ran in (host path).
    pub dir: PathBuf,
}

impl Wrapped {
    /// A file the run kept in its directory (`a.out.amdgcn.gfx90a.img`, `a.out.fatbin`).
    #[track_caller]
    pub fn kept(&self, name: &str) -> Vec<u8> {
        let p = self.dir.join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }
}

/// The CUDA C source of the tests (no CUDA headers: the launch stub's declaration is given).
pub const CUDA_KERNEL: &str = r#"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
typedef struct { unsigned x, y, z; } dim3;
typedef struct CUstream_st *cudaStream_t;
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, cudaStream_t);
__device__ int dv[4];
__constant__ float cv = 1.0f;
__global__ void kern(int *p) { p[0] = dv[1] + (int)cv; }
"#;

/// Compiles `src` (written to `<name>.<ext>` in `s`) with clang-22 and `args`; returns the
/// object's name in `s`.
#[track_caller]
fn compile(s: &Scratch, name: &str, ext: &str, src: &str, args: &[&str]) -> String {
    s.write(format!("{name}.{ext}"), src);
    let (file, obj) = (format!("{name}.{ext}"), format!("{name}.o"));
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-c", &file, "-o", &obj]);
    clang(&all, &s.inner());
    obj
}

/// OpenMP offloading to the host (`x86_64-pc-linux-gnu`): [`OPENMP_SAXPY`].
#[track_caller]
pub fn openmp_x86_64(s: &Scratch) -> String {
    compile(
        s,
        "saxpy",
        "c",
        OPENMP_SAXPY,
        &["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu"],
    )
}

/// OpenMP offloading to an AMD GPU (`--offload-arch=gfx90a -nogpulib`).
#[track_caller]
pub fn openmp_amdgcn(s: &Scratch) -> String {
    compile(
        s,
        "saxpy-gfx90a",
        "c",
        OPENMP_SAXPY,
        &["-fopenmp", "--offload-arch=gfx90a", "-nogpulib"],
    )
}

/// HIP on the new offload driver, relocatable device code, for `archs`.
#[track_caller]
pub fn hip(s: &Scratch, archs: &[&str]) -> String {
    let archs: Vec<String> = archs
        .iter()
        .map(|a| format!("--offload-arch={a}"))
        .collect();
    let mut args = vec![
        "-x",
        "hip",
        "--offload-new-driver",
        "-fgpu-rdc",
        "-nogpulib",
        "-nogpuinc",
    ];
    args.extend(archs.iter().map(String::as_str));
    compile(s, "kern-hip", "hip", HIP_KERNEL, &args)
}

/// The stand-in CUDA installation in `s` (`fakecuda/`), told to be CUDA 12.0; its inner path.
#[track_caller]
pub fn fake_cuda(s: &Scratch) -> PathBuf {
    let root = crate::stub_runtime::fake_cuda(s.path());
    // clang takes a CUDA installation with a libdevice directory (even an empty one), and
    // reads its version from `cuda.h`.
    std::fs::create_dir_all(root.join("nvvm/libdevice")).expect("create fakecuda/nvvm");
    std::fs::create_dir_all(root.join("include")).expect("create fakecuda/include");
    std::fs::write(root.join("include/cuda.h"), "#define CUDA_VERSION 12000\n")
        .expect("write cuda.h");
    std::fs::write(root.join("version.txt"), "CUDA Version 12.0.0\n").expect("write version");
    s.inner().join("fakecuda")
}

/// CUDA on the new offload driver for `sm_70`, device code as bitcode (`-foffload-lto`, so no
/// `ptxas` runs at compile time).
#[track_caller]
pub fn cuda(s: &Scratch) -> String {
    let cuda = format!("--cuda-path={}", fake_cuda(s).display());
    compile(
        s,
        "kern-cuda",
        "cu",
        CUDA_KERNEL,
        &[
            "-x",
            "cuda",
            "--offload-new-driver",
            "-fgpu-rdc",
            "--cuda-gpu-arch=sm_70",
            &cuda,
            "-nocudalib",
            "-nocudainc",
            "-foffload-lto",
        ],
    )
}

/// The linker-wrapper options each input needs here: the host offload's device link needs
/// LLVM 22's `libomp`, an AMD GPU's ignores the device runtime Debian lacks.
pub fn device_options() -> Vec<String> {
    vec![
        "--device-linker=x86_64-pc-linux-gnu=-L/usr/lib/llvm-22/lib".into(),
        "--device-linker=x86_64-pc-linux-gnu=-lomp".into(),
        "--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all".into(),
    ]
}

/// The options a CUDA link needs here: the stand-in tools of [`fake_cuda`] (made by
/// [`cuda`]), for the linker wrapper and for the device compilation it runs.
pub fn cuda_options(s: &Scratch) -> Vec<String> {
    let cuda = s.inner().join("fakecuda");
    vec![
        format!("--cuda-path={}", cuda.display()),
        format!("--device-compiler=--cuda-path={}", cuda.display()),
    ]
}

/// Runs LLVM 22's `clang-linker-wrapper --host-triple=<host> --save-temps
/// --print-wrapped-module --linker-path=/bin/true -o a.out <args>` in the sub-directory `sub`
/// of `s` and returns the registration object of offload kind `kind` and the module.
#[track_caller]
pub fn linker_wrapper(s: &Scratch, sub: &str, host: &str, kind: &str, args: &[String]) -> Wrapped {
    let dir = s.join(sub);
    std::fs::create_dir_all(&dir).expect("create dir");
    let mut all = vec![
        format!("--host-triple={host}"),
        "--save-temps".to_string(),
        "--print-wrapped-module".to_string(),
        "--linker-path=/bin/true".to_string(),
        "-o".to_string(),
        "a.out".to_string(),
    ];
    all.extend(args.iter().cloned());
    let out = Run::new(
        Side::Llvm,
        "clang-linker-wrapper",
        &all,
        &s.inner().join(sub),
    )
    .output();
    let stderr = out.stderr_str();
    let object_path = dir.join(format!("a.out.{kind}.image.wrapper.o"));
    let object = std::fs::read(&object_path).unwrap_or_else(|e| {
        panic!(
            "clang-linker-wrapper made no {} ({e}); exit {:?}\n{stderr}",
            object_path.display(),
            out.code
        )
    });
    let bitcode = std::fs::read(dir.join(format!("a.out.{kind}.image.wrapper.bc")))
        .expect("--save-temps keeps the module's bitcode");
    let start = stderr
        .find("; ModuleID")
        .unwrap_or_else(|| panic!("no module printed:\n{stderr}"));
    let mut ir = String::new();
    for line in stderr[start..].split_inclusive('\n') {
        if line.starts_with('/') || line.starts_with(" \"") || line.starts_with("clang") {
            break;
        }
        ir.push_str(line);
    }
    Wrapped {
        object,
        bitcode,
        ir,
        dir,
    }
}

/// Compiles LLVM IR text `ir` for `target` to an object with clang-22 the way the linker
/// wrapper compiles its module (the optimisation pipeline off, `-O2` code generation, an empty
/// CPU, no address-significance table); returns the object.
#[track_caller]
pub fn compile_ir(s: &Scratch, name: &str, ir: &str, target: &str) -> Vec<u8> {
    let ll = format!("{name}.ll");
    let o = format!("{name}.o");
    s.write(&ll, ir);
    clang(
        &[
            &format!("--target={target}"),
            "-c",
            "-O2",
            "-Xclang",
            "-disable-llvm-passes",
            "-Xclang",
            "-target-cpu",
            "-Xclang",
            "",
            "-fno-addrsig",
            "-Wno-override-module",
            &ll,
            "-o",
            &o,
        ],
        &s.inner(),
    );
    std::fs::read(s.join(&o)).expect("read object")
}

/// Assembles LLVM IR text `ir` with LLVM 22's `llvm-as --preserve-bc-uselistorder=false` (the
/// writer options of LLVM's own `WriteBitcodeToFile`); returns the bitcode.
#[track_caller]
pub fn llvm_as(s: &Scratch, name: &str, ir: &str) -> Vec<u8> {
    let (ll, bc) = (format!("{name}.ll"), format!("{name}.bc"));
    s.write(&ll, ir);
    Run::new(
        Side::Llvm,
        "llvm-as",
        ["--preserve-bc-uselistorder=false", "-o", &bc, &ll],
        &s.inner(),
    )
    .ok();
    std::fs::read(s.join(&bc)).expect("read bitcode")
}

/// The inner path of `rel` in `s` as a string, for a tool's command line.
pub fn inner(s: &Scratch, rel: impl AsRef<Path>) -> String {
    s.inner().join(rel).display().to_string()
}
