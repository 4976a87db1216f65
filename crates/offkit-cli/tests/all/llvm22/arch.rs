//! `offload-arch` (LLVM 22), and `amdgpu-arch` and `nvptx-arch` (LLVM 19 and 22): offkit's faces
//! against LLVM's tools, on this machine without GPUs, then with made-up ones: a recorded KFD
//! topology mounted on the Debian 13 root's `/sys` (for LLVM 22's KFD reader and offkit alike)
//! and a stand-in CUDA driver on `LD_LIBRARY_PATH`.

use std::path::{Path, PathBuf};

use offkit_testutil::llvm22::{self, Scratch, Side};
use offkit_testutil::llvm22_arch::{fake_cuda, kfd_sysfs, run_with_sys};
use offkit_testutil::{llvm_tool, Output};

fn offkit() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_offkit"))
}

/// The command lines every face is given.
const CASES: &[&[&str]] = &[
    &[],
    &["--verbose"],
    &["--help"],
    &["-help"],
    &["-h"],
    &["--help-hidden"],
    &["--help-list"],
    &["--help-list-hidden"],
    &["--version"],
    &["--only=amdgpu"],
    &["--only=nvptx"],
    &["--only=intel"],
    &["--only=all", "--verbose"],
    &["--only=intel", "--verbose"],
    &["--only", "amdgpu"],
    &["--only=bogus"],
    &["--only=AMDGPU"],
    &["--only"],
    &["-only=", "-x"],
    &["-only=nvptx", "--only=amdgpu"],
    &["--hip-api-version=r0600"],
    &["--hip-api-version=unversioned", "--verbose"],
    &["--hip-api-version=x"],
    &["--verbose=2"],
    &["--verbose=0"],
    &["-v"],
    &["x"],
    &["--amdgpu-only"],
    &["--nvidia-only"],
    &["--onyl=nvptx"],
    &["--verbos"],
    &["--hip-api"],
    &["--hel"],
    &["--verison"],
    &["-hW"],
    &["-W"],
    &["-Wh"],
    &["--print-options"],
    &["--", "x"],
];

const TOOLS_22: [&str; 3] = ["offload-arch", "amdgpu-arch", "nvptx-arch"];

#[track_caller]
fn assert_same(what: &str, llvm: &Output, ours: &Output) {
    assert!(
        llvm == ours,
        "{what}\n--- LLVM (exit {:?})\n{}{}\n--- offkit (exit {:?})\n{}{}",
        llvm.code,
        llvm.stdout_str(),
        llvm.stderr_str(),
        ours.code,
        ours.stdout_str(),
        ours.stderr_str()
    );
}

/// Runs every case with both sides of LLVM 22, with `sys` on `/sys` and `env`.
fn check_22(sys: Option<&Path>, env: &[(&str, &str)], what: &str) -> usize {
    llvm22::offkit_shims(offkit());
    let s = Scratch::new();
    let mut n = 0;
    for tool in TOOLS_22 {
        for args in CASES {
            let run = |side| run_with_sys(side, tool, args, &s.inner(), sys, env);
            let (a, b) = (run(Side::Llvm), run(Side::Offkit));
            assert_same(&format!("{what}: {tool} {args:?}"), &a, &b);
            n += 1;
        }
    }
    n
}

/// On this machine (no KFD topology, no GPU libraries), as LLVM 22.
#[test]
fn llvm22_without_gpus() {
    check_22(None, &[], "no GPU");
}

/// offkit-rt's recorded KFD topologies, as LLVM 22 reads them.
#[test]
fn llvm22_with_kfd_topologies() {
    let s = Scratch::new();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../offkit-rt/tests/sysfs");
    for name in ["mi210-xnack-on", "mixed", "cpu-only"] {
        let sys = kfd_sysfs(&fixtures.join(name), &s.join(name));
        check_22(Some(&sys), &[], name);
        // What offkit's face prints is the KFD's processors, as `offkit arch` finds them.
        let out = run_with_sys(
            Side::Offkit,
            "offload-arch",
            &[],
            &s.inner(),
            Some(&sys),
            &[],
        );
        let listed = std::process::Command::new(offkit())
            .args(["arch", "--json", "--sysfs-root"])
            .arg(fixtures.join(name))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
        let expected: String = v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"] == "amdgpu")
            .map(|d| format!("{}\n", d["processor"].as_str().unwrap()))
            .collect();
        assert_eq!(out.stdout_str(), expected, "{name}");
        assert_eq!(out.code, Some(0));
    }
}

/// A stand-in CUDA driver: devices, no device, an error with and without its text, no
/// `cuGetErrorString`.
#[test]
fn llvm22_with_a_cuda_driver() {
    let s = Scratch::new();
    for (init, errstr) in [(0, true), (100, true), (999, true), (998, true), (0, false)] {
        let lib = llvm22::inner_path(&fake_cuda(s.path(), init, errstr));
        let lib = lib.to_string_lossy();
        check_22(
            None,
            &[("LD_LIBRARY_PATH", &lib)],
            &format!("cuInit {init}, cuGetErrorString {errstr}"),
        );
    }
}

/// LLVM 19's `amdgpu-arch` and `nvptx-arch` on this machine, without GPUs and with the
/// stand-in CUDA driver.
#[test]
fn llvm19_faces() {
    let dir = tempfile::tempdir().unwrap();
    let mut libs: Vec<Option<PathBuf>> = vec![None];
    for (init, errstr) in [(0, true), (100, true), (999, true), (998, true), (0, false)] {
        libs.push(Some(fake_cuda(dir.path(), init, errstr)));
    }
    for tool in ["amdgpu-arch", "nvptx-arch"] {
        for lib in &libs {
            for args in CASES {
                let run =
                    |program: &Path| run_as_with(program, tool, args, dir.path(), lib.as_deref());
                let (a, b) = (run(&llvm_tool(tool)), run(offkit()));
                assert_same(&format!("19 {tool} {args:?} {lib:?}"), &a, &b);
            }
        }
    }
}

/// Runs `program` as `argv0` (so both tools name themselves alike) in `cwd`, with
/// `LD_LIBRARY_PATH` set to `lib` (or unset) and no `OFFKIT_LLVM` (the face is LLVM 19's).
fn run_as_with(
    program: &Path,
    argv0: &str,
    args: &[&str],
    cwd: &Path,
    lib: Option<&Path>,
) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(program);
    cmd.arg0(argv0)
        .args(args)
        .current_dir(cwd)
        .env_remove("OFFKIT_LLVM")
        .env_remove("LD_LIBRARY_PATH");
    if let Some(l) = lib {
        cmd.env("LD_LIBRARY_PATH", l);
    }
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// `clang-22 --offload-arch=native` runs `offload-arch --only=amdgpu` (HIP), or with no option
/// (OpenMP), found in clang's own directory or given by `--offload-arch-tool`: with a recorded
/// MI210 topology both tools make clang compile for gfx90a, byte for byte; without a GPU
/// clang stops with the same message.
#[test]
fn clang_offload_arch_native() {
    let shims = llvm22::offkit_shims(offkit())
        .to_string_lossy()
        .into_owned();
    let s = Scratch::new();
    s.write(
        "k.hip",
        "__attribute__((global)) void k(int *p) { *p = 1; }\n",
    );
    s.write(
        "t.c",
        "int main(void) {\n  int x = 0;\n#pragma omp target map(tofrom : x)\n  x = 1;\n  \
         return x;\n}\n",
    );
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../offkit-rt/tests/sysfs");
    let sys = kfd_sysfs(&fixtures.join("mi210-xnack-on"), &s.join("sys"));
    let hip: &[&str] = &[
        "-x",
        "hip",
        "-nogpulib",
        "-nogpuinc",
        "--cuda-device-only",
        // The CUID hashes the command line, which the tool's path changes.
        "-cuid=k",
        "k.hip",
    ];
    let openmp: &[&str] = &["-fopenmp", "-nogpulib", "--offload-device-only", "t.c"];
    for (sys, what) in [(Some(sys.as_path()), "MI210"), (None, "no GPU")] {
        for (lang, input) in [("HIP", hip), ("OpenMP", openmp)] {
            let compile = |tool: String, out: &str| {
                let tool = format!("--offload-arch-tool={tool}");
                let mut args = vec![tool.as_str(), "--offload-arch=native", "-c", "-o", out];
                args.extend(input);
                run_with_sys(Side::Llvm, "clang", &args, &s.inner(), sys, &[])
            };
            let a = compile(format!("{}/offload-arch", llvm22::LLVM22_BIN), "llvm.o");
            let b = compile(format!("{shims}/offload-arch"), "ours.o");
            let what = format!("clang --offload-arch=native, {lang}, {what}");
            assert_same(&what, &a, &b);
            assert!(
                s.read("llvm.o") == s.read("ours.o"),
                "{what}: the objects differ"
            );
            assert_eq!(
                a.code == Some(0),
                sys.is_some(),
                "{what}: {}",
                a.stderr_str()
            );
            let _ = std::fs::remove_file(s.join("llvm.o"));
            let _ = std::fs::remove_file(s.join("ours.o"));
        }
    }
}
