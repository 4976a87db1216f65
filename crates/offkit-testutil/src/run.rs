//! Running commands in tests.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

impl Output {
    /// Standard output, lossily decoded.
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error, lossily decoded.
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Puts the executable `from` at `to` so that it can be run at once: a hard link where the file
/// system allows one, a copy otherwise, and then waits until the copy can be executed.
///
/// A plain copy cannot always be run at once: while it is being written, another test thread
/// may fork a child that inherits the write descriptor until it execs, and running the copy
/// meanwhile fails with `ETXTBSY` ("Text file busy", seen in CI).
pub fn copy_executable(from: &Path, to: &Path) {
    if std::fs::hard_link(from, to).is_ok() {
        return;
    }
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("cannot copy {}: {e}", from.display()));
    for _ in 0..500 {
        match Command::new(to).arg("--version").output() {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            _ => return,
        }
    }
    panic!("{} stays busy", to.display());
}

/// Runs `program args…` in `cwd` and captures everything.
#[track_caller]
pub fn run<I, S>(program: impl AsRef<OsStr>, args: I, cwd: &Path) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = program.as_ref();
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.to_string_lossy()));
    Output {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// Runs a command that must succeed; panics with its stderr otherwise.
#[track_caller]
pub fn run_ok<I, S>(program: impl AsRef<OsStr>, args: I, cwd: &Path) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let program = program.as_ref().to_owned();
    let out = run(&program, args, cwd);
    assert_eq!(
        out.code,
        Some(0),
        "{} failed:\n{}",
        program.to_string_lossy(),
        out.stderr_str()
    );
    out
}
