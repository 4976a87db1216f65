//! Finding tools: the CLI flag, then `OFFKIT_<TOOL>`, then the directory of `argv[0]` and of
//! the executable (as LLVM's tools look beside themselves), then `/usr/lib/llvm-19/bin`, then
//! `<tool>-19` and `<tool>` on `PATH` (Debian has no plain `clang`, and `/usr/bin/llvm-objcopy`
//! may be an older LLVM). [`ToolFinder::for_llvm`] makes the release another one (22: its
//! `/usr/lib/llvm-22/bin` and `<tool>-22`).

use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::error::Error;
use crate::invoke::is_file;

/// Where Debian installs LLVM 19's tools.
pub const LLVM19_BIN: &str = "/usr/lib/llvm-19/bin";

/// Finds tools in offkit's lookup order.
#[derive(Debug, Clone)]
pub struct ToolFinder {
    env: Env,
    argv0_dir: Option<PathBuf>,
    exe_dir: Option<PathBuf>,
    llvm_bin: PathBuf,
    major: u32,
}

impl ToolFinder {
    /// A finder for a process whose `argv[0]` was `argv0` (if known).
    pub fn new(env: &Env, argv0: Option<&Path>) -> Self {
        let argv0_dir = argv0
            .filter(|p| p.exists())
            .and_then(|p| p.parent())
            .map(Path::to_path_buf);
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        ToolFinder {
            env: env.clone(),
            argv0_dir,
            exe_dir,
            llvm_bin: PathBuf::from(LLVM19_BIN),
            major: 19,
        }
    }

    /// Looks for LLVM release `major`'s tools: in `bin` (where Debian installs them, instead of
    /// [`LLVM19_BIN`]) and as `<tool>-<major>` on `PATH`.
    pub fn for_llvm(mut self, bin: impl Into<PathBuf>, major: u32) -> Self {
        self.llvm_bin = bin.into();
        self.major = major;
        self
    }

    /// The environment variable that names `tool`'s path: `OFFKIT_` + the name upper-cased with
    /// `-` and `.` as `_` (`ld.lld` → `OFFKIT_LD_LLD`).
    pub fn env_var(tool: &str) -> String {
        let mut v = String::from("OFFKIT_");
        v.extend(tool.chars().map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        }));
        v
    }

    /// Finds `tool`; `flag` is the path a command-line flag gave, if any.
    pub fn find(&self, tool: &str, flag: Option<&Path>) -> Result<PathBuf, Error> {
        if let Some(p) = flag {
            return Ok(p.to_path_buf());
        }
        let var = Self::env_var(tool);
        if let Some(p) = self.env.get_os(&var).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        dirs.extend(self.argv0_dir.clone());
        dirs.extend(self.exe_dir.clone());
        dirs.push(self.llvm_bin.clone());
        for d in &dirs {
            let p = d.join(tool);
            if is_file(&p) {
                return Ok(p);
            }
        }
        let path = self.env.get_os("PATH").cloned().unwrap_or_default();
        for name in [format!("{tool}-{}", self.major), tool.to_string()] {
            for d in std::env::split_paths(&path) {
                let p = d.join(&name);
                if is_file(&p) {
                    return Ok(p);
                }
            }
        }
        let searched = dirs
            .iter()
            .map(|d| d.display().to_string())
            .chain(["PATH".to_string()])
            .collect::<Vec<_>>()
            .join(", ");
        Err(Error::ToolNotFound {
            tool: tool.to_string(),
            searched,
            hint: var,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_var_names() {
        assert_eq!(ToolFinder::env_var("ld.lld"), "OFFKIT_LD_LLD");
        assert_eq!(ToolFinder::env_var("llvm-objcopy"), "OFFKIT_LLVM_OBJCOPY");
    }

    #[test]
    fn env_var_wins_and_missing_is_named() {
        let env = Env::from_pairs(&[("OFFKIT_FROB", "/x/frob"), ("PATH", "/nonexistent")]);
        let f = ToolFinder::new(&env, None);
        assert_eq!(f.find("frob", None).unwrap(), PathBuf::from("/x/frob"));
        let err = f.find("no-such-tool-offkit", None).unwrap_err().to_string();
        assert!(err.contains("OFFKIT_NO_SUCH_TOOL_OFFKIT"), "{err}");
    }
}
