//! LTO of bitcode device code as LLVM 19's: LLVM 19 links a group's bitcode in process,
//! offkit has `llvm-lto2` do it with the resolutions LLVM 19 computes. With `--save-temps` both
//! tools keep the LTO output and the linked image under the same names; they are the same
//! bytes for OpenMP (x86_64, and gfx90a with the device runtime pulled from its archive), HIP
//! (gfx90a, with the optimized module) and CUDA (sm_70 PTX); with
//! `--clang-backend`, the optimized module clang is given.

use offkit_testutil::offload::{compile, Kind};
use offkit_testutil::packager::run_as;

#[test]
fn lto_outputs_are_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let host = "x86_64-pc-linux-gnu";
    let cuda = offkit_testutil::stub_runtime::fake_cuda(dir);
    let cases: [(Kind, &[&str]); 3] = [
        (
            Kind::OpenMp,
            &[
                "p.x86_64.native.img",
                "p.x86_64-pc-linux-gnu..s",
                "p.amdgcn.gfx90a.img",
                "p.amdgcn-amd-amdhsa.gfx90a.s",
            ],
        ),
        (
            Kind::Hip,
            &[
                "p.amdgcn.gfx90a.img",
                "p.amdgcn-amd-amdhsa.gfx90a.s",
                // (`.postlink.bc` keeps some local value names LLVM 19 drops: docs/linking.md.)
                "p.amdgcn-amd-amdhsa.gfx90a.postopt.bc",
            ],
        ),
        (Kind::Cuda, &["p.nvptx64-nvidia-cuda.sm_70.s"]),
    ];
    for (kind, files) in cases {
        let k = kind.name();
        let obj = compile(dir, k, kind, host, true, &[]);
        for (who, tool) in [
            ("llvm", offkit_testutil::link::llvm_wrapper()),
            ("ours", super::offkit()),
        ] {
            let work = dir.join(format!("{k}-{who}"));
            std::fs::create_dir(&work).unwrap();
            let args = [
                format!("--host-triple={host}"),
                "--save-temps".into(),
                "--linker-path=/bin/true".into(),
                format!("--cuda-path={}", cuda.display()),
                "-o".into(),
                "p".into(),
                obj.display().to_string(),
                format!("-L{}", offkit_testutil::llvm_lib().display()),
                "-lomptarget.devicertl".into(),
            ];
            let o = run_as(&tool, super::ARGV0, &args, &work, None);
            // The CUDA device link stops at ptxas (clang looks for it on PATH); the PTX is
            // written before.
            if kind != Kind::Cuda {
                assert_eq!(o.code, Some(0), "{k} {who}: {}", o.stderr_str());
            }
        }
        for f in files {
            let read = |who: &str| {
                std::fs::read(dir.join(format!("{k}-{who}")).join(f))
                    .unwrap_or_else(|e| panic!("{k} {who}: {f}: {e}"))
            };
            assert_eq!(read("ours"), read("llvm"), "{k}: {f}");
        }
    }
}

/// Links `kind`'s LTO object with `option --save-temps` by LLVM 19's tool and by offkit, each
/// in its own directory; returns `(directory, output)` for both (LLVM's first).
fn both_save_temps(
    dir: &std::path::Path,
    kind: Kind,
    option: &str,
) -> Vec<(std::path::PathBuf, offkit_testutil::Output)> {
    let obj = compile(dir, kind.name(), kind, "x86_64-pc-linux-gnu", true, &[]);
    let mut out = Vec::new();
    for (who, tool) in [
        ("llvm", offkit_testutil::link::llvm_wrapper()),
        ("ours", super::offkit()),
    ] {
        let work = dir.join(who);
        std::fs::create_dir(&work).unwrap();
        let args = [
            "--host-triple=x86_64-pc-linux-gnu".to_string(),
            option.into(),
            "--save-temps".into(),
            "--wrapper-verbose".into(),
            "--linker-path=/bin/true".into(),
            "-o".into(),
            "p".into(),
            obj.display().to_string(),
        ];
        let o = run_as(&tool, super::ARGV0, &args, &work, None);
        out.push((work, o));
    }
    out
}

#[test]
fn clang_backend_module_is_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    // (clang then fails for both: the module needs the ROCm device libraries.)
    let runs = both_save_temps(tmp.path(), Kind::Hip, "--clang-backend");
    let module = |(work, o): &(std::path::PathBuf, offkit_testutil::Output)| {
        let first = o.stderr_str().lines().next().unwrap_or("").to_string();
        assert!(first.contains(" p-jit-amdgcn-amd-amdhsa.bc "), "{first}");
        (
            first,
            std::fs::read(work.join("p-jit-amdgcn-amd-amdhsa.bc")).unwrap(),
        )
    };
    assert_eq!(module(&runs[1]), module(&runs[0]));
}

/// `--embed-bitcode`: no device link; the optimized module (and, for a group without bitcode,
/// its object) is embedded as bitcode. The registration object is LLVM 19's.
#[test]
fn embedded_bitcode_is_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = both_save_temps(tmp.path(), Kind::OpenMp, "--embed-bitcode");
    let object = |(work, o): &(std::path::PathBuf, offkit_testutil::Output)| {
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        std::fs::read(work.join("p.openmp.image.wrapper.o")).unwrap()
    };
    assert_eq!(object(&runs[1]), object(&runs[0]));
}
