//! The whole pipeline without LLVM's offload tools or runtime: the linker-wrapper tests' OpenMP
//! programs compiled and linked by clang-19 through offkit's shims (`offkit shims DIR`, then
//! `clang-19 -B DIR`: offkit is the packager and the linker wrapper) and run on offkit's
//! `libomptarget.so.19.1` (offkit-rt's cdylib, built as a dependency of the CLI). Each program
//! prints `initial=0` only when its target regions ran on the offload device.
use std::path::{Path, PathBuf};
use std::process::Command;

use offkit_testutil::link::{self as tl, Program};
use offkit_testutil::{llvm_tool, run_ok};

const X86: &str = "-fopenmp-targets=x86_64-pc-linux-gnu";

/// The directory holding offkit's runtime as `libomptarget.so.19.1`: cargo writes the cdylib
/// into `target/<profile>/deps`, beside this test's executable.
fn rt_dir(work: &Path) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let so = [
        deps.join("libomptarget.so"),
        deps.join("../libomptarget.so"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .expect("cargo builds offkit-rt's cdylib (libomptarget.so) as a dependency of offkit-cli");
    let dir = work.join("rt");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(so, dir.join("libomptarget.so.19.1")).unwrap();
    dir
}

fn clang(work: &Path, shims: &Path, args: &[String]) -> String {
    let mut a: Vec<String> = vec!["-B".into(), shims.display().to_string(), "-fopenmp".into()];
    a.push(X86.into());
    a.extend(args.iter().cloned());
    let o = run_ok(llvm_tool("clang"), &a, work);
    o.stderr_str().to_string()
}

fn build(work: &Path, shims: &Path, p: &Program) -> PathBuf {
    let mut objs = Vec::new();
    for (name, src) in p.sources {
        let s = work.join(name);
        std::fs::write(&s, src).unwrap();
        let o = s.with_extension("o");
        let mut a = Vec::new();
        if name.ends_with(".cpp") {
            a.extend(["-x".to_owned(), "c++".to_owned()]);
        }
        a.extend([
            "-c".into(),
            s.display().to_string(),
            "-o".into(),
            o.display().to_string(),
        ]);
        // The compile uses offkit's packager: clang's job list names the shim.
        let jobs = clang(work, shims, &[a.clone(), vec!["-###".into()]].concat());
        assert!(
            jobs.contains(&format!("\"{}/clang-offload-packager\"", shims.display())),
            "{jobs}"
        );
        clang(work, shims, &a);
        objs.push(o.display().to_string());
    }
    let exe = work.join(p.name);
    let mut a = objs;
    if p.sources.iter().any(|(n, _)| n.ends_with(".cpp")) {
        a.push("-lstdc++".into());
    }
    a.extend(["-o".into(), exe.display().to_string()]);
    let jobs = clang(work, shims, &[a.clone(), vec!["-###".into()]].concat());
    assert!(
        jobs.contains(&format!("\"{}/clang-linker-wrapper\"", shims.display())),
        "{jobs}"
    );
    clang(work, shims, &a);
    exe
}

#[test]
fn linker_wrapper_programs_run_on_offkits_runtime_built_by_offkits_tools() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let shims = tl::shims(Path::new(env!("CARGO_BIN_EXE_offkit")), &work.join("shims"));
    let rt = rt_dir(work);
    for p in [tl::TARGET_REGION, tl::DECLARE_TARGET, tl::CXX_CTORS] {
        let exe = build(work, &shims, &p);
        // offkit's runtime first; libomp (not an offload library) from LLVM's directory.
        let out = Command::new(&exe)
            .current_dir(work)
            .env(
                "LD_LIBRARY_PATH",
                format!("{}:{}", rt.display(), offkit_testutil::llvm_lib().display()),
            )
            .env("LD_DEBUG", "libs")
            .env("OMP_TARGET_OFFLOAD", "mandatory")
            .env_remove("LIBOMPTARGET_INFO")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", p.name);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            p.expected,
            "{}",
            p.name
        );
        // The loader took offkit's runtime, never LLVM's.
        let ours = format!("{}/libomptarget.so.19.1", rt.display());
        assert!(
            stderr.contains(&format!("calling init: {ours}")),
            "{}: {stderr}",
            p.name
        );
        assert!(
            !stderr.contains("llvm-19/lib/libomptarget"),
            "{}: {stderr}",
            p.name
        );
    }
}
