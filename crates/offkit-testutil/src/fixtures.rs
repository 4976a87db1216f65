//! Inputs built by clang-19, the way users build them.

use std::path::{Path, PathBuf};

use crate::llvm::clang;
use crate::run::run_ok;

/// The directory `<base>/<name>`, emptied: for fixtures that the tests of one binary share
/// through a `static` (`OnceLock`). A `tempfile::TempDir` in a static is never dropped, so it
/// would stay in `/tmp` after every run; this one lives under `base` — the test binary's
/// `env!("CARGO_TARGET_TMPDIR")` — and each run clears what the previous one left, so at most
/// one copy exists and `cargo clean` removes it.
#[track_caller]
pub fn shared_dir(base: &str, name: &str) -> PathBuf {
    let dir = Path::new(base).join(name);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("cannot clear {}: {e}", dir.display()),
    }
    std::fs::create_dir_all(&dir).expect("create the fixture directory");
    dir
}

/// Compiles C source `src` (written to `dir/<name>.c`) to `dir/<name>.o` with OpenMP offloading
/// to `targets` (e.g. `["x86_64-pc-linux-gnu"]`), plus `extra` flags. Returns the object's path.
#[track_caller]
pub fn compile_openmp(
    dir: &Path,
    name: &str,
    src: &str,
    targets: &[&str],
    extra: &[&str],
) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).expect("write source");
    let o = dir.join(format!("{name}.o"));
    let mut args: Vec<String> = vec!["-fopenmp".into()];
    if !targets.is_empty() {
        args.push(format!("-fopenmp-targets={}", targets.join(",")));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend([
        "-c".into(),
        c.display().to_string(),
        "-o".into(),
        o.display().to_string(),
    ]);
    run_ok(clang(), &args, dir);
    o
}

/// A small OpenMP program: one target region, one `declare target` global.
pub const OPENMP_SAXPY: &str = r#"
#include <omp.h>
#pragma omp declare target
int scale = 2;
#pragma omp end declare target
int saxpy(int n, float *x, float *y) {
  int host = 1;
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n]) map(from: host)
  {
    for (int i = 0; i < n; ++i) y[i] += scale * x[i];
    host = omp_is_initial_device();
  }
  return host;
}
"#;

/// An OpenMP source without `#include` (so that it compiles for any `--target`, e.g. i386 or
/// powerpc64, without that target's headers): a target region (a kernel entry), `declare
/// target` variables, a `link` variable, an indirect function and `requires` (the entry with
/// flag 0x10). Kernel names hold the source file's device and inode numbers, so they differ
/// from machine to machine.
pub const OPENMP_FULL: &str = r#"
#pragma omp requires unified_shared_memory
#pragma omp declare target
int scale = 2;
double table[8];
#pragma omp end declare target
int g_link;
#pragma omp declare target link(g_link)
int twice(int x) { return 2 * x; }
#pragma omp declare target indirect to(twice)
int saxpy(int n, float *x, float *y) {
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] += scale * x[i] + table[0] + g_link;
  return 0;
}
"#;

/// An OpenMP source with a kernel and variables, no `requires`, no `#include`.
pub const OPENMP_KERNEL: &str = r#"
#pragma omp declare target
int scale = 2;
double table[8];
#pragma omp end declare target
int g_link;
#pragma omp declare target link(g_link)
int saxpy(int n, float *x, float *y) {
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] += scale * x[i] + table[0] + g_link;
  return 0;
}
"#;

/// An OpenMP source with `declare target` variables only: no kernel, so its objects are the
/// same on every machine (and link without a device runtime, e.g. with `-nogpulib`).
pub const OPENMP_VARIABLES: &str = r#"
#pragma omp declare target
int scale = 2;
double table[8];
#pragma omp end declare target
int g_link;
#pragma omp declare target link(g_link)
"#;

/// A `main` calling `saxpy` of [`OPENMP_KERNEL`]/[`OPENMP_FULL`].
pub const MAIN_SAXPY: &str = r#"
int saxpy(int n, float *x, float *y);
int main(void) { float x[4] = {1, 2, 3, 4}, y[4] = {0}; return saxpy(4, x, y); }
"#;

/// A `main` that does nothing.
pub const MAIN_EMPTY: &str = "int main(void) { return 0; }\n";

/// A HIP source without headers: a kernel, a `__device__` array, a `__constant__` and a
/// `__managed__` variable (entries with flags 0, 0x10 and kind 1).
pub const HIP_KERNEL: &str = r#"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
typedef struct { unsigned x, y, z; } dim3;
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
__device__ int dv[4];
__constant__ float cv = 1.0f;
__managed__ int mv;
__global__ void kern(int *p) { p[0] = dv[1] + (int)cv + mv; }
"#;

/// Runs clang 19 with `args` in `dir`.
#[track_caller]
pub fn clang_in(dir: &Path, args: &[&str]) {
    run_ok(clang(), args, dir);
}

/// Writes `src` to `dir/<file>` and returns the path.
#[track_caller]
pub fn write_source(dir: &Path, file: &str, src: &str) -> PathBuf {
    let p = dir.join(file);
    std::fs::write(&p, src).expect("write source");
    p
}

/// Compiles `src` (written to `dir/<name>.c`) for host `target` with OpenMP offloading to the
/// same triple, plus `extra` flags; returns `dir/<name>.o`.
#[track_caller]
pub fn compile_openmp_for(
    dir: &Path,
    name: &str,
    src: &str,
    target: &str,
    extra: &[&str],
) -> PathBuf {
    let mut args = vec![format!("--target={target}")];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    compile_openmp(dir, name, src, &[target], &args)
}

/// Compiles HIP `src` (written to `dir/<name>.hip`) for `arch` with the new offload driver and
/// relocatable device code (an object with `.llvm.offloading` and `hip_offloading_entries`).
#[track_caller]
pub fn compile_hip(dir: &Path, name: &str, src: &str, arch: &str, extra: &[&str]) -> PathBuf {
    let c = write_source(dir, &format!("{name}.hip"), src);
    let o = dir.join(format!("{name}.o"));
    let arch = format!("--offload-arch={arch}");
    let (c, o_s) = (c.display().to_string(), o.display().to_string());
    let mut args = vec![
        "-x",
        "hip",
        &arch,
        "-nogpulib",
        "-nogpuinc",
        "--offload-new-driver",
        "-fgpu-rdc",
    ];
    args.extend_from_slice(extra);
    args.extend(["-c", &c, "-o", &o_s]);
    clang_in(dir, &args);
    o
}

/// A stand-in `libamdhip64.so` in `dir` defining the HIP registration functions, so that HIP
/// programs link (they cannot run: there is no GPU). Returns `dir`.
#[track_caller]
pub fn fake_hip_runtime(dir: &Path) -> PathBuf {
    let src = write_source(
        dir,
        "fakehip.c",
        "void __hipRegisterFatBinary(void){} void __hipRegisterFunction(void){}\n\
         void __hipRegisterVar(void){} void __hipUnregisterFatBinary(void){}\n\
         void __hipRegisterManagedVar(void){} void __hipRegisterSurface(void){}\n\
         void __hipRegisterTexture(void){} int hipLaunchKernel(void){return 0;}\n",
    );
    let so = dir.join("libamdhip64.so");
    clang_in(
        dir,
        &[
            "-shared",
            "-fPIC",
            &src.display().to_string(),
            "-o",
            &so.display().to_string(),
        ],
    );
    dir.to_path_buf()
}

/// Makes `dir/<name>` from `members` with llvm-ar 19: `format` is `gnu`, `bsd` or `thin`.
#[track_caller]
pub fn archive(dir: &Path, name: &str, members: &[&Path], format: &str) -> PathBuf {
    let out = dir.join(name);
    let _ = std::fs::remove_file(&out);
    let mut args: Vec<String> = match format {
        "thin" => vec!["rcs".into(), "--thin".into()],
        f => vec!["rcs".into(), format!("--format={f}")],
    };
    args.push(out.display().to_string());
    args.extend(members.iter().map(|m| m.display().to_string()));
    run_ok(crate::llvm_tool("llvm-ar"), &args, dir);
    out
}

/// Assembly (GNU syntax, x86-64) of a host object with LLVM 20+'s `llvm_offload_entries`: a
/// kernel entry (OpenMP, size 0), a HIP variable entry (16 bytes, flags 0x10 `constant`, data
/// 7) and an entry whose name is an undefined symbol. clang 19 cannot emit these, so tests
/// assemble them.
pub const LLVM_OFFLOAD_ENTRIES_ASM: &str = r#"
        .text
        .globl  kern_stub
        .hidden kern_stub
kern_stub:
        ret
        .data
        .globl  dev_var
        .hidden dev_var
        .p2align 3
dev_var:
        .zero   16
        .section .llvm.rodata.offloading,"aMS",@progbits,1
.Lname0:
        .asciz  "kern"
.Lname1:
        .asciz  "dev_var"
        .section llvm_offload_entries,"aw",@progbits
        .p2align 3
        .quad   0
        .short  1, 1
        .long   0
        .quad   kern_stub
        .quad   .Lname0
        .quad   0
        .quad   0
        .quad   0
        .quad   0
        .short  1, 4
        .long   0x10
        .quad   dev_var
        .quad   .Lname1
        .quad   16
        .quad   7
        .quad   0
        .quad   0
        .short  1, 2
        .long   0
        .quad   ext_var
        .quad   ext_name
        .quad   4
        .quad   0
        .quad   0
"#;
