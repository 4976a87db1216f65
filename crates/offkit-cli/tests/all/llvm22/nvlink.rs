//! The drop-in `clang-nvlink-wrapper` against LLVM 22's (in the Debian 13 root) and LLVM 19's
//! (on the host), without NVIDIA's tools: help, version, `--dry-run` command lines (ptxas and
//! nvlink as each release runs them, after the LTO), errors, and the LTO's own outputs
//! (`--lto-emit-asm`, `--lto-emit-llvm`) byte for byte, on NVPTX bitcode clang makes.

use std::path::Path;

use offkit_testutil::llvm22::{self, Run, Scratch, Side};
use offkit_testutil::llvm22_link::{normalize, same};
use offkit_testutil::{llvm_tool, run_ok};

const TOOL: &str = "clang-nvlink-wrapper";

/// An NVPTX translation unit: a function, a protected variable, and one the link drops.
const SOURCE: &str = "int f(int x) { return x + 1; }\n\
                      __attribute__((visibility(\"protected\"))) int g = 3;\n\
                      static int unused(void) { return 0; }\n";

fn shims() -> &'static Path {
    llvm22::offkit_shims(Path::new(env!("CARGO_BIN_EXE_offkit")))
}

/// NVPTX bitcode and an archive of it, by clang-22, in a new directory.
fn inputs() -> Scratch {
    let s = Scratch::new();
    s.write("nv.c", SOURCE);
    s.write("host.c", "int main(void) { return 0; }\n");
    llvm22::clang(
        &[
            "--target=nvptx64-nvidia-cuda",
            "-march=sm_70",
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
            "-O2",
            "-c",
            "-emit-llvm",
            "nv.c",
            "-o",
            "nv.bc",
        ],
        &s.inner(),
    );
    llvm22::clang(&["-c", "host.c", "-o", "host.o"], &s.inner());
    Run::new(
        Side::Llvm,
        "llvm-ar",
        ["rcs", "libnv.a", "nv.bc"],
        &s.inner(),
    )
    .ok();
    s
}

const CASES: &[&[&str]] = &[
    &["--help"],
    &["--help-hidden"],
    &["-help", "-v"],
    &["--version"],
    &["--dry-run"],
    &["--dry-run", "--arch", "sm_70"],
    &[
        "--dry-run",
        "--version",
        "--arch",
        "sm_70",
        "-o",
        "out",
        "x.o",
    ],
    &["--dry-run", "--arch", "sm_70", "-lfoo"],
    &["--dry-run", "-u", "foo"],
    &["--arch", "sm_70", "-o", "x"],
    &["--dry-run", "--arch", "sm_70", "nv.bc", "-o", "out"],
    &["--dry-run", "nv.bc", "-o", "out"],
    &["--dry-run", "--arch", "sm_70", "-g", "nv.bc"],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "--plugin-opt=O3",
        "-v",
        "nv.bc",
        "host.o",
    ],
    &[
        "--dry-run",
        "--plugin-opt=mcpu=sm_70",
        "-L.",
        "-lnv",
        "-u",
        "f",
    ],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "--whole-archive",
        "-L.",
        "-lnv",
        "-o",
        "w",
    ],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "-r",
        "nv.bc",
        "--cuda-path=/c",
        "-z",
        "now",
    ],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "--plugin-opt=jobs=0",
        "nv.bc",
    ],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "--plugin-opt=lto-partitions=x",
        "nv.bc",
    ],
    &["--dry-run", "--arch", "sm_70", "-mllvm", "foo", "nv.bc"],
    &["--dry-run", "--arch", "sm_70", "nv.c"],
    &[
        "--dry-run",
        "--arch",
        "sm_70",
        "--assume-device-object",
        "host.o",
    ],
    &["--dry-run", "--arch", "sm_70", "-o"],
];

#[test]
fn dry_runs_as_llvm_22() {
    shims();
    let s = inputs();
    for c in CASES {
        same(TOOL, c, &s.inner());
    }
}

/// The LTO's outputs are LLVM 22's, byte for byte.
#[test]
fn lto_outputs_as_llvm_22() {
    shims();
    let s = inputs();
    for (args, out) in [
        (&["--lto-emit-asm", "nv.bc"][..], "o.s"),
        (&["--lto-emit-llvm", "nv.bc"], "o.bc"),
        (&["--lto-emit-asm", "--plugin-opt=O3", "-r", "nv.bc"], "r.s"),
        (&["--lto-emit-asm", "--whole-archive", "libnv.a"], "a.s"),
    ] {
        let mut a = vec!["--arch", "sm_70", "-o", out];
        a.extend_from_slice(args);
        Run::new(Side::Llvm, TOOL, &a, &s.inner()).ok();
        let theirs = s.read(out);
        std::fs::remove_file(s.join(out)).unwrap();
        Run::new(Side::Offkit, TOOL, &a, &s.inner()).ok();
        assert!(theirs.is_some(), "LLVM 22 wrote no {out}");
        assert!(theirs == s.read(out), "{out} differs ({a:?})");
    }
}

/// LLVM 19's tool, on the host, against offkit's face as `clang-nvlink-wrapper-19`.
#[test]
fn dry_runs_and_lto_as_llvm_19() {
    use offkit_testutil::packager::run_as;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("nv.c"), SOURCE).unwrap();
    run_ok(
        llvm_tool("clang"),
        [
            "--target=nvptx64-nvidia-cuda",
            "-march=sm_70",
            "-O2",
            "-c",
            "-emit-llvm",
            "nv.c",
            "-o",
            "nv.bc",
        ],
        d,
    );
    std::fs::write(d.join("host.c"), "int main(void) { return 0; }\n").unwrap();
    run_ok(llvm_tool("clang"), ["-c", "host.c", "-o", "host.o"], d);
    run_ok(llvm_tool("llvm-ar"), ["rcs", "libnv.a", "nv.bc"], d);
    let llvm = llvm_tool("clang-nvlink-wrapper");
    let offkit = Path::new(env!("CARGO_BIN_EXE_offkit"));
    let mut cases: Vec<Vec<&str>> = CASES.iter().map(|c| c.to_vec()).collect();
    cases.push(vec![
        "--dry-run",
        "--arch",
        "sm_70",
        "--feature",
        "+ptx70",
        "nv.bc",
    ]);
    for c in &cases {
        let theirs = run_as(&llvm, TOOL, c, d, None);
        let ours = run_as(offkit, "clang-nvlink-wrapper-19", c, d, None);
        let fix = |s: String| normalize(&s.replace("clang-nvlink-wrapper-19", TOOL));
        assert_eq!(
            (ours.code, fix(ours.stdout_str()), fix(ours.stderr_str())),
            (
                theirs.code,
                fix(theirs.stdout_str()),
                fix(theirs.stderr_str())
            ),
            "for {c:?}"
        );
    }
    for (args, out) in [
        (&["--lto-emit-asm", "nv.bc"][..], "o.s"),
        (&["--lto-emit-llvm", "nv.bc"], "o.bc"),
        (&["--lto-emit-asm", "--feature", "+ptx70", "nv.bc"], "f.s"),
    ] {
        let mut a = vec!["--arch", "sm_70", "-o", out];
        a.extend_from_slice(args);
        let o = run_as(&llvm, TOOL, &a, d, None);
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        let theirs = std::fs::read(d.join(out)).unwrap();
        std::fs::remove_file(d.join(out)).unwrap();
        let o = run_as(offkit, "clang-nvlink-wrapper-19", &a, d, None);
        assert_eq!(o.code, Some(0), "{}", o.stderr_str());
        assert!(std::fs::read(d.join(out)).unwrap() == theirs, "{out}");
    }
}

/// Where `scripts/setup-cuda-tools.sh` puts NVIDIA's tools: on the host, and in the root.
const CUDA_TOOLS: &str = "/opt/offkit/cuda-tools";
const CUDA_TOOLS_INNER: &str = "/opt/cuda-tools";

/// A real device link with NVIDIA's `ptxas` and `nvlink` (from PyPI's `nvidia-cuda-nvcc`):
/// the cubin is LLVM 22's and LLVM 19's byte for byte, from bitcode and from an archive.
#[test]
fn real_links_with_nvidias_tools() {
    use offkit_testutil::packager::run_as;
    shims();
    let tools = llvm22::host_path(Path::new(CUDA_TOOLS_INNER)).join("bin/nvlink");
    assert!(
        tools.is_file() && Path::new(CUDA_TOOLS).join("bin/ptxas").is_file(),
        "NVIDIA's ptxas and nvlink are not installed: run scripts/setup-cuda-tools.sh"
    );
    let s = Scratch::new();
    s.write("nv.c", SOURCE);
    let sm80 = [
        "--target=nvptx64-nvidia-cuda",
        "-march=sm_80",
        "-Xclang",
        "-target-feature",
        "-Xclang",
        "+ptx78",
        "-O2",
        "-c",
        "-emit-llvm",
        "nv.c",
    ];
    llvm22::clang(&[&sm80[..], &["-o", "nv.bc"]].concat(), &s.inner());
    Run::new(
        Side::Llvm,
        "llvm-ar",
        ["rcs", "libnv.a", "nv.bc"],
        &s.inner(),
    )
    .ok();
    let cuda = format!("--cuda-path={CUDA_TOOLS_INNER}");
    for (inputs, out) in [
        (&["nv.bc"][..], "a.cubin"),
        (&["--whole-archive", "-L.", "-lnv"], "b.cubin"),
        // (With -g ptxas records the temporary file's random name: no two links are the same.)
        (&["--plugin-opt=O3", "nv.bc"], "c.cubin"),
    ] {
        let mut a = vec![cuda.as_str(), "--arch", "sm_80", "-o", out];
        a.extend_from_slice(inputs);
        Run::new(Side::Llvm, TOOL, &a, &s.inner()).ok();
        let theirs = s.read(out);
        std::fs::remove_file(s.join(out)).unwrap();
        let ours = Run::new(Side::Offkit, TOOL, &a, &s.inner()).ok();
        assert!(theirs.is_some(), "LLVM 22 wrote no {out}");
        assert!(
            theirs == s.read(out),
            "{out} differs ({a:?}): {}",
            ours.stderr_str()
        );
    }
    // LLVM 19's, on the host.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("nv.c"), SOURCE).unwrap();
    run_ok(
        llvm_tool("clang"),
        [&sm80[..], &["-o", "nv.bc"]].concat(),
        d,
    );
    let cuda = format!("--cuda-path={CUDA_TOOLS}");
    let a = [cuda.as_str(), "--arch", "sm_80", "-o", "a.cubin", "nv.bc"];
    let o = run_as(&llvm_tool("clang-nvlink-wrapper"), TOOL, a, d, None);
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    let theirs = std::fs::read(d.join("a.cubin")).unwrap();
    std::fs::remove_file(d.join("a.cubin")).unwrap();
    let offkit = Path::new(env!("CARGO_BIN_EXE_offkit"));
    let o = run_as(offkit, "clang-nvlink-wrapper-19", a, d, None);
    assert_eq!(o.code, Some(0), "{}", o.stderr_str());
    assert!(
        std::fs::read(d.join("a.cubin")).unwrap() == theirs,
        "19's cubin differs"
    );
}
