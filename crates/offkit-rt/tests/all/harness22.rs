//! Building programs with clang-22 in the Debian 13 root (`offkit_testutil::llvm22`) and running
//! them there on offkit's `libomptarget.so.22.1`; their outcome is compared with the clang-19
//! build of the same source on LLVM 19's runtime (`harness`), the only runtime there is to
//! compare with (Debian 13 ships no LLVM 22 runtime).
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use offkit_testutil::llvm22::{self, Scratch};

use crate::harness::{self, Outcome, Runtime};

/// offkit's LLVM 22 runtime as cargo built it for this test: `deps/libomptarget.so.22.1`, the
/// second link of the cdylib (build.rs).
pub fn lib22() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let deps = exe.parent().expect("deps directory");
        let lib = deps.join("libomptarget.so.22.1");
        assert!(
            lib.is_file(),
            "cargo links {} with the cdylib (build.rs)",
            lib.display()
        );
        lib
    })
}

/// A directory in the root with offkit's LLVM 22 runtime in `lib/` (as `libomptarget.so.22.1`
/// and the `libomptarget.so` link `-lomptarget` finds), where programs are built and run.
pub struct Root22 {
    pub dir: Scratch,
}

impl Root22 {
    #[track_caller]
    pub fn new() -> Root22 {
        let dir = Scratch::new();
        let lib = dir.join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::copy(lib22(), lib.join("libomptarget.so.22.1")).unwrap();
        std::os::unix::fs::symlink("libomptarget.so.22.1", lib.join("libomptarget.so")).unwrap();
        Root22 { dir }
    }

    /// The runtime's directory inside the root.
    pub fn lib_inner(&self) -> String {
        self.dir.inner().join("lib").display().to_string()
    }

    /// Compiles test programs with clang-22 (clang++ for C++) for the host offload target, as
    /// a user of the 22 runtime does: `-L<dir> -Wl,-rpath,<dir>`.
    #[track_caller]
    pub fn clang(&self, out: &str, sources: &[&str], extra: &[&str]) -> String {
        for s in sources {
            std::fs::copy(harness::program(s), self.dir.join(s)).unwrap();
        }
        let cxx = sources.iter().any(|s| s.ends_with(".cpp"));
        let lib = self.lib_inner();
        let mut args: Vec<String> = ["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "-O1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(sources.iter().map(|s| s.to_string()));
        args.extend([
            format!("-L{lib}"),
            format!("-Wl,-rpath,{lib}"),
            "-o".to_owned(),
            out.to_owned(),
        ]);
        llvm22::Run::new(
            llvm22::Side::Llvm,
            if cxx { "clang++" } else { "clang" },
            &args,
            &self.dir.inner(),
        )
        .ok();
        format!("./{out}")
    }

    /// Runs `exe` (in the directory) inside the root with only `env` set besides `PATH`.
    pub fn run(&self, exe: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
        let mut cmd = Command::new("chroot");
        cmd.arg(llvm22::root())
            .args(["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LANG=C"])
            .args(env.iter().map(|(k, v)| format!("{k}={v}")))
            .args(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\""])
            .arg(self.dir.inner())
            .arg(exe)
            .args(args)
            .stdin(Stdio::null());
        harness::outcome(&cmd.output().expect("run chroot"))
    }
}

/// The clang-19 build of the same sources (host side), to run on LLVM 19's runtime.
#[track_caller]
pub fn build19(name: &str, sources: &[&str], extra: &[&str]) -> PathBuf {
    let d = harness::work_dir(&format!("llvm22-{name}"));
    harness::clang(&d, name, sources, extra)
}

/// A run of a clang-19 build on LLVM 19's runtime.
pub fn run19(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    harness::outcome(&harness::run(Runtime::Llvm, exe, args, env))
}

/// [`build19`] and one [`run19`].
#[track_caller]
pub fn llvm19(
    name: &str,
    sources: &[&str],
    extra: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
) -> Outcome {
    run19(&build19(name, sources, extra), args, env)
}

/// Why a line of LLVM 22 differs from LLVM 19's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// LLVM 22's runtime behaves differently (a clang-19 build on the 22 runtime shows it too).
    Runtime,
    /// clang-22 emits different code for the construct.
    Clang,
}

/// What LLVM 22 does differently with the same program, taken from LLVM 22.1.8's sources (there
/// is no LLVM 22 runtime to run): `(program, the start of LLVM 19's stdout line, LLVM 22's
/// line, cause, why)`.
pub const STDOUT_DIFFERENCES: &[(&str, &str, &str, Cause, &str)] = &[
    (
        "basic",
        "g present before first use: ",
        "g present before first use: 1",
        Cause::Runtime,
        "22's getDevice loads the device's images, omp_target_is_present too",
    ),
    (
        "basic",
        "g present after first use: ",
        "g present after first use: 1 on dev1: 1",
        Cause::Runtime,
        "22's getDevice loads the device's images, omp_target_is_present too",
    ),
    (
        "data",
        "use_device_addr of unmapped x is the host address: 0",
        "use_device_addr of unmapped x is the host address: 1",
        Cause::Runtime,
        "22's use_device_ptr/addr falls back to the host address",
    ),
    (
        "ptr",
        "mapper enter+update: m.v[0]=10.0 pointer kept 1 on_dev 1",
        "mapper enter+update: m.v[0]=-5.0 pointer kept 1 on_dev 1",
        Cause::Runtime,
        "22 does not copy a struct over its attached pointer again",
    ),
    (
        "ptr",
        "strided: 0 -1 -2 -3 4 5 6 7 8 9 10 11 12 13 14 15 on_dev 1",
        "strided: 0 1 -2 3 -4 5 -6 7 8 9 10 11 12 13 14 15 on_dev 1",
        Cause::Clang,
        "clang-22 emits a 1-D strided update as non-contiguous",
    ),
    (
        "more",
        "list 11 2 13 links kept 1 on_dev 1",
        "list 11 12 13 links kept 1 on_dev 1",
        Cause::Clang,
        "clang-22 attaches each pointer with an ATTACH entry",
    ),
    (
        "zero_length",
        "member ptr: 0",
        "member ptr: 3",
        Cause::Clang,
        "clang-22 maps the struct and an ATTACH entry for its pointer; LLVM 22 attaches only a \
         pointee that is present, so the device pointer keeps the host value copied with the struct",
    ),
    (
        "zero_length",
        "member via ptr: 0",
        "member via ptr: 3",
        Cause::Clang,
        "the same, through a pointer to the struct",
    ),
    (
        "zero_length",
        "member in data: 0",
        "member in data: 3",
        Cause::Clang,
        "the same, the struct mapped by an enclosing data region",
    ),
];

/// LLVM 19's stdout with LLVM 22's lines in place of those [`STDOUT_DIFFERENCES`] lists for
/// `program` (and `causes`); every listed line must be there.
#[track_caller]
pub fn expected_stdout(program: &str, llvm19: &str, causes: &[Cause]) -> String {
    let mut lines: Vec<String> = llvm19.lines().map(str::to_owned).collect();
    let listed = STDOUT_DIFFERENCES
        .iter()
        .filter(|d| d.0 == program && causes.contains(&d.3));
    for (_, old, new, _, why) in listed {
        let line = lines
            .iter_mut()
            .find(|l| l.starts_with(old))
            .unwrap_or_else(|| panic!("{program}: LLVM 19 no longer prints `{old}` ({why})"));
        *line = (*new).to_owned();
    }
    let mut s = lines.join("\n");
    if llvm19.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Asserts that the clang-22 build on offkit's 22 runtime ended as the clang-19 build on LLVM
/// 19's runtime (exit status or signal; stdout up to [`STDOUT_DIFFERENCES`]).
#[track_caller]
pub fn same_as_19(program: &str, llvm19: &Outcome, ours: &Outcome) {
    assert_eq!(
        (llvm19.status, llvm19.signal),
        (ours.status, ours.signal),
        "{program}: LLVM 19 (left) and offkit's 22 runtime (right) end differently\n{ours:?}"
    );
    assert_eq!(
        expected_stdout(program, &llvm19.stdout, &[Cause::Runtime, Cause::Clang]),
        ours.stdout,
        "{program}: stdout differs from LLVM 19's (left, with LLVM 22's known differences)\n{}",
        ours.stderr
    );
}
