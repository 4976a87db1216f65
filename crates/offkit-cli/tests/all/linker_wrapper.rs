//! Integration tests: the drop-in `clang-linker-wrapper` against LLVM 19's, on the same command
//! lines: help, version, the host link command (`--dry-run`), errors, and the device link
//! commands for objects clang-19 builds.

use std::path::{Path, PathBuf};

use offkit_testutil::fixtures;
use offkit_testutil::link::{llvm_wrapper, normalize_temps};
use offkit_testutil::packager::run_as;

const ARGV0: &str = "clang-linker-wrapper";

fn offkit() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_offkit"))
}

/// Runs LLVM's tool and offkit's with the same `argv[0]` and arguments; returns both.
fn both(args: &[&str], cwd: &Path) -> (offkit_testutil::Output, offkit_testutil::Output) {
    let theirs = run_as(&llvm_wrapper(), ARGV0, args, cwd, None);
    let ours = run_as(&offkit(), ARGV0, args, cwd, None);
    (theirs, ours)
}

#[track_caller]
fn same(args: &[&str], cwd: &Path) {
    let (theirs, ours) = both(args, cwd);
    assert_eq!(
        (ours.code, ours.stdout_str(), ours.stderr_str()),
        (theirs.code, theirs.stdout_str(), theirs.stderr_str()),
        "for {args:?}"
    );
}

#[test]
fn help_and_version_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    for a in [
        &["--help"][..],
        &["--help-hidden"],
        &["--version"],
        &["-v"],
        &["--v"],
        &["-version", "x.o"],
        &["--help", "-v"],
    ] {
        same(a, dir.path());
    }
}

#[test]
fn host_link_commands_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("resp"), "-L /r1 \"a b\" -lz\n").unwrap();
    std::fs::write(dir.path().join("libq.a"), "!<arch>\n").unwrap();
    let cases: &[&[&str]] = &[
        &["-o", "a.out", "x.o"],
        &[
            "-r",
            "--output=x.o",
            "--library-path=/a",
            "--library-path",
            "/b",
            "--library=/c",
            "-L/d",
            "-rpath=/e",
            "-rpath",
            "/f",
            "--rpath=/g",
            "--whole-archive",
            "--no-whole-archive",
            "-pie",
            "-m",
            "elf_x86_64",
            "/out:foo",
            "/libpath:/h",
            "/wholearchive",
            "--linker-arg=zz",
            "--arch=gfx",
            "--whole-program",
            "--sysroot=/s",
            "--",
            "-omagic",
        ],
        &[
            "@resp",
            "-L/usr/lib/x86_64-linux-gnu",
            "-L.",
            "-lq",
            "-l:libq.a",
            "x.o",
            "-",
            "",
            "-o",
            "out",
        ],
        &[
            "--hash-style=gnu",
            "--build-id",
            "--eh-frame-hdr",
            "-m",
            "elf_x86_64",
            "-pie",
            "-dynamic-linker",
            "/lib64/ld-linux-x86-64.so.2",
            "-o",
            "p",
            "-L/lib",
            "p.o",
            "--as-needed",
            "-lgcc_s",
            "--no-as-needed",
            "-verbose",
            "-z",
            "relro",
        ],
        &[
            "-mllvm",
            "-pass-remarks=inline",
            "--offload-opt=-openmp-opt-disable",
            "--opt-level=O3",
            "--device-debug",
            "--save-temps",
            "--cuda-path=/c",
            "--ptxas-arg=-v",
            "--device-linker=a=b",
            "--wrapper-jobs=2",
            "--host-triple=x86_64-pc-linux-gnu",
            "-o",
            "q",
        ],
    ];
    for c in cases {
        let mut a = vec!["--dry-run", "--linker-path=/usr/bin/ld"];
        a.extend_from_slice(c);
        same(&a, dir.path());
    }
}

#[test]
fn errors_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    for a in [
        &["--dry-run", "--linker-path=/usr/bin/ld", "x.o", "-o"][..],
        &["--dry-run", "--library"],
        &["--dry-run", "--wrapper-jobs=0", "-o", "x"],
        &["--dry-run", "--wrapper-jobs=abc"],
        &["--dry-run", "-lnosuchlibrary_offkit", "-L/usr/lib"],
        &["-o", "x", "--linker-path=/nonexistent/ld"],
        &["-o", "x"],
        &[
            "--dry-run",
            "-mllvm",
            "--foo-bar-baz",
            "--offload-opt=-mattr=+avx",
            "-o",
            "x",
        ],
    ] {
        same(a, dir.path());
    }
}

/// The device link command for an x86_64 object is LLVM 19's, temporary names aside.
#[test]
fn device_link_command_as_llvm_19() {
    let dir = tempfile::tempdir().unwrap();
    let o = fixtures::compile_openmp(
        dir.path(),
        "p",
        fixtures::OPENMP_SAXPY,
        &["x86_64-pc-linux-gnu"],
        &[],
    );
    let o = o.to_str().unwrap();
    let args = [
        "--host-triple=x86_64-pc-linux-gnu",
        "--dry-run",
        "--wrapper-verbose",
        "--linker-path=/usr/bin/ld",
        "-o",
        "p",
        "-L/usr/lib/x86_64-linux-gnu",
        o,
        "-lomp",
        "-L/usr/lib/llvm-19/lib",
        "-lc",
    ];
    let (theirs, ours) = both(&args, dir.path());
    let theirs = normalize_temps(&theirs.stderr_str());
    let ours = normalize_temps(&ours.stderr_str());
    let first = |s: &str| s.lines().next().unwrap_or("").to_string();
    assert_eq!(first(&ours), first(&theirs));
    assert!(first(&theirs).contains("--target=x86_64-pc-linux-gnu -march=native -O2"));
}
