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

/// Two working directories with the same inputs, one for LLVM 19's tool and one for offkit's
/// drop-in (a symlink named after the tool), so that a command can be run by both and
/// everything compared: exit status, stdout, stderr and every file left behind.
#[derive(Debug)]
pub struct Twin {
    root: tempfile::TempDir,
    /// Where LLVM's tool runs.
    pub llvm_dir: PathBuf,
    /// Where offkit runs.
    pub ours_dir: PathBuf,
    ours_bin: PathBuf,
    llvm_bin: PathBuf,
    name: String,
}

/// A file left in a working directory: its mode bits and bytes.
pub type Snapshot = std::collections::BTreeMap<String, (u32, Vec<u8>)>;

impl Twin {
    /// A pair of working directories for `tool` (e.g. `clang-offload-packager`), with offkit's
    /// executable `offkit` linked under the tool's name.
    #[track_caller]
    pub fn new(tool: &str, offkit: &Path) -> Twin {
        let root = tempfile::tempdir().expect("tempdir");
        let bin = root.path().join("bin");
        let llvm_dir = root.path().join("llvm");
        let ours_dir = root.path().join("ours");
        for d in [&bin, &llvm_dir, &ours_dir] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let ours_bin = bin.join(tool);
        std::os::unix::fs::symlink(offkit, &ours_bin).expect("symlink");
        Twin {
            root,
            llvm_dir,
            ours_dir,
            ours_bin,
            llvm_bin: llvm_tool(tool),
            name: tool.to_string(),
        }
    }

    /// The scratch directory both working directories live in.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Writes `bytes` to `rel` in both working directories.
    #[track_caller]
    pub fn put(&self, rel: &str, bytes: &[u8]) {
        for d in [&self.llvm_dir, &self.ours_dir] {
            let p = d.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            std::fs::write(p, bytes).expect("write input");
        }
    }

    /// Copies file `from` to `rel` in both working directories.
    #[track_caller]
    pub fn put_file(&self, rel: &str, from: &Path) {
        self.put(rel, &std::fs::read(from).expect("read fixture"));
    }

    /// Removes everything from both working directories.
    pub fn clear(&self) {
        for d in [&self.llvm_dir, &self.ours_dir] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).expect("mkdir");
        }
    }

    /// Runs both tools with `args` (`argv[0]` is the tool's plain name for both), each in its own
    /// directory; the directory's path in their output reads `<cwd>`.
    pub fn run(&self, args: &[String], stdin: Option<&[u8]>) -> (Output, Output) {
        let a = self.run_one(&self.llvm_bin, &self.llvm_dir, args, stdin);
        let b = self.run_one(&self.ours_bin, &self.ours_dir, args, stdin);
        (a, b)
    }

    fn run_one(&self, bin: &Path, dir: &Path, args: &[String], stdin: Option<&[u8]>) -> Output {
        let mut out = run_as(bin, &self.name, args, dir, stdin);
        let cwd = dir.display().to_string();
        for s in [&mut out.stdout, &mut out.stderr] {
            let text = String::from_utf8_lossy(s).replace(&cwd, "<cwd>");
            if text.as_bytes() != s.as_slice() && !s.is_empty() && std::str::from_utf8(s).is_ok() {
                *s = text.into_bytes();
            }
        }
        out
    }

    /// Every regular file under `dir`, by relative path.
    pub fn snapshot(dir: &Path) -> Snapshot {
        use std::os::unix::fs::PermissionsExt;
        let mut out = Snapshot::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
                let p = e.path();
                let meta = std::fs::symlink_metadata(&p).expect("stat");
                if meta.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
                    let bytes = std::fs::read(&p).unwrap_or_default();
                    out.insert(rel, (meta.permissions().mode() & 0o7777, bytes));
                }
            }
        }
        out
    }

    /// Runs both tools and asserts they agree on everything; returns LLVM's result (the
    /// comparison of [`crate::llvm22_packager::Pair`], which LLVM 22's pair shares).
    #[track_caller]
    pub fn assert_same(&self, args: &[String], stdin: Option<&[u8]>, case: &str) -> Output {
        <Self as crate::llvm22_packager::Pair>::assert_same(self, args, stdin, case)
    }

    /// The tool's name.
    pub fn tool_name(&self) -> &str {
        &self.name
    }
}
