//! Test support for the packager work: a seeded random generator for image sets and key sets,
//! response files for long command lines, and a way to run a tool under a chosen `argv[0]`.

use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::llvm::llvm_tool;
use crate::run::Output;

/// LLVM 19's `clang-offload-packager`.
#[track_caller]
pub fn llvm_packager() -> PathBuf {
    llvm_tool("clang-offload-packager")
}

/// A small seeded generator (xorshift64*), so that randomized conformance cases are the same on
/// every run and a failure names its seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator with `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    /// A random word of `len` characters that can stand as a packager key or value (no `,` or
    /// `=`, nothing a shell or response file would mangle).
    pub fn word(&mut self, len: usize) -> String {
        const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+:";
        (0..len).map(|_| *self.pick(CHARS) as char).collect()
    }

    /// Shuffles `items` in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// Writes `args` to a response file at `path` (`@path` then stands for them), quoted for LLVM's
/// GNU tokenizer.
pub fn write_response_file(path: &Path, args: &[String]) {
    let mut text = String::new();
    for a in args {
        text.push('"');
        for c in a.chars() {
            if c == '"' || c == '\\' {
                text.push('\\');
            }
            text.push(c);
        }
        text.push_str("\"\n");
    }
    std::fs::write(path, text).expect("write response file");
}

/// Runs `program` with `argv[0]` set to `argv0` (so that two tools print the same program name
/// in their messages), in `cwd`, with `stdin` as standard input.
#[track_caller]
pub fn run_as<I, S>(
    program: &Path,
    argv0: &str,
    args: I,
    cwd: &Path,
    stdin: Option<&[u8]>,
) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    use std::io::Write;
    let mut cmd = Command::new(program);
    cmd.arg0(argv0)
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        // A tool may exit without reading its input; a broken pipe is fine then.
        let _ = pipe.write_all(data);
    }
    let out = child.wait_with_output().expect("wait for tool");
    Output {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}
