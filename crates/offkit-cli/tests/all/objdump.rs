//! `llvm-objdump --offloading` as LLVM 19 (offkit's face, linked by `offkit shims
//! --with-objdump`, against Debian's `llvm-objdump-19`): the listing of clang's objects,
//! executables and archives (OpenMP, HIP on the new and the old driver, `-fgpu-rdc`, compressed
//! bundles), COFF, Mach-O, raw offload binaries, bitcode and files that are none of those, and
//! the errors — the same exit status, stdout, stderr and files. The same cases run against LLVM
//! 22 in `llvm22::objdump`, on clang-22's inputs and on these.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use object::read::elf::FileHeader;
use object::{elf, LittleEndian as LE};
use offkit_testutil::llvm22_packager::Pair;
use offkit_testutil::packager::Twin;

/// HIP kernels, a device variable and a host `main` (no HIP headers: `-nogpuinc`).
const HIP: &str = r#"#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef struct { unsigned x, y, z; } dim3;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shm, void *stream);
__global__ void k(int *x) { *x = 42; }
__global__ void scale(float *x, float a) { x[0] *= a; }
__device__ int dv;
int main(void) { return 0; }
"#;

/// An OpenMP target region.
const OPENMP: &str = "int f(int x) {\n  int y = 0;\n#pragma omp target map(tofrom : y)\n  \
                      y = x + 1;\n  return y;\n}\n";

/// The HIP runtime functions the old driver's registration code calls (the programs never run).
const HIP_RUNTIME: &str = "void **__hipRegisterFatBinary(const void *d) { return 0; }\n\
    void __hipUnregisterFatBinary(void **h) {}\nvoid __hipRegisterFunction(void) {}\n\
    void __hipRegisterVar(void) {}\nint __hipPopCallConfiguration(void) { return 0; }\n\
    int hipLaunchKernel(void) { return 0; }\n";

/// The inputs [`build_inputs_in`] makes that every case list reads.
pub(crate) const INPUTS: &[&str] = &[
    "hip-new-rdc.o",
    "hip-new.o",
    "hip-old.o",
    "hip-old-rdc.o",
    "hip-oldz.o",
    "omp.o",
    "omp-amd.o",
    "hip-old.exe",
    "hipz.exe",
    "libk.a",
    "libthin.a",
    "k.bc",
    "dev.bin",
    "dev-short.bin",
    "dev-tail.bin",
    "win.obj",
    "win-off.obj",
    "win-fb.obj",
    "mac.o",
    "bad-offloading.o",
    "bad-section.o",
    "notes.txt",
    "empty",
];

/// Makes, in `d`, with a release's `clang` (`cc`) and its other tools (`tool(name, args)`):
/// HIP objects of the new driver (`hip-new-rdc.o`: `.llvm.offloading`; `hip-new.o`: a bundle in
/// `.hip_fatbin`) and of the old one (`hip-old.o`, `hip-old-rdc.o` with bundle sections,
/// `hip-oldz.o` compressed), OpenMP objects (`omp.o` for x86_64, `omp-amd.o` for gfx90a),
/// programs (`hip-old.exe`; `hipz.exe`, a compressed bundle in a program large enough to
/// hold the bundle's decompressed offsets), archives (`libk.a` with a text member,
/// `libthin.a`), bitcode, the raw offload binaries of `hip-new-rdc.o` (`dev.bin`; cut short;
/// followed by garbage), COFF objects (plain; with `.llvm.offloading`; with a bundle), a
/// Mach-O object, ELF objects whose offloading section (`bad-offloading.o`) or another section
/// (`bad-section.o`) lies past the end, a text file and an empty one.
pub(crate) fn build_inputs_in(d: &Path, cc: &dyn Fn(&[&str]), tool: &dyn Fn(&str, &[&str])) {
    std::fs::write(d.join("k.hip"), HIP).unwrap();
    std::fs::write(d.join("omp.c"), OPENMP).unwrap();
    std::fs::write(d.join("main.c"), "int main(void) { return 0; }\n").unwrap();
    std::fs::write(d.join("big.c"), "char pad[1 << 16] = {1};\n").unwrap();
    std::fs::write(d.join("rt.c"), HIP_RUNTIME).unwrap();
    let hip = [
        "-x",
        "hip",
        "--offload-arch=gfx90a",
        "--offload-arch=gfx1030",
        "-nogpulib",
        "-nogpuinc",
        "-c",
        "k.hip",
    ];
    let hip_to = |extra: &[&str], out: &str| cc(&[&hip[..], extra, &["-o", out]].concat());
    hip_to(&["--offload-new-driver", "-fgpu-rdc"], "hip-new-rdc.o");
    hip_to(&["--offload-new-driver"], "hip-new.o");
    hip_to(&["--no-offload-new-driver"], "hip-old.o");
    hip_to(&["--no-offload-new-driver", "-fgpu-rdc"], "hip-old-rdc.o");
    hip_to(
        &["--no-offload-new-driver", "--offload-compress"],
        "hip-oldz.o",
    );
    cc(&[
        "-fopenmp",
        "-fopenmp-targets=x86_64-pc-linux-gnu",
        "-c",
        "omp.c",
        "-o",
        "omp.o",
    ]);
    cc(&[
        "-fopenmp",
        "--offload-arch=gfx90a",
        "-nogpulib",
        "-c",
        "omp.c",
        "-o",
        "omp-amd.o",
    ]);
    cc(&["-shared", "-fPIC", "rt.c", "-o", "libamdhip64.so"]);
    cc(&["-c", "big.c", "-o", "big.o"]);
    cc(&["hip-old.o", "-L.", "-lamdhip64", "-o", "hip-old.exe"]);
    cc(&["hip-oldz.o", "big.o", "-L.", "-lamdhip64", "-o", "hipz.exe"]);
    std::fs::write(d.join("notes.txt"), "not an object\n").unwrap();
    std::fs::write(d.join("empty"), "").unwrap();
    tool(
        "llvm-ar",
        &[
            "rcs",
            "libk.a",
            "notes.txt",
            "omp.o",
            "hip-old.o",
            "hip-new.o",
        ],
    );
    tool("llvm-ar", &["rcsT", "libthin.a", "omp.o", "hip-old.o"]);
    cc(&["-c", "-emit-llvm", "main.c", "-o", "k.bc"]);
    let dump = |obj: &str, section: &str, out: &str| {
        tool(
            "llvm-objcopy",
            &[&format!("--dump-section={section}={out}"), obj, "scratch.o"],
        )
    };
    dump("hip-new-rdc.o", ".llvm.offloading", "dev.bin");
    dump("hip-old.o", ".hip_fatbin", "fatbin.bin");
    let dev = std::fs::read(d.join("dev.bin")).unwrap();
    // The first binary's size claims more than the file has; a good binary, then garbage.
    let mut short = dev.clone();
    short[8..16].copy_from_slice(&(dev.len() as u64 * 2).to_le_bytes());
    std::fs::write(d.join("dev-short.bin"), short).unwrap();
    std::fs::write(d.join("dev-tail.bin"), [&dev[..], &[7; 80]].concat()).unwrap();
    cc(&[
        "--target=x86_64-pc-windows-msvc",
        "-c",
        "main.c",
        "-o",
        "win.obj",
    ]);
    let add = |section: &str, file: &str, out: &str| {
        tool(
            "llvm-objcopy",
            &[
                "--add-section",
                &format!("{section}={file}"),
                "win.obj",
                out,
            ],
        )
    };
    add(".llvm.offloading", "dev.bin", "win-off.obj");
    add(".hip_fatbin", "fatbin.bin", "win-fb.obj");
    cc(&[
        "--target=x86_64-apple-macos11",
        "-c",
        "main.c",
        "-o",
        "mac.o",
    ]);
    let past_end = |from: &str, section: &str, to: &str| {
        let mut data = std::fs::read(d.join(from)).unwrap();
        let at = section_header(&data, section);
        let end = data.len() as u64 + 0x1000;
        data[at + 24..at + 32].copy_from_slice(&end.to_le_bytes());
        std::fs::write(d.join(to), data).unwrap();
    };
    past_end("hip-new-rdc.o", ".llvm.offloading", "bad-offloading.o");
    past_end("omp.o", ".comment", "bad-section.o");
}

/// The file offset of the section header of `name` in a 64-bit little-endian ELF file.
fn section_header(data: &[u8], name: &str) -> usize {
    let h = elf::FileHeader64::<LE>::parse(data).unwrap();
    let sections = h.sections(LE, data).unwrap();
    let (i, _) = sections
        .iter()
        .enumerate()
        .find(|(_, s)| sections.section_name(LE, s).unwrap() == name.as_bytes())
        .unwrap_or_else(|| panic!("no section {name}"));
    h.e_shoff(LE) as usize + i * 64
}

/// The command lines every case list runs: each input alone, several in a row (one missing,
/// one Mach-O), `--arch-name=`, none (`a.out`), a directory, options after the inputs.
pub(crate) fn cases(inputs: &[&str]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = inputs
        .iter()
        .map(|i| vec!["--offloading".into(), i.to_string()])
        .collect();
    let more: &[&[&str]] = &[
        &["--offloading", "omp.o", "missing.o", "omp.o"],
        &["--offloading", "mac.o", "omp.o", "hip-new-rdc.o"],
        &[
            "--offloading",
            "--arch-name=gfx90a",
            "hip-old.o",
            "hipz.exe",
        ],
        &["--offloading", "--arch-name=", "hip-new.o"],
        &["--offloading"],
        &["--offloading", "."],
        &["hip-old.o", "--offloading", "--offloading", "libk.a"],
    ];
    out.extend(
        more.iter()
            .map(|c| c.iter().map(|s| s.to_string()).collect()),
    );
    out
}

/// Runs [`cases`] of `inputs` (files of `built`, each put in both directories of `t`), and
/// asserts both tools agree on each.
pub(crate) fn listing_cases_on(t: &impl Pair, built: &Path, inputs: &[&str]) {
    for i in inputs
        .iter()
        .chain(&["omp.o", "hip-old.o", "mac.o", "hip-new.o"])
    {
        t.put_file(i, &built.join(i));
    }
    for args in cases(inputs) {
        t.assert_same(&args, None, "objdump");
    }
}

/// clang-19's inputs, made once per test binary.
pub(crate) fn built19() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = offkit_testutil::fixtures::shared_dir(env!("CARGO_TARGET_TMPDIR"), "objdump19");
        let clang = offkit_testutil::llvm_tool("clang");
        build_inputs_in(
            &d,
            &|args: &[&str]| {
                offkit_testutil::run_ok(&clang, args, &d);
            },
            &|name: &str, args: &[&str]| {
                offkit_testutil::run_ok(offkit_testutil::llvm_tool(name), args, &d);
            },
        );
        d
    })
}

fn twin() -> Twin {
    Twin::new("llvm-objdump", Path::new(env!("CARGO_BIN_EXE_offkit")))
}

#[test]
fn listings_of_clang_19_inputs() {
    listing_cases_on(&twin(), built19(), INPUTS);
}

/// A version-1 offload binary written with LLVM 22's numbering (HIP is 4): LLVM 19 names its
/// producer `none`, and so does offkit's LLVM 19 face; a binary of LLVM 19's HIP (3) is `hip`.
#[test]
fn hip_of_llvm_22_is_no_kind_to_llvm_19() {
    use offkit_format::binary::{write_v1, ImageSpec};
    use offkit_format::kind::{ImageKind, OffloadKind};
    use offkit_llvm::LlvmVersion;
    let t = twin();
    let spec = ImageSpec {
        image_kind: ImageKind::Bitcode,
        offload_kind: OffloadKind::Hip,
        flags: 0,
        strings: vec![(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
    };
    for (v, producer) in [(LlvmVersion::V22, "none"), (LlvmVersion::V19, "hip")] {
        t.put("k.bin", &write_v1(&spec, b"BC\xc0\xde", v).unwrap());
        let out = t.assert_same(&["--offloading".into(), "k.bin".into()], None, "kinds");
        let text = out.stdout_str();
        assert!(
            text.contains(&format!("producer        {producer}\n")),
            "{text}"
        );
    }
}

/// Options the face does not have are refused, with LLVM's tool named; `offkit shims` links
/// `llvm-objdump` only with `--with-objdump`.
#[test]
fn other_options_are_refused_and_shims_leave_it_out() {
    let exe = Path::new(env!("CARGO_BIN_EXE_offkit"));
    let t = twin();
    t.put_file("omp.o", &built19().join("omp.o"));
    for args in [
        &["-d", "omp.o"][..],
        &["--offloading", "-h", "omp.o"],
        &["omp.o"],
        &[],
    ] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (_, ours) = t.run(&args, None);
        assert_eq!(ours.code, Some(1), "{args:?}");
        let err = ours.stderr_str();
        assert!(
            err.starts_with("llvm-objdump: error: offkit's llvm-objdump does --offloading only")
                && err.contains("/usr/lib/llvm-19/bin/llvm-objdump"),
            "{args:?}: {err}"
        );
        assert!(ours.stdout.is_empty());
    }
    let dir = tempfile::tempdir().unwrap();
    let shims = dir.path().join("s");
    let s = shims.to_str().unwrap();
    offkit_testutil::run_ok(exe, ["shims", s], dir.path());
    assert!(!shims.join("llvm-objdump").exists());
    assert!(shims.join("clang-offload-bundler").exists());
    offkit_testutil::run_ok(exe, ["shims", "--with-objdump", s], dir.path());
    assert!(shims.join("llvm-objdump").exists());
    // Made again without it, the link is taken away.
    offkit_testutil::run_ok(exe, ["shims", "--llvm", "22", s], dir.path());
    assert!(!shims.join("llvm-objdump").exists());
}
