//! `llvm-objdump --offloading` against LLVM 22: [`ObjdumpTwin22`], a [`Pair`] of working
//! directories in the Debian 13 root, one for LLVM 22's `llvm-objdump` and one for offkit's
//! face, which `offkit shims` links only when asked (`--with-objdump`): its shims are a
//! directory of their own, not [`crate::llvm22::offkit_shims`]'s.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::llvm22::{self, Run, Scratch, Side, LLVM22_BIN};
use crate::llvm22_packager::Pair;
use crate::run::Output;

/// The tool.
const TOOL: &str = "llvm-objdump";

static SHIMS: OnceLock<PathBuf> = OnceLock::new();

/// Copies the offkit executable under test into the root (once per test process) and makes
/// `offkit shims --llvm 22 --with-objdump` there; returns the shims' inner directory.
#[track_caller]
pub fn objdump_shims(offkit_exe: &Path) -> &'static Path {
    SHIMS.get_or_init(|| {
        let dir = llvm22::process_dir("offkit-objdump-22-");
        crate::run::copy_executable(offkit_exe, &dir.join("offkit"));
        let inner = llvm22::inner_path(&dir);
        let shims = inner.to_string_lossy().into_owned();
        Run::new(
            Side::Llvm,
            &inner.join("offkit").to_string_lossy(),
            ["shims", "--llvm", "22", "--with-objdump", &shims],
            Path::new("/"),
        )
        .ok();
        inner
    })
}

/// LLVM 22's `llvm-objdump` and offkit's face, each in its own directory of the root, both run
/// as `llvm-objdump` found on `PATH`.
#[derive(Debug)]
pub struct ObjdumpTwin22 {
    scratch: Scratch,
    llvm_dir: PathBuf,
    ours_dir: PathBuf,
    shims: &'static Path,
}

impl ObjdumpTwin22 {
    /// A pair, with the face's shims made from `offkit` (the executable under test).
    #[track_caller]
    pub fn new(offkit: &Path) -> ObjdumpTwin22 {
        let shims = objdump_shims(offkit);
        let scratch = Scratch::new();
        let llvm_dir = scratch.join("llvm");
        let ours_dir = scratch.join("ours");
        for d in [&llvm_dir, &ours_dir] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        ObjdumpTwin22 {
            scratch,
            llvm_dir,
            ours_dir,
            shims,
        }
    }

    /// The scratch directory both working directories live in (a host path in the root).
    pub fn root(&self) -> &Path {
        self.scratch.path()
    }

    /// Runs `llvm-objdump args` in `dir` (a host path in the root): LLVM 22's, or offkit's face.
    pub fn run_in(&self, side: Side, dir: &Path, args: &[String]) -> Output {
        let cwd = llvm22::inner_path(dir);
        let mut run = Run::new(Side::Llvm, TOOL, args, &cwd);
        if side == Side::Offkit {
            let path = format!("{}:{LLVM22_BIN}:/usr/bin:/bin", self.shims.display());
            run = run.env("PATH", &path);
        }
        run.output()
    }
}

impl Pair for ObjdumpTwin22 {
    fn name(&self) -> &str {
        TOOL
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

    fn run(&self, args: &[String], _stdin: Option<&[u8]>) -> (Output, Output) {
        (
            self.run_in(Side::Llvm, &self.llvm_dir, args),
            self.run_in(Side::Offkit, &self.ours_dir, args),
        )
    }

    fn llvm_ok(&self, args: &[String]) -> Output {
        Run::new(Side::Llvm, TOOL, args, &llvm22::inner_path(&self.llvm_dir)).ok()
    }
}
