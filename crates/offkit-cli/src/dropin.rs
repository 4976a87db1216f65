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

pub mod arch;
pub mod bundler;
pub mod cl;
pub mod error;
pub mod linker_wrapper;
pub mod nvlink_wrapper;
pub mod objdump;
pub mod offload_wrapper;
pub mod packager;
pub mod wrapper;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use offkit_llvm::LlvmVersion;
use offkit_tools::Env;

/// The environment variable that chooses the LLVM version of every drop-in face (`19`, `22`),
/// over the shims' choice.
pub const VERSION_VAR: &str = "OFFKIT_LLVM";

/// The file `offkit shims --llvm N DIR` writes in DIR: the version of the faces run through the
/// links in DIR.
pub const SHIM_MARKER: &str = ".offkit-llvm";

/// The LLVM tools offkit can stand in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `clang-offload-packager` (in LLVM 22, the old name of `llvm-offload-binary`).
    Packager,
    /// `llvm-offload-binary` (LLVM 22).
    OffloadBinary,
    /// `clang-offload-bundler`.
    Bundler,
    /// `clang-offload-wrapper` (AMD's image-info registration tool; no LLVM release ships it,
    /// so every face has it).
    Wrapper,
    /// `llvm-offload-wrapper` (LLVM 22).
    OffloadWrapper,
    /// `clang-linker-wrapper`.
    LinkerWrapper,
    /// `clang-nvlink-wrapper`.
    NvlinkWrapper,
    /// `offload-arch` (LLVM 22).
    OffloadArch,
    /// `amdgpu-arch`.
    AmdgpuArch,
    /// `nvptx-arch`.
    NvptxArch,
    /// `llvm-objdump`, for `--offloading` only (clang never runs it, so `offkit shims` links it
    /// only when asked: [`Tool::linked_by_default`]).
    Objdump,
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 11] = [
        Tool::Packager,
        Tool::OffloadBinary,
        Tool::Bundler,
        Tool::Wrapper,
        Tool::OffloadWrapper,
        Tool::LinkerWrapper,
        Tool::NvlinkWrapper,
        Tool::OffloadArch,
        Tool::AmdgpuArch,
        Tool::NvptxArch,
        Tool::Objdump,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Packager => "clang-offload-packager",
            Tool::OffloadBinary => "llvm-offload-binary",
            Tool::Bundler => "clang-offload-bundler",
            Tool::Wrapper => "clang-offload-wrapper",
            Tool::OffloadWrapper => "llvm-offload-wrapper",
            Tool::LinkerWrapper => "clang-linker-wrapper",
            Tool::NvlinkWrapper => "clang-nvlink-wrapper",
            Tool::OffloadArch => "offload-arch",
            Tool::AmdgpuArch => "amdgpu-arch",
            Tool::NvptxArch => "nvptx-arch",
            Tool::Objdump => "llvm-objdump",
        }
    }

    /// Whether `version` of LLVM ships the tool (Debian's `llvm-N`/`clang-tools-N` packages);
    /// `clang-offload-wrapper` is offkit's own in every version.
    pub fn ships_in(self, version: LlvmVersion) -> bool {
        match self {
            Tool::OffloadBinary | Tool::OffloadWrapper | Tool::OffloadArch => {
                version >= LlvmVersion::V22
            }
            Tool::Packager
            | Tool::Bundler
            | Tool::Wrapper
            | Tool::LinkerWrapper
            | Tool::NvlinkWrapper
            | Tool::AmdgpuArch
            | Tool::NvptxArch
            | Tool::Objdump => true,
        }
    }

    /// Whether `offkit shims` links the tool without being asked: every tool clang runs.
    /// `llvm-objdump` is not one (a shim directory in front of LLVM's `bin/` must not take
    /// `llvm-objdump -d` away from it): `offkit shims --with-objdump` links it.
    pub fn linked_by_default(self) -> bool {
        self != Tool::Objdump
    }

    /// The tools a face of `version` answers to that `offkit shims` links by default.
    pub fn shipped_in(version: LlvmVersion) -> impl Iterator<Item = Tool> {
        Tool::ALL
            .into_iter()
            .filter(move |t| t.ships_in(version) && t.linked_by_default())
    }

    /// The tool `argv[0]` names, and the version its name asks for: its file name, optionally
    /// with a version suffix (`-19`, `-22`; any other number is taken as no choice) or `.exe`.
    pub fn from_argv0(argv0: &OsStr) -> Option<(Tool, Option<LlvmVersion>)> {
        let name = Path::new(argv0).file_name()?.to_str()?;
        let name = name.strip_suffix(".exe").unwrap_or(name);
        let (base, suffix) = match name.rsplit_once('-') {
            Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => {
                (b, v.parse().ok().and_then(LlvmVersion::from_major))
            }
            _ => (name, None),
        };
        Tool::ALL
            .into_iter()
            .find(|t| t.name() == base)
            .map(|t| (t, suffix))
    }
}

/// Where a face's LLVM version came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The tool's name ends in the version (`clang-offload-bundler-22`).
    Name,
    /// [`VERSION_VAR`].
    Environment,
    /// The [`SHIM_MARKER`] of the directory the tool was run from.
    Shims(PathBuf),
    /// Nothing chose: [`LlvmVersion::DEFAULT`].
    Default,
}

/// A drop-in face: a tool as one LLVM version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Face {
    /// The tool.
    pub tool: Tool,
    /// The LLVM version it is.
    pub version: LlvmVersion,
    /// What chose the version.
    pub choice: Choice,
}

impl Face {
    /// The face `argv[0]` runs, if it names a tool: the version from the name's suffix, else
    /// from [`VERSION_VAR`], else from the shims' marker beside `argv[0]` (found on `PATH` when
    /// `argv[0]` has no directory), else the default. A value of [`VERSION_VAR`] or of the
    /// marker that names no version offkit knows is an error.
    pub fn from_invocation(argv0: &OsStr, env: &Env) -> Option<Result<Face, String>> {
        let (tool, suffix) = Tool::from_argv0(argv0)?;
        let face = |version, choice| Face {
            tool,
            version,
            choice,
        };
        if let Some(v) = suffix {
            return Some(Ok(face(v, Choice::Name)));
        }
        if let Some(v) = env.get_os(VERSION_VAR).filter(|v| !v.is_empty()) {
            let v = v.to_string_lossy();
            return Some(
                v.parse()
                    .map(|v| face(v, Choice::Environment))
                    .map_err(|e| format!("{VERSION_VAR}={v}: {e}")),
            );
        }
        if let Some(marker) = shim_dir(argv0, env).map(|d| d.join(SHIM_MARKER)) {
            if let Ok(text) = std::fs::read_to_string(&marker) {
                return Some(
                    text.parse()
                        .map(|v| face(v, Choice::Shims(marker.clone())))
                        .map_err(|e| format!("{}: {e}", marker.display())),
                );
            }
        }
        Some(Ok(face(LlvmVersion::DEFAULT, Choice::Default)))
    }

    /// How the user makes this tool's face another version: the words of an error's hint.
    pub fn how_to_choose(&self, version: LlvmVersion) -> String {
        match &self.choice {
            Choice::Name => format!("run it as `{}-{version}`", self.tool.name()),
            Choice::Environment => format!("set {VERSION_VAR}={version}"),
            Choice::Shims(_) | Choice::Default => format!(
                "make the shims with `offkit shims --llvm {version} DIR` (or set \
                 {VERSION_VAR}={version})"
            ),
        }
    }
}

/// The directory `argv[0]` was found in: its own directory, or the first `PATH` entry holding
/// a file of its name.
fn shim_dir(argv0: &OsStr, env: &Env) -> Option<PathBuf> {
    let path = Path::new(argv0);
    if path.components().count() > 1 {
        return path.parent().map(Path::to_path_buf);
    }
    let dirs = env.get_os("PATH")?;
    std::env::split_paths(dirs).find(|d| d.join(path).exists())
}

/// Runs the face with the full argument vector (`args[0]` is the name it was invoked as).
pub fn run(face: &Face, args: Vec<OsString>, env: &Env) -> ExitCode {
    if !face.tool.ships_in(face.version) {
        let first = LlvmVersion::ALL
            .into_iter()
            .find(|v| face.tool.ships_in(*v))
            .unwrap_or(LlvmVersion::DEFAULT);
        eprintln!(
            "offkit: error: {} is a tool of LLVM {first} and later; this face is LLVM {}: {}",
            face.tool.name(),
            face.version,
            face.how_to_choose(first)
        );
        return ExitCode::from(1);
    }
    match face.tool {
        Tool::Packager | Tool::OffloadBinary => packager::main(face, args, env),
        Tool::Bundler => bundler::main(face, args, env),
        Tool::Wrapper => wrapper::main(face, args, env),
        Tool::OffloadWrapper => offload_wrapper::main(face, args, env),
        Tool::LinkerWrapper => linker_wrapper::main(face, args, env),
        Tool::NvlinkWrapper => nvlink_wrapper::main(face, args, env),
        Tool::OffloadArch | Tool::AmdgpuArch | Tool::NvptxArch => arch::main(face, args, env),
        Tool::Objdump => objdump::main(face, args, env),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv0_names() {
        let t = |s: &str| Tool::from_argv0(OsStr::new(s));
        assert_eq!(t("/x/clang-offload-bundler"), Some((Tool::Bundler, None)));
        assert_eq!(
            t("clang-offload-bundler-19"),
            Some((Tool::Bundler, Some(LlvmVersion::V19)))
        );
        assert_eq!(
            t("llvm-offload-binary-22"),
            Some((Tool::OffloadBinary, Some(LlvmVersion::V22)))
        );
        assert_eq!(t("clang-offload-bundler-18"), Some((Tool::Bundler, None)));
        assert_eq!(t("clang-linker-wrapper"), Some((Tool::LinkerWrapper, None)));
        assert_eq!(t("clang-offload-wrapper.exe"), Some((Tool::Wrapper, None)));
        assert_eq!(t("offload-arch"), Some((Tool::OffloadArch, None)));
        assert_eq!(
            t("/usr/bin/llvm-objdump-22"),
            Some((Tool::Objdump, Some(LlvmVersion::V22)))
        );
        assert_eq!(t("offkit"), None);
        assert_eq!(t("clang-offload-bundler-x"), None);
    }

    #[test]
    fn version_choice() {
        let dir = tempfile::tempdir().unwrap();
        let argv0 = dir.path().join("clang-offload-bundler");
        let face = |argv0: &Path, env: &[(&str, &str)]| {
            Face::from_invocation(argv0.as_os_str(), &Env::from_pairs(env))
                .unwrap()
                .map(|f| (f.version, f.choice))
        };
        assert_eq!(face(&argv0, &[]), Ok((LlvmVersion::V19, Choice::Default)));
        std::fs::write(dir.path().join(SHIM_MARKER), "22\n").unwrap();
        let marker = Choice::Shims(dir.path().join(SHIM_MARKER));
        assert_eq!(face(&argv0, &[]), Ok((LlvmVersion::V22, marker.clone())));
        // Found on PATH when argv[0] is a bare name.
        std::fs::write(&argv0, "").unwrap();
        let path = dir.path().to_str().unwrap();
        assert_eq!(
            face(Path::new("clang-offload-bundler"), &[("PATH", path)]),
            Ok((LlvmVersion::V22, marker))
        );
        assert_eq!(
            face(&argv0, &[(VERSION_VAR, "19")]),
            Ok((LlvmVersion::V19, Choice::Environment))
        );
        assert_eq!(
            face(
                &dir.path().join("clang-offload-bundler-19"),
                &[(VERSION_VAR, "22")]
            ),
            Ok((LlvmVersion::V19, Choice::Name))
        );
        assert!(face(&argv0, &[(VERSION_VAR, "20")]).is_err());
    }
}
