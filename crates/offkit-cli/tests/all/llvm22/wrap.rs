//! LLVM 22's registration: the `llvm-offload-wrapper` face against LLVM 22's tool (status,
//! stdout, stderr and the bitcode it writes, byte for byte) on images made by clang-22 and
//! its linker wrapper, and `offkit wrap --llvm 22` against the linker wrapper's object.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::llvm22_wrap::{self as w22, cuda_options, device_options, inner};

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

/// Images made by clang-22 and LLVM 22's linker wrapper, under the names the cases use:
/// `omp.so` (a linked host-offload image), `omp.bin` (the same in an offload binary, as
/// `llvm-offload-binary` writes it), `gpu.so` (a gfx90a OpenMP image), `hip.hipfb` (an offload
/// bundle of two GPUs), `cuda.fatbin`.
fn inputs() -> Scratch {
    let s = Scratch::new();
    let opts = device_options();
    let omp = w22::openmp_x86_64(&s);
    let l = w22::linker_wrapper(
        &s,
        "omp",
        "x86_64-pc-linux-gnu",
        "openmp",
        &[opts.clone(), vec![inner(&s, &omp)]].concat(),
    );
    s.write("omp.so", l.kept("a.out.x86_64..img"));
    llvm22::Run::new(
        Side::Llvm,
        "llvm-offload-binary",
        [
            "-o",
            "omp.bin",
            "--image=file=omp.so,triple=x86_64-pc-linux-gnu,arch=,kind=openmp",
        ],
        &s.inner(),
    )
    .ok();
    let gpu = w22::openmp_amdgcn(&s);
    let l = w22::linker_wrapper(
        &s,
        "gpu",
        "x86_64-pc-linux-gnu",
        "openmp",
        &[opts.clone(), vec![inner(&s, &gpu)]].concat(),
    );
    s.write("gpu.so", l.kept("a.out.amdgcn.gfx90a.img"));
    let hip = w22::hip(&s, &["gfx90a", "gfx1030"]);
    let l = w22::linker_wrapper(
        &s,
        "hip",
        "x86_64-pc-linux-gnu",
        "hip",
        &[opts.clone(), vec![inner(&s, &hip)]].concat(),
    );
    s.write("hip.hipfb", l.kept("a.out.hipfb"));
    let cuda = w22::cuda(&s);
    let l = w22::linker_wrapper(
        &s,
        "cuda",
        "x86_64-pc-linux-gnu",
        "cuda",
        &[opts, cuda_options(&s), vec![inner(&s, &cuda)]].concat(),
    );
    s.write("cuda.fatbin", l.kept("a.out.fatbin"));
    s
}

/// Runs `llvm-offload-wrapper <args>` as LLVM 22 and as offkit, each in its own copy of
/// `inputs`, and checks status, stdout, stderr and the files `out.bc` and `-`.
#[track_caller]
fn same(inputs: &Scratch, args: &[&str], stdin: Option<&[u8]>) {
    let run = |side| {
        let s = Scratch::new();
        inputs.copy_to(&s);
        let mut r = Run::new(side, "llvm-offload-wrapper", args, &s.inner());
        if let Some(b) = stdin {
            r = r.stdin(b);
        }
        let out = r.output();
        let files = [s.read("out.bc"), s.read("-")];
        // A response file's message names it by its absolute path.
        let stderr = out
            .stderr_str()
            .replace(&s.inner().display().to_string(), "%tmp");
        ((out.code, out.stdout_str(), stderr), files)
    };
    let (l, lf) = run(Side::Llvm);
    let (o, of) = run(Side::Offkit);
    let what = format!("llvm-offload-wrapper {}", args.join(" "));
    assert_eq!(o, l, "{what}: status, stdout, stderr (offkit, LLVM)");
    for (name, (ours, theirs)) in ["out.bc", "-"].iter().zip(of.iter().zip(&lf)) {
        assert!(
            ours == theirs,
            "{what}: {name} differs ({:?} vs {:?} bytes)",
            ours.as_ref().map(Vec::len),
            theirs.as_ref().map(Vec::len)
        );
    }
}

/// Bitcode for every kind, image form and kind of triple: the same bytes as LLVM 22's.
#[test]
fn bitcode_byte_identical_to_llvm22() {
    shims();
    let s = inputs();
    let cases: &[&[&str]] = &[
        &["--kind=openmp", "omp.so", "-o", "out.bc"],
        &[
            "--kind=openmp",
            "omp.bin",
            "gpu.so",
            "omp.so",
            "-o",
            "out.bc",
        ],
        &[
            "--kind",
            "openmp",
            "omp.bin",
            "-o",
            "out.bc",
            "--triple=aarch64-unknown-linux-gnu",
        ],
        &[
            "--kind=openmp",
            "gpu.so",
            "-o",
            "out.bc",
            "--triple=x86_64-pc-windows-msvc",
        ],
        &[
            "--kind=openmp",
            "gpu.so",
            "-o",
            "out.bc",
            "--triple=arm64-apple-macosx",
        ],
        &["--kind=openmp", "gpu.so", "-o", "out.bc", "--triple="],
        &["--kind=hip", "hip.hipfb", "-o", "out.bc"],
        &[
            "--kind=hip",
            "hip.hipfb",
            "-o",
            "out.bc",
            "--triple=aarch64-linux-gnu",
        ],
        &[
            "--kind=hip",
            "gpu.so",
            "-o",
            "out.bc",
            "--triple=x86_64-w64-windows-gnu",
        ],
        &["--kind=cuda", "cuda.fatbin", "-o", "out.bc"],
        &[
            "--kind=cuda",
            "cuda.fatbin",
            "-o",
            "out.bc",
            "--triple=x86_64-apple-darwin",
        ],
        &[
            "--kind=cuda",
            "cuda.fatbin",
            "-o",
            "out.bc",
            "--triple=x86_64-pc-windows-msvc",
        ],
        &[
            "--kind=cuda",
            "cuda.fatbin",
            "-o",
            "out.bc",
            "--triple=wasm32-unknown-unknown",
        ],
        &[
            "--kind=hip",
            "--kind=cuda",
            "cuda.fatbin",
            "-o",
            "out.bc",
            "-W",
        ],
        // `-o -` is a file named `-`.
        &["--kind=hip", "hip.hipfb", "-o", "-"],
    ];
    for args in cases {
        same(&s, args, None);
    }
    let image = s.read("omp.bin").expect("omp.bin");
    same(&s, &["--kind=openmp", "-", "-o", "out.bc"], Some(&image));
}

/// Help, version and every diagnostic of the command line and of the run.
#[test]
fn texts_and_errors_as_llvm22() {
    shims();
    let s = inputs();
    let cases: &[&[&str]] = &[
        &["--help"],
        &["--help-hidden"],
        &["--help-list"],
        &["--help-list-hidden"],
        &["--version"],
        &["--kind=zz", "--help"],
        &["-h"],
        &["-h", "--kind=hip", "hip.hipfb"],
        &[],
        &["omp.so"],
        &["--kind=openmp"],
        &["--kind=foo", "omp.so"],
        &[
            "--kind=openmp",
            "omp.so",
            "-o",
            "out.bc",
            "--bogus",
            "--kind=zz",
        ],
        &["--kind=yy", "omp.so", "--kind=zz", "--trip", "-o", "out.bc"],
        &["--kin=hip"],
        &["--keld"],
        &["--kind=openmp", "-o"],
        &["--kind=openmp", "missing.so", "-o", "out.bc"],
        &["--kind=openmp", "omp.so"],
        &["--kind=openmp", "omp.so", "-o", "nodir/out.bc"],
        &["--kind=openmp", "omp.so", "-o", "omp"],
        &["--kind=cuda", "cuda.fatbin", "cuda.fatbin", "-o", "out.bc"],
        &["--kind=hip", "missing", "hip.hipfb", "-o", "out.bc"],
        &["@missing-dir/", "--kind=hip"],
    ];
    std::fs::create_dir_all(s.join("missing-dir")).expect("mkdir");
    for args in cases {
        same(&s, args, None);
    }
}

/// `offkit wrap --llvm 22` writes the linker wrapper's object; `--llvm 19` another one.
#[test]
fn offkit_wrap_llvm22() {
    let s = Scratch::new();
    let hip = w22::hip(&s, &["gfx90a"]);
    let l = w22::linker_wrapper(
        &s,
        "hip",
        "aarch64-unknown-linux-gnu",
        "hip",
        &[device_options(), vec![inner(&s, &hip)]].concat(),
    );
    let image = s.join("hip/a.out.amdgcn.gfx90a.img");
    let out = s.join("ours.o");
    let wrap = |llvm: &str| {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_offkit"))
            .args(["wrap", "--llvm", llvm, "--kind", "hip", "--host-triple"])
            .arg("aarch64-unknown-linux-gnu")
            .arg("--image")
            .arg(format!(
                "file={},triple=amdgcn-amd-amdhsa,arch=gfx90a",
                image.display()
            ))
            .arg("-o")
            .arg(&out)
            .status()
            .expect("run offkit");
        assert!(status.success());
        std::fs::read(&out).expect("read object")
    };
    assert!(wrap("22") == l.object, "offkit wrap --llvm 22 differs");
    assert!(wrap("19") != l.object);
}
