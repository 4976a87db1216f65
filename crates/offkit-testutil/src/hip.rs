//! HIP libraries as ROCm ships them: several translation units compiled by clang-19 with the
//! classic offload driver (each host object has a `.hip_fatbin` section holding one bundle, and
//! a `__hip_fatbin_wrapper` record in `.hipFatBinSegment` pointing at it), linked into one
//! shared library by GNU ld or lld, whose `.hip_fatbin` is then a sequence of bundles at
//! 4096-byte boundaries. No HIP headers or runtime are needed: the kernels declare what they
//! use, and a small C stub defines the runtime's registration functions.

use std::path::{Path, PathBuf};

use crate::fixtures::{clang_in, write_source};
use crate::run_ok;

/// The offload architectures every fixture is built for.
pub const ARCHS: &str = "gfx90a,gfx1030";

/// The bundle entry IDs of one translation unit's bundle, in LLVM 19's order.
pub const IDS: [&str; 3] = [
    "host-x86_64-unknown-linux--",
    "hipv4-amdgcn-amd-amdhsa--gfx1030",
    "hipv4-amdgcn-amd-amdhsa--gfx90a",
];

/// A translation unit with a few kernels (named after `i`, so that every TU differs).
pub fn kernels(i: usize) -> String {
    format!(
        "#define __global__ __attribute__((global))\n\
         typedef struct {{ unsigned x, y, z; }} dim3;\n\
         extern \"C\" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, \
         unsigned long shm, void *stream);\n\
         __global__ void scale{i}(float *x, float a) {{ x[__builtin_amdgcn_workitem_id_x()] *= a + {i}; }}\n\
         __global__ void add{i}(float *x, const float *y) {{ unsigned k = __builtin_amdgcn_workitem_id_x(); x[k] += y[k]; }}\n\
         __global__ void fill{i}(int *x, int n) {{ for (int k = 0; k < n; ++k) x[k] = k * {i}; }}\n"
    )
}

/// Compiles translation unit `i` to `dir/k<i>.o` (position-independent), with
/// `--offload-compress` when `compress` is set.
#[track_caller]
pub fn compile_tu(dir: &Path, i: usize, compress: bool) -> PathBuf {
    let src = write_source(dir, &format!("k{i}.hip"), &kernels(i));
    let out = dir.join(format!("k{i}.o"));
    let arch = format!("--offload-arch={ARCHS}");
    let (s, o) = (src.display().to_string(), out.display().to_string());
    let mut args = vec!["-x", "hip", &arch, "-nogpulib", "-nogpuinc", "-fPIC"];
    if compress {
        args.push("--offload-compress");
    }
    args.extend(["-c", &s, "-o", &o]);
    clang_in(dir, &args);
    out
}

/// The HIP runtime's registration functions, as an object `dir/hipstub.o`.
#[track_caller]
pub fn runtime_stub(dir: &Path) -> PathBuf {
    let src = write_source(
        dir,
        "hipstub.c",
        "void **__hipRegisterFatBinary(const void *d) { (void)d; return 0; }\n\
         void __hipUnregisterFatBinary(void **h) { (void)h; }\n\
         void __hipRegisterFunction(void **h, const void *f, char *d, const char *n, unsigned t,\n\
                                    void *a, void *b, void *c, void *e, int *s) {}\n\
         int __hipPopCallConfiguration(void *g, void *b, unsigned long *s, void *st) { return 0; }\n\
         int hipLaunchKernel(const void *f) { (void)f; return 0; }\n",
    );
    let out = dir.join("hipstub.o");
    clang_in(
        dir,
        &[
            "-fPIC",
            "-c",
            &src.display().to_string(),
            "-o",
            &out.display().to_string(),
        ],
    );
    out
}

/// The linker a library is linked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linker {
    /// GNU ld (`-fuse-ld=bfd`): writes the wrappers' pointers in place.
    Bfd,
    /// lld: leaves them to `R_X86_64_RELATIVE` dynamic relocations.
    Lld,
}

/// Builds `dir/<name>` — a shared library of one translation unit per entry of `compress`
/// (compressed where it is true) plus the runtime stub, linked by `linker`. Returns the
/// library and the objects.
#[track_caller]
pub fn library(
    dir: &Path,
    name: &str,
    compress: &[bool],
    linker: Linker,
) -> (PathBuf, Vec<PathBuf>) {
    let objs: Vec<PathBuf> = compress
        .iter()
        .enumerate()
        .map(|(i, &c)| compile_tu(dir, i, c))
        .collect();
    let stub = runtime_stub(dir);
    let out = dir.join(name);
    let mut args: Vec<String> = vec![
        "-shared".into(),
        match linker {
            Linker::Bfd => "-fuse-ld=bfd".into(),
            Linker::Lld => "-fuse-ld=lld".into(),
        },
    ];
    args.extend(objs.iter().map(|o| o.display().to_string()));
    args.push(stub.display().to_string());
    args.extend(["-o".into(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    clang_in(dir, &args);
    (out, objs)
}

/// LLVM 19's bundler handed one bundle (`bytes`, plain or compressed, written to
/// `dir/<stem>.bundle`): the IDs `-list` prints (in its order, which is not the file's) and,
/// for each, what `-unbundle` writes — `None` where LLVM 19 refuses (it cannot unbundle the
/// empty host entry of a HIP bundle: "Can't find bundles for …").
#[track_caller]
pub fn bundler_unbundle(dir: &Path, stem: &str, bytes: &[u8]) -> Vec<(String, Option<Vec<u8>>)> {
    let input = dir.join(format!("{stem}.bundle"));
    std::fs::write(&input, bytes).expect("write the bundle");
    let bundler = crate::llvm_tool("clang-offload-bundler");
    let i = format!("-input={}", input.display());
    let list = run_ok(&bundler, ["-list", "-type=bc", &i], dir).stdout_str();
    let mut out = Vec::new();
    for id in list.lines().filter(|l| !l.is_empty()) {
        let file = dir.join(format!("{stem}-{}.out", id.replace(':', "_")));
        let r = crate::run(
            &bundler,
            [
                "-unbundle",
                "-type=bc",
                &i,
                &format!("-targets={id}"),
                &format!("-output={}", file.display()),
            ],
            dir,
        );
        let got =
            (r.code == Some(0)).then(|| std::fs::read(&file).expect("read the unbundled file"));
        out.push((id.to_string(), got));
    }
    out
}

/// Lays `bundles` out one after another, each padded with zeros to a multiple of `align`, as
/// a linker lays out `.hip_fatbin` input sections. Returns the bytes and each bundle's offset.
pub fn lay_out(bundles: &[Vec<u8>], align: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for b in bundles {
        starts.push(out.len() as u64);
        out.extend_from_slice(b);
        out.resize(out.len().div_ceil(align) * align, 0);
    }
    (out, starts)
}

/// Adds `section` as `.hip_fatbin` (4096-aligned, read-only data) to a copy of the object
/// `obj`, written to `out`, with llvm-objcopy 19.
#[track_caller]
pub fn with_hip_fatbin(dir: &Path, obj: &Path, section: &Path, out: &Path) {
    run_ok(
        crate::llvm_tool("llvm-objcopy"),
        [
            format!("--add-section=.hip_fatbin={}", section.display()),
            "--set-section-alignment=.hip_fatbin=4096".into(),
            "--set-section-flags=.hip_fatbin=alloc,readonly,data".into(),
            obj.display().to_string(),
            out.display().to_string(),
        ],
        dir,
    );
}
