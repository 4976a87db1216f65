//! The LLVM 22 oracle: Debian 13's LLVM 22.1.8 (`clang-22`, `clang-tools-22`, `lld-22`,
//! `llvm-22`, `libomp-22-dev`) in a Debian 13 root that `scripts/setup-trixie.sh` makes with
//! debootstrap, under `$OFFKIT_TRIXIE_ROOT` (read here and nowhere else), by default
//! `/opt/offkit/trixie`.
//!
//! LLVM 22 needs Debian 13's C library, so its tools run inside the root with `chroot` (root
//! privileges; the set-up and CI run as root). offkit, built on Debian 12, runs there too: the
//! conformance tests run both sides *inside* the root, in the same directory and under the same
//! bare tool name found on `PATH`, so that messages which name the program, the inputs or the
//! working directory read the same. A [`Scratch`] directory lies under the root's `/tmp`, seen
//! by the tests at its host path and by the tools at its inner path.
//!
//! ```text
//! host: /opt/offkit/trixie/tmp/.tmpAbC/in.o   ═   root: /tmp/.tmpAbC/in.o
//! Side::Llvm   PATH=/usr/lib/llvm-22/bin:/usr/bin:/bin            clang-offload-bundler …
//! Side::Offkit PATH=/tmp/offkit-shims-22-…:/usr/lib/llvm-22/bin:… clang-offload-bundler …
//! ```

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::run::Output;

/// The environment variable that names the Debian 13 root.
pub const TRIXIE_ROOT_VAR: &str = "OFFKIT_TRIXIE_ROOT";

/// The root when [`TRIXIE_ROOT_VAR`] is not set.
pub const DEFAULT_TRIXIE_ROOT: &str = "/opt/offkit/trixie";

/// LLVM 22's `bin/` inside the root.
pub const LLVM22_BIN: &str = "/usr/lib/llvm-22/bin";

/// LLVM 22's `lib/` inside the root.
pub const LLVM22_LIB: &str = "/usr/lib/llvm-22/lib";

/// The Debian 13 root (host path).
pub fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = match offkit_tools::Env::capture().get_os(TRIXIE_ROOT_VAR) {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(DEFAULT_TRIXIE_ROOT),
        };
        assert!(
            root.join("usr/lib/llvm-22/bin/clang").exists(),
            "{} has no LLVM 22: the LLVM 22 oracle is not set up; run scripts/test.sh (or \
             scripts/setup-trixie.sh), which makes the Debian 13 root with clang-22",
            root.display()
        );
        // /proc is mounted by the set-up, and gone after a reboot: programs in the root need
        // it (offkit finds itself through /proc/self/exe, its runtime loads images from
        // /proc/self/fd).
        if !root.join("proc/self").exists() {
            let status = Command::new("mount")
                .args(["-t", "proc", "proc"])
                .arg(root.join("proc"))
                .status();
            assert!(
                status.is_ok_and(|s| s.success()),
                "cannot mount /proc in {}: run scripts/setup-trixie.sh as root",
                root.display()
            );
        }
        root
    })
}

/// The host path of `inner`, a path inside the root.
pub fn host_path(inner: &Path) -> PathBuf {
    root().join(inner.strip_prefix("/").unwrap_or(inner))
}

/// The path inside the root of `host`, a host path under the root. Panics if it is not under
/// the root.
#[track_caller]
pub fn inner_path(host: &Path) -> PathBuf {
    let rel = host
        .strip_prefix(root())
        .unwrap_or_else(|_| panic!("{} is not inside {}", host.display(), root().display()));
    Path::new("/").join(rel)
}

/// The inner path of LLVM 22 tool `name`. Panics with a set-up hint when it is missing.
#[track_caller]
pub fn tool(name: &str) -> PathBuf {
    let inner = Path::new(LLVM22_BIN).join(name);
    assert!(
        host_path(&inner).exists(),
        "{} is missing from the Debian 13 root: run scripts/setup-trixie.sh",
        inner.display()
    );
    inner
}

/// A temporary directory under the root's `/tmp`, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// A new, empty directory.
    #[track_caller]
    pub fn new() -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("offkit-test-")
            .tempdir_in(root().join("tmp"))
            .expect("create a directory in the Debian 13 root");
        Scratch { dir }
    }

    /// Its host path (for the test's own reads and writes).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Its path inside the root (for the tools).
    pub fn inner(&self) -> PathBuf {
        inner_path(self.dir.path())
    }

    /// Host path of `rel` in it.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `bytes` to `rel` in it (parents created).
    #[track_caller]
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("create parent");
        }
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        p
    }

    /// Reads `rel` in it, `None` if absent.
    pub fn read(&self, rel: impl AsRef<Path>) -> Option<Vec<u8>> {
        std::fs::read(self.join(rel)).ok()
    }

    /// Copies every regular file (recursively) of this directory into `to`, another scratch
    /// directory, so that each side of a comparison gets its own copy of the inputs.
    #[track_caller]
    pub fn copy_to(&self, to: &Scratch) {
        copy_tree(self.path(), to.path());
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

#[track_caller]
fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).expect("read scratch dir") {
        let e = e.expect("dir entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ty = e.file_type().expect("file type");
        if ty.is_dir() {
            std::fs::create_dir_all(&dst).expect("create dir");
            copy_tree(&src, &dst);
        } else if ty.is_symlink() {
            let target = std::fs::read_link(&src).expect("read link");
            std::os::unix::fs::symlink(target, &dst).expect("copy link");
        } else {
            std::fs::copy(&src, &dst).expect("copy file");
        }
    }
}

/// Which tools a command finds first on `PATH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// LLVM 22's own tools.
    Llvm,
    /// offkit's LLVM 22 faces (shims made with `offkit shims --llvm 22`), then LLVM 22's other
    /// tools (clang, lld, llvm-objcopy).
    Offkit,
}

/// A command to run inside the root.
#[derive(Debug, Clone)]
pub struct Run {
    program: String,
    args: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    path: String,
}

impl Run {
    /// `program` (a bare name found on `PATH`, or an inner path) with `args`, in `cwd` (an inner
    /// path), for `side`. offkit's side needs [`offkit_shims`] to have been made (with the
    /// executable under test).
    pub fn new<I, S>(side: Side, program: &str, args: I, cwd: &Path) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let path = match side {
            Side::Llvm => format!("{LLVM22_BIN}:/usr/bin:/bin"),
            Side::Offkit => {
                let shims = SHIMS
                    .get()
                    .expect("call llvm22::offkit_shims(env!(\"CARGO_BIN_EXE_offkit\")) first");
                format!("{}:{LLVM22_BIN}:/usr/bin:/bin", shims.display())
            }
        };
        Run {
            program: program.into(),
            args: args
                .into_iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect(),
            cwd: cwd.to_path_buf(),
            env: Vec::new(),
            stdin: None,
            path,
        }
    }

    /// Sets an environment variable.
    pub fn env(mut self, k: &str, v: &str) -> Run {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Feeds `bytes` on standard input.
    pub fn stdin(mut self, bytes: &[u8]) -> Run {
        self.stdin = Some(bytes.to_vec());
        self
    }

    /// Runs it and captures everything. The environment is only `PATH`, `HOME=/root`, `LANG=C`
    /// and what [`Run::env`] set, so nothing of the host leaks in.
    #[track_caller]
    pub fn output(&self) -> Output {
        // `cd` in the root, then exec: chroot(8) has no working-directory option.
        let mut cmd = Command::new("chroot");
        cmd.arg(root())
            .arg("/usr/bin/env")
            .arg("-i")
            .arg(format!("PATH={}", self.path))
            .arg("HOME=/root")
            .arg("LANG=C");
        for (k, v) in &self.env {
            cmd.arg(format!("{k}={v}"));
        }
        cmd.args(["/bin/sh", "-c", "cd \"$0\" && exec \"$@\""])
            .arg(&self.cwd)
            .arg(&self.program)
            .args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run chroot {}: {e}", root().display()));
        if let Some(bytes) = &self.stdin {
            let mut stdin = child.stdin.take().expect("stdin");
            let bytes = bytes.clone();
            // Written from a thread so a tool that does not read it cannot deadlock us.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            });
        }
        let out = child.wait_with_output().expect("wait for chroot");
        Output {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }

    /// Runs it; panics with its stderr unless it exits 0.
    #[track_caller]
    pub fn ok(&self) -> Output {
        let out = self.output();
        assert_eq!(
            out.code,
            Some(0),
            "`{} {}` in {} failed:\n{}",
            self.program,
            self.args.join(" "),
            self.cwd.display(),
            out.stderr_str()
        );
        out
    }
}

static SHIMS: OnceLock<PathBuf> = OnceLock::new();

/// A directory under the root's `/tmp` that lives as long as this test process, named
/// `<prefix><pid>-<random>` (host path). A test process cannot remove it at exit (libtest has no
/// hook), so each call first removes the directories of that prefix whose process is gone:
/// stale copies of offkit (about 85 MB each) never pile up.
#[track_caller]
pub fn process_dir(prefix: &str) -> PathBuf {
    let tmp = root().join("tmp");
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if !Path::new("/proc").join(pid.to_string()).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .tempdir_in(&tmp)
        .expect("create a directory in the Debian 13 root")
        .keep()
}

/// Copies the offkit executable under test into the root (once per test process) and makes its
/// LLVM 22 shims there with `offkit shims --llvm 22`; returns the shims' inner directory.
#[track_caller]
pub fn offkit_shims(offkit_exe: &Path) -> &'static Path {
    SHIMS.get_or_init(|| {
        let dir = process_dir("offkit-shims-22-");
        let exe = dir.join("offkit");
        crate::run::copy_executable(offkit_exe, &exe);
        let inner = inner_path(&dir);
        let out = Run::new(
            Side::Llvm,
            &inner.join("offkit").to_string_lossy(),
            ["shims", "--llvm", "22", &inner.to_string_lossy()],
            Path::new("/"),
        )
        .output();
        assert_eq!(
            out.code,
            Some(0),
            "offkit shims --llvm 22 in the root failed:\n{}",
            out.stderr_str()
        );
        inner
    })
}

/// Runs `clang-22` (the compiler of the inputs) inside the root with `args` in `cwd` (inner),
/// and panics with its stderr unless it succeeds.
#[track_caller]
pub fn clang(args: &[&str], cwd: &Path) -> Output {
    Run::new(Side::Llvm, "clang", args, cwd).ok()
}
