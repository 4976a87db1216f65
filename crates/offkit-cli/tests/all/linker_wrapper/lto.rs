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
                "-L/usr/lib/llvm-19/lib".into(),
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

#[test]
fn clang_backend_module_is_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let obj = compile(dir, "hip", Kind::Hip, "x86_64-pc-linux-gnu", true, &[]);
    let mut modules = Vec::new();
    for (who, tool) in [
        ("llvm", offkit_testutil::link::llvm_wrapper()),
        ("ours", super::offkit()),
    ] {
        let work = dir.join(who);
        std::fs::create_dir(&work).unwrap();
        let args = [
            "--host-triple=x86_64-pc-linux-gnu".to_string(),
            "--clang-backend".into(),
            "--save-temps".into(),
            "--wrapper-verbose".into(),
            "--linker-path=/bin/true".into(),
            "-o".into(),
            "p".into(),
            obj.display().to_string(),
        ];
        // (clang then fails for both: the module needs the ROCm device libraries.)
        let o = run_as(&tool, super::ARGV0, &args, &work, None);
        let first = o.stderr_str().lines().next().unwrap_or("").to_string();
        assert!(
            first.contains(" p-jit-amdgcn-amd-amdhsa.bc "),
            "{who}: {first}"
        );
        modules.push((
            first,
            std::fs::read(work.join("p-jit-amdgcn-amd-amdhsa.bc")).unwrap(),
        ));
    }
    assert_eq!(modules[1], modules[0]);
}

/// `--embed-bitcode`: no device link; the optimized module (and, for a group without bitcode,
/// its object) is embedded as bitcode. The registration object is LLVM 19's.
#[test]
fn embedded_bitcode_is_llvm_19s() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let obj = compile(dir, "omp", Kind::OpenMp, "x86_64-pc-linux-gnu", true, &[]);
    let mut objects = Vec::new();
    for (who, tool) in [
        ("llvm", offkit_testutil::link::llvm_wrapper()),
        ("ours", super::offkit()),
    ] {
        let work = dir.join(who);
        std::fs::create_dir(&work).unwrap();
        let args = [
            "--host-triple=x86_64-pc-linux-gnu".to_string(),
            "--embed-bitcode".into(),
            "--save-temps".into(),
            "--linker-path=/bin/true".into(),
            "-o".into(),
            "p".into(),
            obj.display().to_string(),
        ];
        let o = run_as(&tool, super::ARGV0, &args, &work, None);
        assert_eq!(o.code, Some(0), "{who}: {}", o.stderr_str());
        objects.push(std::fs::read(work.join("p.openmp.image.wrapper.o")).unwrap());
    }
    assert_eq!(objects[1], objects[0]);
}
