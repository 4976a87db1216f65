//! `offkit inspect --resources` against the tools that report the same facts, and `offkit
//! extract`'s PTX against `cuobjdump -xptx`:
//!
//! - cubins built here by NVIDIA's `ptxas` (CUDA 13, through clang-19's CUDA compile and from
//!   PTX written below: registers, shared memory of the kernel and of the module, local arrays
//!   on the stack, a device function, recursion whose stack cannot be known, initialised globals,
//!   constant banks), relocatable and linked by `nvlink`, put in fat binaries by `fatbinary`
//!   (compressed and not) in a host object's `.nv_fatbin`: every cubin's lines must be those of
//!   `cuobjdump -res-usage` (CUDA 13.5, from PyPI, installed by `scripts/setup-cuda-tools.sh`);
//! - HIP objects built by clang-19 for gfx90a (AGPRs) and gfx1030, with a compressed bundle: each
//!   kernel's counts must be those `llvm-readelf-19 --notes` shows for the extracted image.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_testutil::fatbin::host_object;
use offkit_testutil::fixtures::{clang_in, shared_dir, write_source};
use offkit_testutil::{llvm_tool, run_ok};

/// Where `scripts/setup-cuda-tools.sh` puts NVIDIA's tools.
const CUDA: &str = "/opt/offkit/cuda-tools";

fn offkit() -> &'static str {
    env!("CARGO_BIN_EXE_offkit")
}

fn tool(name: &str) -> PathBuf {
    let p = Path::new(CUDA).join("bin").join(name);
    assert!(
        p.is_file(),
        "no {} : run scripts/setup-cuda-tools.sh",
        p.display()
    );
    p
}

/// CUDA kernels for clang-19 (no CUDA headers): registers, shared memory, a local array,
/// constant memory and a global array.
const CU: &str = r#"#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
__constant__ float coeffs[64];
__device__ int gdata[100];
__global__ void plain(int *x) { *x = 42; }
__global__ void shared_k(float *x) {
  __shared__ float tile[256];
  int i = __nvvm_read_ptx_sreg_tid_x();
  tile[i] = x[i] * coeffs[i & 63];
  __nvvm_bar_sync(0);
  x[i] = tile[255 - i];
}
__global__ void local_k(float *x, int n) {
  volatile float arr[64];
  for (int i = 0; i < 64; i++) arr[i] = x[i * n];
  float s = 0;
  for (int i = 0; i < 64; i++) s += arr[(i * n) & 63];
  x[0] = s;
}
__global__ void regs_k(double *x, int n) {
  double a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3], a4 = x[4], a5 = x[5];
  for (int i = 0; i < n; i++) { a0 = a0 * a1 + a2; a1 = a1 * a2 + a3; a2 = a2 * a3 + a4;
    a3 = a3 * a4 + a5; a4 = a4 * a5 + a0; a5 = a5 * a0 + a1; }
  x[0] = a0 + a1 + a2 + a3 + a4 + a5;
  gdata[n] = 1;
}
"#;

/// PTX: a device function with a local array called by a kernel with its own, a kernel using
/// module-scope shared memory, constants and a global.
const CALLS_PTX: &str = r#".version 8.0
.target sm_75
.address_size 64
.const .align 4 .b8 cdata[100];
.global .align 4 .b8 gbuf[64];
.shared .align 4 .b8 sh_common[32];
.func (.reg .f32 r) deep(.reg .u64 p, .reg .u32 n)
{
  .local .align 4 .b8 arr[200];
  .reg .u64 %rd<4>;
  .reg .f32 %f<4>;
  mov.u64 %rd1, arr;
  cvta.local.u64 %rd1, %rd1;
  ld.global.f32 %f1, [p];
  mul.wide.u32 %rd2, n, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.f32 [%rd3], %f1;
  ld.f32 %f2, [%rd1+8];
  mov.f32 r, %f2;
  ret;
}
.entry calls_deep(.param .u64 out, .param .u32 n)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  .reg .f32 %f<4>;
  .local .align 8 .b8 mine[24];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [n];
  mov.u64 %rd2, mine;
  st.local.u32 [%rd2], %r1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd3, %rd2, %rd3;
  ld.local.u32 %r2, [%rd3];
  call (%f1), deep, (%rd1, %r2);
  ld.const.f32 %f2, [cdata+4];
  add.f32 %f1, %f1, %f2;
  st.global.f32 [%rd1], %f1;
  ret;
}
.entry uses_common(.param .u64 out)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  st.shared.u32 [sh_common], %r1;
  ld.shared.u32 %r3, [sh_common+4];
  add.u32 %r2, %r1, %r3;
  st.global.u32 [%rd1], %r2;
  st.global.u32 [gbuf], %r2;
  ret;
}
"#;

/// PTX: a recursive device function (the kernel's stack cannot be known statically), an
/// initialised global and constant.
const REC_PTX: &str = r#".version 8.0
.target sm_75
.address_size 64
.global .align 4 .u32 ginit[4] = {1, 2, 3, 4};
.global .align 4 .b8 gz[10];
.const .align 4 .u32 cinit[2] = {5, 6};
.func (.reg .u32 r) rec(.reg .u64 p, .reg .u32 n)
{
  .local .align 4 .b8 arr[64];
  .reg .u64 %rd<4>;
  .reg .u32 %r<6>;
  .reg .pred %p1;
  mov.u64 %rd1, arr;
  cvta.local.u64 %rd1, %rd1;
  ld.global.u32 %r1, [p];
  mul.wide.u32 %rd2, n, 4;
  and.b64 %rd2, %rd2, 63;
  add.u64 %rd3, %rd1, %rd2;
  st.u32 [%rd3], %r1;
  setp.eq.u32 %p1, n, 0;
  @%p1 bra DONE;
  sub.u32 %r2, n, 1;
  call (%r3), rec, (p, %r2);
  ld.u32 %r4, [%rd1+4];
  add.u32 r, %r3, %r4;
  ret;
DONE:
  ld.u32 r, [%rd1+8];
  ret;
}
.entry k(.param .u64 out, .param .u32 n)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [n];
  call (%r3), rec, (%rd1, %r1);
  ld.global.u32 %r2, [ginit+4];
  ld.const.u32 %r1, [cinit+4];
  add.u32 %r3, %r3, %r2;
  add.u32 %r3, %r3, %r1;
  st.global.u32 [%rd1], %r3;
  st.global.u32 [gz], %r3;
  ret;
}
"#;

struct Fx {
    dir: PathBuf,
}

impl Fx {
    fn p(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

fn fx() -> &'static Fx {
    static FX: OnceLock<Fx> = OnceLock::new();
    FX.get_or_init(|| {
        let dir = shared_dir(env!("CARGO_TARGET_TMPDIR"), "resources");
        let d = dir.as_path();
        write_source(d, "k.cu", CU);
        write_source(d, "calls.ptx", CALLS_PTX);
        write_source(d, "rec.ptx", REC_PTX);
        let cuda_path = format!("--cuda-path={CUDA}");
        for sm in ["sm_75", "sm_89"] {
            let out = format!("k-{sm}.cubin");
            clang_in(
                d,
                &[
                    "-x",
                    "cuda",
                    "--cuda-device-only",
                    &format!("--cuda-gpu-arch={sm}"),
                    &cuda_path,
                    "-nocudainc",
                    "-nocudalib",
                    "-O2",
                    "-Wno-unknown-cuda-version",
                    "-c",
                    "k.cu",
                    "-o",
                    &out,
                ],
            );
        }
        let ptxas = tool("ptxas");
        for (src, exe, rel) in [
            ("calls.ptx", "calls.cubin", "calls-rel.cubin"),
            ("rec.ptx", "rec.cubin", "rec-rel.cubin"),
        ] {
            run_ok(&ptxas, ["-arch=sm_75", src, "-o", exe], d);
            run_ok(&ptxas, ["-arch=sm_75", "-c", src, "-o", rel], d);
        }
        run_ok(
            tool("nvlink"),
            [
                "-arch=sm_75",
                "rec-rel.cubin",
                "calls-rel.cubin",
                "-o",
                "linked.cubin",
            ],
            d,
        );
        let images = [
            "--image3=kind=elf,sm=75,file=k-sm_75.cubin",
            "--image3=kind=elf,sm=89,file=k-sm_89.cubin",
            "--image3=kind=ptx,sm=75,file=calls.ptx",
            "--image3=kind=elf,sm=75,file=calls.cubin",
            "--image3=kind=elf,sm=75,file=calls-rel.cubin",
            "--image3=kind=elf,sm=75,file=rec.cubin",
            "--image3=kind=elf,sm=75,file=rec-rel.cubin",
            "--image3=kind=elf,sm=75,file=linked.cubin",
        ];
        for (name, compress) in [("plain", false), ("compressed", true)] {
            let mut args = vec![format!("--create={name}.fatbin")];
            if compress {
                args.push("--compress-all".into());
            }
            args.extend(images.iter().map(|s| s.to_string()));
            run_ok(tool("fatbinary"), &args, d);
            let fatbin = std::fs::read(d.join(format!("{name}.fatbin"))).unwrap();
            std::fs::write(
                d.join(format!("{name}.o")),
                host_object(&[(".nv_fatbin", &fatbin)]),
            )
            .unwrap();
        }
        Fx { dir }
    })
}

/// One cubin's usage: the module-wide line and each function's `(name, line)`.
type Usage = (String, Vec<(String, String)>);

/// The cubins of `cuobjdump -res-usage`, in order; their counts of bound textures, surfaces and
/// samplers (which offkit does not report: sm_75 and later have none) must be 0 and are cut.
fn cuobjdump_usage(text: &str) -> Vec<Usage> {
    let mut out: Vec<Usage> = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "Common:" {
            let common = lines.next().unwrap().trim().to_string();
            out.push((common, Vec::new()));
        } else if let Some(name) = l.strip_prefix(" Function ") {
            let usage = lines.next().unwrap().trim();
            let cut = usage
                .strip_suffix(" TEXTURE:0 SURFACE:0 SAMPLER:0")
                .unwrap_or_else(|| panic!("bound textures in `{usage}`"));
            let name = name.strip_suffix(':').unwrap().to_string();
            out.last_mut().unwrap().1.push((name, cut.to_string()));
        }
    }
    out
}

/// The cubins of `offkit inspect --resources`' code object lines, in order: `      common: …`
/// starts one, then each function is its name (6 spaces in) and its usage (10 spaces in).
fn offkit_usage(text: &str) -> Vec<Usage> {
    let mut out: Vec<Usage> = Vec::new();
    let mut cur: Option<Usage> = None;
    for l in text.lines() {
        if let Some(c) = l.strip_prefix("      common: ") {
            out.extend(cur.take());
            cur = Some((c.to_string(), Vec::new()));
        } else if let (Some(c), Some(u)) = (cur.as_mut(), l.strip_prefix("          ")) {
            c.1.last_mut().unwrap().1 = u.to_string();
        } else if let (Some(c), Some(n)) = (cur.as_mut(), l.strip_prefix("      ")) {
            let name = n.trim_end_matches(" (device function)").to_string();
            c.1.push((name, String::new()));
        } else {
            out.extend(cur.take());
        }
    }
    out.extend(cur);
    out
}

#[test]
fn cubin_resources_match_cuobjdump() {
    let f = fx();
    for name in ["plain", "compressed"] {
        let theirs = run_ok(
            tool("cuobjdump"),
            ["-res-usage", &f.p(&format!("{name}.fatbin"))],
            &f.dir,
        )
        .stdout_str();
        let ours = run_ok(
            offkit(),
            ["inspect", "--resources", &f.p(&format!("{name}.o"))],
            &f.dir,
        )
        .stdout_str();
        let (theirs, ours) = (cuobjdump_usage(&theirs), offkit_usage(&ours));
        assert_eq!(ours, theirs, "{name}");
        assert_eq!(ours.len(), 7, "{name}: seven cubins");
        let all: Vec<&str> = ours
            .iter()
            .flat_map(|(_, f)| f.iter().map(|(_, u)| u.as_str()))
            .collect();
        // What the inputs were built to show.
        for want in ["STACK:UNKNOWN", "SHARED:1024", "SHARED:32", "STACK:224"] {
            assert!(
                all.iter().any(|u| u.contains(want)),
                "{name}: {want} in {all:?}"
            );
        }
        assert!(
            ours.iter().any(|(c, _)| c.contains("CONSTANT[3]:")),
            "{name}"
        );
        assert!(
            ours.iter().any(|(_, f)| f.iter().any(|(n, _)| n == "deep")),
            "{name}"
        );
    }
    // JSON: an unknown stack is null, a device function is no entry.
    let json = run_ok(
        offkit(),
        ["inspect", "--json", &f.p("compressed.o")],
        &f.dir,
    )
    .stdout;
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let functions: Vec<&serde_json::Value> = v["files"][0]["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["code_object"]["resources"]["functions"].as_array())
        .flatten()
        .collect();
    let k = functions.iter().find(|f| f["name"] == "k").unwrap();
    assert!(k["stack"].is_null() && k["entry"] == true, "{k}");
    let deep = functions.iter().find(|f| f["name"] == "deep").unwrap();
    assert_eq!(deep["entry"], false, "{deep}");
    assert_eq!(deep["frame"], 200, "{deep}");
}

#[test]
fn extracted_ptx_is_cuobjdumps() {
    let f = fx();
    for name in ["plain", "compressed"] {
        let out = f.dir.join(format!("ptx-{name}"));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(out.join("theirs")).unwrap();
        run_ok(
            tool("cuobjdump"),
            ["-xptx", "all", &f.p(&format!("{name}.fatbin"))],
            &out.join("theirs"),
        );
        let o = out.join("ours").display().to_string();
        run_ok(
            offkit(),
            [
                "extract",
                "--kind",
                "cuda",
                "-o",
                &o,
                &f.p(&format!("{name}.o")),
            ],
            &f.dir,
        );
        let one = |dir: &Path, ext: &str| {
            let files: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect();
            assert_eq!(files.len(), 1, "{files:?}");
            std::fs::read(&files[0]).unwrap()
        };
        let theirs = one(&out.join("theirs"), "ptx");
        let ours = one(&out.join("ours"), "s");
        assert_eq!(
            ours.last(),
            Some(&b'\n'),
            "{name}: ends at the text's last byte"
        );
        assert!(
            ours == theirs,
            "{name}: offkit's PTX differs from cuobjdump -xptx's"
        );
        // fatbinary keeps the text, less its indentation.
        let text: String = CALLS_PTX
            .lines()
            .map(|l| format!("{}\n", l.trim_start()))
            .collect();
        assert_eq!(ours, text.as_bytes(), "{name}");
    }
}

/// `llvm-readelf --notes`' kernels: per kernel, its 4-space indented scalar keys.
fn readelf_kernels(notes: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut cur: Option<BTreeMap<String, String>> = None;
    let mut flush = |cur: &mut Option<BTreeMap<String, String>>| {
        if let Some(m) = cur.take() {
            out.insert(m[".name"].clone(), m);
        }
    };
    for line in notes.lines() {
        // `  - .key: value` starts a kernel (`  - 1` is an item of `amdhsa.version`).
        let rest = if let Some(r) = line.strip_prefix("  - ").filter(|r| r.starts_with('.')) {
            flush(&mut cur);
            cur = Some(BTreeMap::new());
            r
        } else if let Some(r) = line.strip_prefix("    ").filter(|r| r.starts_with('.')) {
            r
        } else {
            continue;
        };
        if let (Some(m), Some((k, v))) = (cur.as_mut(), rest.split_once(':')) {
            m.insert(k.to_string(), v.trim().to_string());
        }
    }
    flush(&mut cur);
    out
}

#[test]
fn amdgpu_resources_match_llvm_readelf() {
    let dir = shared_dir(env!("CARGO_TARGET_TMPDIR"), "resources-amd");
    let d = dir.as_path();
    write_source(
        d,
        "k.hip",
        r#"#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shm, void *s);
__global__ void lds(float *x) {
  __shared__ float tile[512];
  unsigned i = __builtin_amdgcn_workitem_id_x();
  tile[i] = x[i];
  __builtin_amdgcn_s_barrier();
  x[i] = tile[511 - i];
}
__global__ void scratch(float *x, int n) {
  volatile float arr[100];
  for (int i = 0; i < 100; i++) arr[i] = x[i * n];
  float s = 0;
  for (int i = 0; i < 100; i++) s += arr[(i * n) % 100];
  x[0] = s;
}
__global__ void agprs(int *x) {
#if defined(__gfx90a__)
  asm volatile("v_accvgpr_write_b32 a9, 0" ::: "a9");
#endif
  *x = 1;
}
"#,
    );
    clang_in(
        d,
        &[
            "-x",
            "hip",
            "--offload-arch=gfx90a,gfx1030",
            "-mcode-object-version=6",
            "-nogpulib",
            "-nogpuinc",
            "-O2",
            "--offload-compress",
            "-c",
            "k.hip",
            "-o",
            "k.o",
        ],
    );
    let text = run_ok(offkit(), ["inspect", "--resources", "k.o"], d).stdout_str();
    let _ = std::fs::remove_dir_all(d.join("x"));
    run_ok(offkit(), ["extract", "--kind", "hip", "-o", "x", "k.o"], d);
    // Each image's block of the text: the image line ends with its target ID's kernels.
    let mut seen = 0;
    for arch in ["gfx90a", "gfx1030"] {
        let file = std::fs::read_dir(d.join("x"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(&format!("-{arch}.o")))
            .unwrap();
        let notes = run_ok(
            llvm_tool("llvm-readelf"),
            ["--notes", &file.display().to_string()],
            d,
        )
        .stdout_str();
        let theirs = readelf_kernels(&notes);
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| {
                !l.ends_with(&format!(
                    "--{arch}: header target ID {arch}; code object v6; 3 kernels"
                ))
            })
            .skip(1)
            .take(6)
            .collect();
        assert_eq!(block.len(), 6, "{arch}:\n{text}");
        for pair in block.chunks(2) {
            let name = pair[0].trim();
            let words: BTreeMap<&str, &str> = pair[1]
                .split_whitespace()
                .map(|w| w.split_once(':').unwrap())
                .collect();
            let k = &theirs[name];
            for (ours, key) in [
                ("VGPR", ".vgpr_count"),
                ("SGPR", ".sgpr_count"),
                ("AGPR", ".agpr_count"),
                ("VGPR_SPILL", ".vgpr_spill_count"),
                ("SGPR_SPILL", ".sgpr_spill_count"),
                ("LDS", ".group_segment_fixed_size"),
                ("SCRATCH", ".private_segment_fixed_size"),
                ("KERNARG", ".kernarg_segment_size"),
                ("WAVEFRONT", ".wavefront_size"),
                ("MAX_FLAT_WORKGROUP", ".max_flat_workgroup_size"),
            ] {
                assert_eq!(
                    words.get(ours).copied(),
                    k.get(key).map(String::as_str),
                    "{arch} {name} {ours}"
                );
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 6);
    assert!(text.contains("AGPR:10"), "{text}");
}
