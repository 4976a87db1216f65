//! The bundler's conformance cases against either release: the inputs are made by the
//! release's own tools ([`Oracle`]: clang, llvm-ar and clang-offload-bundler of LLVM 19 on this
//! machine, or of LLVM 22 in the Debian 13 root), and one case runs on LLVM 22's side or
//! offkit's inside the root ([`run_case`]) into the same [`Outcome`] that
//! [`crate::bundler::differences`] compares for LLVM 19.
//!
//! ```text
//! cases (tests/all/bundler.rs) ──► LLVM 19: bundler::run_case (host)   ─┐
//!                              └─► LLVM 22: llvm22_bundler::run_case ───┴─► differences
//! ```

use std::path::Path;

use crate::bundler::{Case, Outcome, HIP_PRELUDE};
use crate::llvm22::{self, Run, Side};
use crate::run::run_ok;

/// The tools that make a release's inputs, each run in `dir` (a host path; for LLVM 22 one
/// inside the root).
pub trait Oracle {
    /// Compiles C source `body` to the host object `dir/<name>.o`.
    fn compile_c(&self, dir: &Path, name: &str, body: &str);
    /// Compiles HIP source `body` (after [`HIP_PRELUDE`]) with `-fgpu-rdc` for `archs`
    /// to `dir/<name>.o`, a fat object with one bundle section per arch and the host's.
    fn compile_hip_rdc(&self, dir: &Path, name: &str, body: &str, archs: &[&str]);
    /// `llvm-ar rcs dir/<name> members…`.
    fn archive(&self, dir: &Path, name: &str, members: &[&str]);
    /// Runs the release's `clang-offload-bundler` with `args` in `dir`; it must succeed.
    fn bundler(&self, dir: &Path, args: &[&str]);
}

/// LLVM 19 on this machine, with the bundler at `bundler`.
#[derive(Debug, Clone)]
pub struct Llvm19<'a> {
    /// The `clang-offload-bundler` to run.
    pub bundler: &'a Path,
}

impl Oracle for Llvm19<'_> {
    fn compile_c(&self, dir: &Path, name: &str, body: &str) {
        crate::bundler::compile_c(dir, name, body);
    }

    fn compile_hip_rdc(&self, dir: &Path, name: &str, body: &str, archs: &[&str]) {
        crate::bundler::compile_hip_rdc(dir, name, body, archs);
    }

    fn archive(&self, dir: &Path, name: &str, members: &[&str]) {
        crate::bundler::archive(dir, name, members);
    }

    fn bundler(&self, dir: &Path, args: &[&str]) {
        run_ok(self.bundler, args, dir);
    }
}

/// LLVM 22 in the Debian 13 root.
#[derive(Debug, Clone, Copy, Default)]
pub struct Llvm22;

impl Llvm22 {
    #[track_caller]
    fn run(&self, dir: &Path, program: &str, args: &[String]) {
        Run::new(Side::Llvm, program, args, &llvm22::inner_path(dir)).ok();
    }
}

impl Oracle for Llvm22 {
    fn compile_c(&self, dir: &Path, name: &str, body: &str) {
        std::fs::write(dir.join(format!("{name}.c")), body).expect("write C source");
        let args = ["-c", &format!("{name}.c"), "-o", &format!("{name}.o")];
        self.run(dir, "clang", &args.map(String::from));
    }

    fn compile_hip_rdc(&self, dir: &Path, name: &str, body: &str, archs: &[&str]) {
        std::fs::write(
            dir.join(format!("{name}.hip")),
            format!("{HIP_PRELUDE}{body}"),
        )
        .expect("write HIP source");
        let mut args: Vec<String> = vec!["-x".into(), "hip".into()];
        args.extend(archs.iter().map(|a| format!("--offload-arch={a}")));
        args.extend(
            [
                "-nogpulib",
                "-nogpuinc",
                "-fgpu-rdc",
                "-c",
                &format!("{name}.hip"),
                "-o",
                &format!("{name}.o"),
            ]
            .map(String::from),
        );
        self.run(dir, "clang", &args);
    }

    fn archive(&self, dir: &Path, name: &str, members: &[&str]) {
        let mut args = vec!["rcs".to_string(), name.to_string()];
        args.extend(members.iter().map(|m| m.to_string()));
        self.run(dir, "llvm-ar", &args);
    }

    fn bundler(&self, dir: &Path, args: &[&str]) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        self.run(dir, "clang-offload-bundler", &args);
    }
}

/// Runs `clang-offload-bundler` of `side` for `case` in a fresh copy of `inputs` (a host path
/// inside the root) under `work/name`, with its own `TMPDIR`; temporary file names and the
/// directories are normalised in stderr as [`crate::bundler::run_case`] does. offkit's side
/// needs [`llvm22::offkit_shims`] made first.
pub fn run_case(side: Side, inputs: &Path, work: &Path, name: &str, case: &Case) -> Outcome {
    let dir = work.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    copy_files(inputs, &dir);
    let tmp = work.join(format!("{name}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    let inner_tmp = llvm22::inner_path(&tmp);
    let mut run = Run::new(
        side,
        "clang-offload-bundler",
        &case.args,
        &llvm22::inner_path(&dir),
    )
    .env("TMPDIR", &inner_tmp.to_string_lossy());
    for (k, v) in &case.env {
        run = run.env(k, v);
    }
    if let Some(b) = &case.stdin {
        run = run.stdin(b);
    }
    let out = run.output();
    let stderr = String::from_utf8_lossy(&out.stderr)
        .replace(&inner_tmp.display().to_string(), "TMPDIR")
        .replace(&llvm22::inner_path(&dir).display().to_string(), "RUNDIR");
    let files = case
        .outputs
        .iter()
        .map(|f| (f.clone(), std::fs::read(dir.join(f)).ok()))
        .collect();
    Outcome {
        code: out.code,
        stdout: out.stdout,
        stderr: crate::bundler::normalise_temp_names(&stderr),
        files,
    }
}

/// Copies the regular files of `from` into `to` (created).
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create run dir");
    for e in std::fs::read_dir(from).expect("read input dir") {
        let e = e.expect("dir entry");
        if e.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy input");
        }
    }
}

/// A fixture directory inside the root that a test binary shares through a `static`, as
/// [`crate::fixtures::shared_dir`] makes them: cleared at each run, one per build tree (its
/// name holds a hash of `target_tmpdir`, the binary's `CARGO_TARGET_TMPDIR`, so that several
/// checkouts testing at once do not meet).
#[track_caller]
pub fn shared_dir(target_tmpdir: &str, name: &str) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    target_tmpdir.hash(&mut h);
    let base = llvm22::root().join("tmp");
    crate::fixtures::shared_dir(
        &base.to_string_lossy(),
        &format!("offkit-{name}-{:016x}", h.finish()),
    )
}
