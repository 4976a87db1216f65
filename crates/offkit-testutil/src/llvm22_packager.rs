//! The packager's conformance cases against either release: a [`Pair`] is two working
//! directories with the same inputs, one for LLVM's tool and one for offkit's face, that run a
//! command each and are compared ([`Pair::assert_same`]). [`crate::packager::Twin`] is LLVM 19's on
//! this machine; [`Twin22`] is LLVM 22's `llvm-offload-binary` (or `clang-offload-packager`,
//! its old name) in the Debian 13 root, beside offkit's LLVM 22 shims.

use std::path::{Path, PathBuf};

use crate::llvm22::{self, Run, Scratch, Side};
use crate::packager::{Snapshot, Twin};
use crate::run::Output;

/// Two working directories, one per tool, with the same inputs.
pub trait Pair {
    /// The tool's name (`argv[0]` of both).
    fn name(&self) -> &str;
    /// Where LLVM's tool runs (a host path).
    fn llvm_dir(&self) -> &Path;
    /// Where offkit runs (a host path).
    fn ours_dir(&self) -> &Path;
    /// Writes `bytes` to `rel` in both directories.
    fn put(&self, rel: &str, bytes: &[u8]);
    /// Removes everything from both directories.
    fn clear(&self);
    /// Runs both tools with `args` in their directories; each directory's path reads `<cwd>`
    /// in their output.
    fn run(&self, args: &[String], stdin: Option<&[u8]>) -> (Output, Output);
    /// Runs LLVM's tool alone in its directory (to make inputs); panics unless it succeeds.
    fn llvm_ok(&self, args: &[String]) -> Output;

    /// Copies file `from` to `rel` in both directories.
    #[track_caller]
    fn put_file(&self, rel: &str, from: &Path) {
        self.put(rel, &std::fs::read(from).expect("read fixture"));
    }

    /// Runs both tools and asserts they agree on everything (exit status, stdout, stderr, every
    /// file left in the directories, with its mode); returns LLVM's result. Where LLVM's tool
    /// crashes (killed by a signal), offkit's must fail cleanly (exit 1), and only the files
    /// are compared.
    #[track_caller]
    fn assert_same(&self, args: &[String], stdin: Option<&[u8]>, case: &str) -> Output {
        let (a, b) = self.run(args, stdin);
        let crashed = a.code.is_none() && b.code == Some(1);
        assert!(
            crashed ||
            a.code == b.code && a.stderr == b.stderr && a.stdout == b.stdout,
            "{case}: {} {}\n--- LLVM (exit {:?})\n{}\n--- offkit (exit {:?})\n{}\n--- stdout equal: {}",
            self.name(),
            args.join(" "),
            a.code,
            a.stderr_str(),
            b.code,
            b.stderr_str(),
            a.stdout == b.stdout
        );
        let (sa, sb) = (
            Twin::snapshot(self.llvm_dir()),
            Twin::snapshot(self.ours_dir()),
        );
        if sa != sb {
            panic!(
                "{case}: {} {}\nfiles differ:\n{}",
                self.name(),
                args.join(" "),
                snapshot_differences(&sa, &sb)
            );
        }
        a
    }
}

/// What differs between two directories' files.
pub fn snapshot_differences(llvm: &Snapshot, ours: &Snapshot) -> String {
    let names = |s: &Snapshot| s.keys().cloned().collect::<Vec<_>>();
    let differing: Vec<_> = llvm
        .iter()
        .filter(|(k, v)| ours.get(*k) != Some(v))
        .map(|(k, (m, d))| {
            let o = ours.get(k);
            format!(
                "{k}: LLVM mode {m:o} {} bytes, offkit {:?}",
                d.len(),
                o.map(|(m, d)| (format!("{m:o}"), d.len()))
            )
        })
        .collect();
    format!(
        "  LLVM:   {:?}\n  offkit: {:?}\n  {}",
        names(llvm),
        names(ours),
        differing.join("\n  ")
    )
}

impl Pair for Twin {
    fn name(&self) -> &str {
        self.tool_name()
    }

    fn llvm_dir(&self) -> &Path {
        &self.llvm_dir
    }

    fn ours_dir(&self) -> &Path {
        &self.ours_dir
    }

    fn put(&self, rel: &str, bytes: &[u8]) {
        Twin::put(self, rel, bytes);
    }

    fn clear(&self) {
        Twin::clear(self);
    }

    fn run(&self, args: &[String], stdin: Option<&[u8]>) -> (Output, Output) {
        Twin::run(self, args, stdin)
    }

    fn llvm_ok(&self, args: &[String]) -> Output {
        crate::run::run_ok(crate::llvm_tool(self.tool_name()), args, &self.llvm_dir)
    }
}

/// LLVM 22's tool and offkit's LLVM 22 face in the Debian 13 root, each in its own directory,
/// both run by the bare name found on `PATH`.
#[derive(Debug)]
pub struct Twin22 {
    scratch: Scratch,
    llvm_dir: PathBuf,
    ours_dir: PathBuf,
    name: String,
}

impl Twin22 {
    /// A pair for `tool` (`llvm-offload-binary`, `clang-offload-packager`), with offkit's
    /// shims made from `offkit` (the executable under test).
    #[track_caller]
    pub fn new(tool: &str, offkit: &Path) -> Twin22 {
        llvm22::offkit_shims(offkit);
        let scratch = Scratch::new();
        let llvm_dir = scratch.join("llvm");
        let ours_dir = scratch.join("ours");
        for d in [&llvm_dir, &ours_dir] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        Twin22 {
            scratch,
            llvm_dir,
            ours_dir,
            name: tool.to_string(),
        }
    }

    /// The scratch directory both working directories live in (a host path in the root).
    pub fn root(&self) -> &Path {
        self.scratch.path()
    }

    fn run_one(&self, side: Side, dir: &Path, args: &[String], stdin: Option<&[u8]>) -> Output {
        let cwd = llvm22::inner_path(dir);
        let mut run = Run::new(side, &self.name, args, &cwd);
        if let Some(data) = stdin {
            run = run.stdin(data);
        }
        let mut out = run.output();
        let cwd = cwd.display().to_string();
        for s in [&mut out.stdout, &mut out.stderr] {
            if let Ok(text) = std::str::from_utf8(s) {
                *s = text.replace(&cwd, "<cwd>").into_bytes();
            }
        }
        out
    }
}

impl Pair for Twin22 {
    fn name(&self) -> &str {
        &self.name
    }

    fn llvm_dir(&self) -> &Path {
        &self.llvm_dir
    }

    fn ours_dir(&self) -> &Path {
        &self.ours_dir
    }

    fn put(&self, rel: &str, bytes: &[u8]) {
        for d in [&self.llvm_dir, &self.ours_dir] {
            let p = d.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).expect("mkdir");
            }
            std::fs::write(p, bytes).expect("write input");
        }
    }

    fn clear(&self) {
        for d in [&self.llvm_dir, &self.ours_dir] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).expect("mkdir");
        }
    }

    fn run(&self, args: &[String], stdin: Option<&[u8]>) -> (Output, Output) {
        let a = self.run_one(Side::Llvm, &self.llvm_dir, args, stdin);
        let b = self.run_one(Side::Offkit, &self.ours_dir, args, stdin);
        (a, b)
    }

    fn llvm_ok(&self, args: &[String]) -> Output {
        Run::new(
            Side::Llvm,
            &self.name,
            args,
            &llvm22::inner_path(&self.llvm_dir),
        )
        .ok()
    }
}
