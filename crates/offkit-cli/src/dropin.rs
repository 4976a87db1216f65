//! The drop-in face: offkit run under the name of one of LLVM 19's offloading tools.
//!
//! Under these names offkit is LLVM 19 (STYLE.md "two faces"): the same command lines, the same
//! stdout and stderr, the same exit status and the same files on success. The only departures:
//! where LLVM 19 crashes or hangs offkit gives a clear error, and a failure never leaves a
//! partial output.
//!
//! One driver serves the four tools ([`cl::Tool`]: response files, diagnostics, `--help`,
//! `--version`, exit status); each tool module gives only its option table (or, for the linker
//! wrapper, `offkit-link`'s `OptTable` parser) and its action, and reports failures as one
//! [`error::Error`], which prints LLVM 19's text (`'x.o': No such file or directory`).

pub mod bundler;
pub mod cl;
pub mod error;
pub mod linker_wrapper;
pub mod packager;
pub mod wrapper;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use offkit_tools::Env;

/// The LLVM tools offkit can stand in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `clang-offload-packager`.
    Packager,
    /// `clang-offload-bundler`.
    Bundler,
    /// `clang-offload-wrapper` (the seed-002 tool).
    Wrapper,
    /// `clang-linker-wrapper`.
    LinkerWrapper,
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 4] = [
        Tool::Packager,
        Tool::Bundler,
        Tool::Wrapper,
        Tool::LinkerWrapper,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Packager => "clang-offload-packager",
            Tool::Bundler => "clang-offload-bundler",
            Tool::Wrapper => "clang-offload-wrapper",
            Tool::LinkerWrapper => "clang-linker-wrapper",
        }
    }

    /// The tool `argv[0]` names: its file name, optionally with a version suffix (`-19`) or
    /// `.exe`.
    pub fn from_argv0(argv0: &OsString) -> Option<Tool> {
        let name = Path::new(argv0).file_name()?.to_str()?;
        let name = name.strip_suffix(".exe").unwrap_or(name);
        let base = match name.rsplit_once('-') {
            Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => b,
            _ => name,
        };
        Tool::ALL.into_iter().find(|t| t.name() == base)
    }
}

/// Runs `tool` with the full argument vector (`args[0]` is the name it was invoked as).
pub fn run(tool: Tool, args: Vec<OsString>, env: &Env) -> ExitCode {
    match tool {
        Tool::Packager => packager::main(args, env),
        Tool::Bundler => bundler::main(args, env),
        Tool::Wrapper => wrapper::main(args, env),
        Tool::LinkerWrapper => linker_wrapper::main(args, env),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv0_names() {
        let t = |s: &str| Tool::from_argv0(&OsString::from(s));
        assert_eq!(t("/x/clang-offload-bundler"), Some(Tool::Bundler));
        assert_eq!(t("clang-offload-bundler-19"), Some(Tool::Bundler));
        assert_eq!(t("clang-linker-wrapper"), Some(Tool::LinkerWrapper));
        assert_eq!(t("clang-offload-wrapper.exe"), Some(Tool::Wrapper));
        assert_eq!(t("offkit"), None);
        assert_eq!(t("clang-offload-bundler-x"), None);
    }
}
