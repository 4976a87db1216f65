//! Test support for the bundler: inputs built by clang-19 (host objects, HIP `-fgpu-rdc`
//! objects, archives), hand-made malformed bundles, and a harness that runs LLVM 19's
//! `clang-offload-bundler` and offkit's drop-in side by side on copies of the same inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::llvm::{clang, llvm_tool};
use crate::run::run_ok;

/// A directory holding `clang-offload-bundler` (a link to the tool under test) and
/// `llvm-objcopy` (a link to LLVM 19's), so both tools find the same objcopy beside them.
#[derive(Debug)]
pub struct ToolDir {
    /// The directory.
    pub dir: PathBuf,
}

impl ToolDir {
    /// Makes the links in `dir` (created), with `bundler` as the `clang-offload-bundler`.
    #[track_caller]
    pub fn new(dir: &Path, bundler: &Path) -> ToolDir {
        std::fs::create_dir_all(dir).expect("create tool dir");
        std::os::unix::fs::symlink(bundler, dir.join("clang-offload-bundler"))
            .expect("link clang-offload-bundler");
        std::os::unix::fs::symlink(llvm_tool("llvm-objcopy"), dir.join("llvm-objcopy"))
            .expect("link llvm-objcopy");
        ToolDir {
            dir: dir.to_path_buf(),
        }
    }

    /// The path of the bundler link.
    pub fn bundler(&self) -> PathBuf {
        self.dir.join("clang-offload-bundler")
    }
}

/// What one run did, with the tool's directory and temporary file names normalised in stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code (`None`: killed by a signal, i.e. a crash).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error, normalised.
    pub stderr: String,
    /// The requested output files' contents (`None`: absent).
    pub files: Vec<(String, Option<Vec<u8>>)>,
}

/// One conformance case: arguments (run in a copy of the input directory), the files to
/// compare afterwards, and how strictly to compare.
#[derive(Debug, Clone)]
pub struct Case {
    /// The arguments after the program name.
    pub args: Vec<String>,
    /// Output files (relative to the run directory) to compare.
    pub outputs: Vec<String>,
    /// Compare stderr (off where it holds timings).
    pub stderr: bool,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Standard input.
    pub stdin: Option<Vec<u8>>,
}

impl Case {
    /// A case with these arguments and outputs, comparing stderr.
    pub fn new(args: &[&str], outputs: &[&str]) -> Case {
        Case {
            args: args.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            stderr: true,
            env: Vec::new(),
            stdin: None,
        }
    }

    /// The same case without comparing stderr.
    pub fn no_stderr(mut self) -> Case {
        self.stderr = false;
        self
    }

    /// The same case with an environment variable set.
    pub fn env(mut self, k: &str, v: &str) -> Case {
        self.env.push((k.into(), v.into()));
        self
    }

    /// The same case with `bytes` on standard input.
    pub fn stdin(mut self, bytes: &[u8]) -> Case {
        self.stdin = Some(bytes.to_vec());
        self
    }
}

/// Replaces `clang-offload-bundler-XXXXXX.tmp` names by a fixed one.
pub fn normalise_temp_names(s: &str) -> String {
    let key = "clang-offload-bundler-";
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        let tail = &rest[i + key.len()..];
        let hex = tail
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if tail[hex..].starts_with(".tmp") {
            out.push_str("XXXXXX");
            rest = &tail[hex..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// Runs `tool` for `case` in a fresh copy of `inputs` under `work/name`.
pub fn run_case(tool: &ToolDir, inputs: &Path, work: &Path, name: &str, case: &Case) -> Outcome {
    let dir = work.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(inputs, &dir);
    let tmp = work.join(format!("{name}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    let mut cmd = Command::new(tool.bundler());
    cmd.args(&case.args)
        .current_dir(&dir)
        .env("TMPDIR", &tmp)
        .env_remove("OFFLOAD_BUNDLER_VERBOSE")
        .env_remove("OFFLOAD_BUNDLER_COMPRESS")
        .env_remove("OFFLOAD_BUNDLER_COMPRESSION_LEVEL")
        .env_remove("OFFLOAD_BUNDLER_IGNORE_ENV_VAR");
    for (k, v) in &case.env {
        cmd.env(k, v);
    }
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("run the bundler");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        if let Some(b) = &case.stdin {
            let _ = stdin.write_all(b);
        }
    }
    let out = child.wait_with_output().expect("wait for the bundler");
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace(&tool.dir.display().to_string(), "TOOLDIR")
        .replace(&tmp.display().to_string(), "TMPDIR");
    let files = case
        .outputs
        .iter()
        .map(|f| (f.clone(), std::fs::read(dir.join(f)).ok()))
        .collect();
    Outcome {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: normalise_temp_names(&stderr),
        files,
    }
}

/// Compares LLVM's outcome with offkit's: the same success or failure; on success the same
/// stdout and files; stderr when the case asks. A crash of LLVM's (killed by a signal) must be
/// a plain failure (exit 1) in offkit. Returns a description of the differences.
pub fn differences(case: &Case, llvm: &Outcome, ours: &Outcome) -> Option<String> {
    let mut d = Vec::new();
    let llvm_ok = llvm.code == Some(0);
    let ours_ok = ours.code == Some(0);
    if llvm_ok != ours_ok {
        d.push(format!(
            "exit: llvm {:?}, offkit {:?}\n  llvm stderr: {}\n  offkit stderr: {}",
            llvm.code, ours.code, llvm.stderr, ours.stderr
        ));
    } else if llvm.code.is_some() && llvm.code != ours.code {
        d.push(format!(
            "exit: llvm {:?}, offkit {:?}",
            llvm.code, ours.code
        ));
    } else if llvm.code.is_none() && ours.code != Some(1) {
        d.push(format!("llvm crashed; offkit exited {:?}", ours.code));
    }
    if llvm_ok && ours_ok {
        if llvm.stdout != ours.stdout {
            d.push(format!(
                "stdout:\n  llvm:   {:?}\n  offkit: {:?}",
                String::from_utf8_lossy(&llvm.stdout),
                String::from_utf8_lossy(&ours.stdout)
            ));
        }
        for ((name, a), (_, b)) in llvm.files.iter().zip(&ours.files) {
            if a != b {
                d.push(format!(
                    "file {name}: llvm {:?} bytes, offkit {:?} bytes",
                    a.as_ref().map(|v| v.len()),
                    b.as_ref().map(|v| v.len())
                ));
            }
        }
    }
    if case.stderr && llvm.code.is_some() && llvm.stderr != ours.stderr {
        d.push(format!(
            "stderr:\n  llvm:   {:?}\n  offkit: {:?}",
            llvm.stderr, ours.stderr
        ));
    }
    (!d.is_empty()).then(|| d.join("\n"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create run dir");
    for e in std::fs::read_dir(from).expect("read input dir") {
        let e = e.expect("dir entry");
        if e.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy input");
        }
    }
}

/// Minimal HIP declarations, so that clang-19 compiles HIP without the HIP headers.
pub const HIP_PRELUDE: &str = r#"
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **a, unsigned long s, hipStream_t st);
extern "C" int __hipPushCallConfiguration(dim3 g, dim3 b, unsigned long s = 0, hipStream_t st = 0);
extern "C" int __hipPopCallConfiguration(dim3 *g, dim3 *b, unsigned long *s, hipStream_t *st);
"#;

/// Compiles HIP source `body` (after [`HIP_PRELUDE`]) with `-fgpu-rdc` for `archs`
/// (`--offload-arch` values) to `dir/<name>.o`, a fat object with one bundle section per arch
/// and the host's.
#[track_caller]
pub fn compile_hip_rdc(dir: &Path, name: &str, body: &str, archs: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.hip"));
    std::fs::write(&src, format!("{HIP_PRELUDE}{body}")).expect("write HIP source");
    let out = dir.join(format!("{name}.o"));
    let mut args: Vec<String> = vec!["-x".into(), "hip".into()];
    args.extend(archs.iter().map(|a| format!("--offload-arch={a}")));
    args.extend([
        "-nogpulib".into(),
        "-nogpuinc".into(),
        "-fgpu-rdc".into(),
        "-c".into(),
        src.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    run_ok(clang(), &args, dir);
    out
}

/// Compiles C source to a plain host object `dir/<name>.o`.
#[track_caller]
pub fn compile_c(dir: &Path, name: &str, body: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, body).expect("write C source");
    let out = dir.join(format!("{name}.o"));
    run_ok(
        clang(),
        [
            "-c",
            &src.display().to_string(),
            "-o",
            &out.display().to_string(),
        ],
        dir,
    );
    out
}

/// `llvm-ar rcs dir/<name> members…` (LLVM 19's).
#[track_caller]
pub fn archive(dir: &Path, name: &str, members: &[&str]) -> PathBuf {
    let mut args = vec!["rcs".to_string(), name.to_string()];
    args.extend(members.iter().map(|m| m.to_string()));
    run_ok(llvm_tool("llvm-ar"), &args, dir);
    dir.join(name)
}

/// Deterministic pseudo-random, somewhat compressible bytes.
pub fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b"abcdefgh\0\x7f\n"[(x % 11) as usize]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names() {
        assert_eq!(
            normalise_temp_names("a /t/clang-offload-bundler-1a2b3c.tmp b"),
            "a /t/clang-offload-bundler-XXXXXX.tmp b"
        );
        assert_eq!(
            normalise_temp_names("clang-offload-bundler-x"),
            "clang-offload-bundler-x"
        );
    }
}
