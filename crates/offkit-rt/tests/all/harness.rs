//! Building clang-19 programs and running them on both runtimes.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use offkit_testutil::{llvm_lib, llvm_tool};

/// The directory where `libomptarget.so.19.1` is offkit's: a link to the cdylib cargo built
/// for this test (the test binary lives in `target/<profile>/deps/`, the cdylib beside it and
/// one level up). `cargo test` writes the one in `deps/` and only `cargo build` copies it up,
/// so the newer of the two is taken.
pub fn rt_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let deps = exe.parent().expect("deps directory");
        let so = [
            deps.parent().map(|p| p.join("libomptarget.so")),
            Some(deps.join("libomptarget.so")),
        ]
        .into_iter()
        .flatten()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by_key(|(modified, _)| *modified)
        .map(|(_, p)| p)
        .expect("cargo builds the offkit-rt cdylib (libomptarget.so) before its tests");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("offkit-rt-lib");
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("libomptarget.so.19.1");
        let tmp = dir.join(format!("libomptarget.so.19.1.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&so, &tmp).unwrap();
        std::fs::rename(&tmp, &link).unwrap();
        dir
    })
}

/// A scratch directory per test.
pub fn work_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("offkit-rt-programs")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Compiles with clang-19 (clang++ for C++) for the host offload target.
#[track_caller]
pub fn clang(dir: &Path, out: &str, sources: &[&str], extra: &[&str]) -> PathBuf {
    let cxx = sources.iter().any(|s| s.ends_with(".cpp"));
    let mut cmd = Command::new(llvm_tool(if cxx { "clang++" } else { "clang" }));
    cmd.current_dir(dir)
        .args(["-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", "-O1"])
        .args(extra)
        .args(sources.iter().map(|s| program(s)))
        .arg("-o")
        .arg(dir.join(out));
    let o = cmd
        .output()
        .expect("clang-19 runs (scripts/setup.sh installs it)");
    assert!(
        o.status.success(),
        "clang-19 failed for {sources:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    dir.join(out)
}

/// Which runtime a run loads.
#[derive(Clone, Copy, Debug)]
pub enum Runtime {
    Llvm,
    Offkit,
}

pub fn run(rt: Runtime, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    run_with(rt, Command::new(exe), exe, args, env)
}

/// Runs with stderr into stdout's pipe, so the order of the two is compared too.
pub fn run_merged(rt: Runtime, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut sh = Command::new("sh");
    sh.args(["-c", "exec \"$0\" \"$@\" 2>&1"]).arg(exe);
    run_with(rt, sh, exe, args, env)
}

fn run_with(
    rt: Runtime,
    mut cmd: Command,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let lib_path = match rt {
        Runtime::Llvm => llvm_lib().display().to_string(),
        Runtime::Offkit => format!("{}:{}", rt_dir().display(), llvm_lib().display()),
    };
    cmd.args(args)
        .current_dir(exe.parent().unwrap())
        .env("LD_LIBRARY_PATH", lib_path);
    for var in [
        "OMP_TARGET_OFFLOAD",
        "OMP_DEFAULT_DEVICE",
        "LIBOMPTARGET_INFO",
        "LIBOMPTARGET_DEBUG",
        "OMP_NUM_THREADS",
        "LD_DEBUG",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().expect("run the test program")
}

/// Addresses (`0x` and 16 hex digits, LLVM's `DPxMOD`) become `0xADDR`.
pub fn normalise(s: &[u8]) -> String {
    let s = String::from_utf8_lossy(s);
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 2..i + 18)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if b[i] == b'0' && b.get(i + 1) == Some(&b'x') && hex {
            out.push_str("0xADDR");
            i += 18;
        } else {
            let ch = s[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The outcome both runtimes must agree on.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub status: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

pub fn outcome(o: &Output) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    Outcome {
        status: o.status.code(),
        signal: o.status.signal(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: normalise(&o.stderr),
    }
}

/// Runs `exe` on both runtimes and checks they agree; returns offkit's outcome.
#[track_caller]
pub fn same(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let llvm = outcome(&run(Runtime::Llvm, exe, args, env));
    let ours = outcome(&run(Runtime::Offkit, exe, args, env));
    assert_eq!(
        llvm,
        ours,
        "{} {args:?} {env:?}: LLVM 19's runtime (left) and offkit's (right) differ",
        exe.display()
    );
    ours
}

/// [`same`] with stdout and stderr in one pipe: their interleaving must agree too.
#[track_caller]
pub fn same_merged(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let llvm = normalise(&run_merged(Runtime::Llvm, exe, args, env).stdout);
    let ours = normalise(&run_merged(Runtime::Offkit, exe, args, env).stdout);
    assert_eq!(
        llvm,
        ours,
        "{} {args:?} {env:?}: merged output differs",
        exe.display()
    );
    ours
}

/// A program whose regions all report `on_dev 1` and that exits 0.
#[track_caller]
pub fn ran_on_device(o: &Outcome) {
    assert_eq!(o.status, Some(0), "{o:?}");
    assert!(o.stdout.contains("on_dev 1"), "{}", o.stdout);
    assert!(!o.stdout.contains("on_dev 0"), "{}", o.stdout);
}

/// A program that aborted with LLVM 19's fatal error.
#[track_caller]
pub fn aborted(o: &Outcome, fatal: &str) {
    assert_eq!(o.signal, Some(6), "{o:?}");
    assert!(o.stderr.contains(fatal), "{}", o.stderr);
}
