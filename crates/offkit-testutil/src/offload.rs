//! Offloading objects of every kind as clang-19 makes them, for the linker wrapper's tests:
//! OpenMP (x86_64 or aarch64 host code plus amdgcn), HIP and CUDA, each with device code as
//! an ELF object or as bitcode (offload LTO), for any host triple clang-19 knows. CUDA device
//! objects need NVIDIA's `ptxas`, which is not here: a stand-in
//! ([`crate::stub_runtime::fake_cuda`]) writes an empty cubin.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fixtures::write_source;
use crate::llvm::clang;

/// An offload kind as the tests build it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// OpenMP offloading to the host's own triple and to `amdgcn-amd-amdhsa` (gfx90a).
    OpenMp,
    /// HIP for gfx90a, relocatable device code, the new offload driver.
    Hip,
    /// CUDA for sm_70, relocatable device code, the new offload driver.
    Cuda,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 3] = [Kind::OpenMp, Kind::Hip, Kind::Cuda];

    /// A short name (`openmp`, `hip`, `cuda`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::OpenMp => "openmp",
            Kind::Hip => "hip",
            Kind::Cuda => "cuda",
        }
    }
}

/// A target region and a `declare target` variable.
pub const OPENMP_SOURCE: &str = r#"
#pragma omp declare target
int counter = 1;
#pragma omp end declare target
int run(void) {
  int d = 0;
#pragma omp target map(from: d)
  { d = counter + 1; }
  return d;
}
"#;

/// A CUDA source without headers: a kernel, a `__device__` array and a `__constant__`.
pub const CUDA_SOURCE: &str = r#"
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

/// Compiles `dir/<name>.o` of `kind` for host `host` (a triple clang-19 knows); `lto` keeps the
/// device code as bitcode (`-foffload-lto`), otherwise it is an ELF object (`-fno-offload-lto`;
/// for CUDA an empty stand-in cubin); `extra` flags are added (`-Dname=other` renames a symbol).
#[track_caller]
pub fn compile(
    dir: &Path,
    name: &str,
    kind: Kind,
    host: &str,
    lto: bool,
    extra: &[&str],
) -> PathBuf {
    let o = dir.join(format!("{name}.o"));
    let target = format!("--target={host}");
    let lto_flag = if lto {
        "-foffload-lto"
    } else {
        "-fno-offload-lto"
    };
    let (src, mut args): (PathBuf, Vec<String>) = match kind {
        Kind::OpenMp => {
            let host_arch = host.split('-').next().unwrap_or(host);
            let own = if host_arch == "aarch64" {
                "aarch64-unknown-linux-gnu"
            } else {
                "x86_64-pc-linux-gnu"
            };
            (
                write_source(dir, &format!("{name}.c"), OPENMP_SOURCE),
                vec![
                    "-fopenmp".into(),
                    format!("-fopenmp-targets={own},amdgcn-amd-amdhsa"),
                    "-Xopenmp-target=amdgcn-amd-amdhsa".into(),
                    "-march=gfx90a".into(),
                    "-nogpulib".into(),
                    // No GPU wrapper headers: they include the host's C library headers,
                    // which a Windows host has not here.
                    "-nogpuinc".into(),
                ],
            )
        }
        Kind::Hip => (
            write_source(dir, &format!("{name}.hip"), crate::fixtures::HIP_KERNEL),
            [
                "-x",
                "hip",
                "--offload-arch=gfx90a",
                "-nogpulib",
                "-nogpuinc",
            ]
            .map(String::from)
            .to_vec(),
        ),
        Kind::Cuda => (
            write_source(dir, &format!("{name}.cu"), CUDA_SOURCE),
            [
                "-x",
                "cuda",
                "--offload-arch=sm_70",
                "-nocudalib",
                "-nocudainc",
            ]
            .map(String::from)
            .to_vec(),
        ),
    };
    if kind != Kind::OpenMp {
        args.extend(["--offload-new-driver".into(), "-fgpu-rdc".into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        target,
        lto_flag.into(),
        "-c".into(),
        src.display().to_string(),
        "-o".into(),
        o.display().to_string(),
    ]);
    if kind == Kind::Cuda && !lto {
        let ptxas = crate::stub_runtime::fake_cuda(dir).join("bin/ptxas");
        args.push(format!("--ptxas-path={}", ptxas.display()));
    }
    let out = Command::new(clang())
        .args(&args)
        .current_dir(dir)
        .output()
        .expect("run clang-19");
    assert!(
        out.status.success(),
        "clang-19 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    o
}
