//! What LLVM delegates to `llvm-objcopy` (adding bundle sections to a host object, removing
//! them to extract the host object), and its temporary files.

use std::io::Write;
use std::path::{Path, PathBuf};

use offkit_tools::ToolInvocation;

use super::{write_error, Config, Event, Events};
use crate::{Error, Result};

/// A temporary file named as LLVM names them (`clang-offload-bundler-XXXXXX.tmp` in the
/// configured directory), deleted when dropped.
pub(super) struct TempFile {
    file: tempfile::NamedTempFile,
}

impl TempFile {
    /// Creates one, optionally with `contents`. The name has six random lowercase hex digits,
    /// like LLVM's `%%%%%%` model.
    pub(super) fn create(cfg: &Config, contents: Option<&[u8]>) -> Result<TempFile> {
        use std::hash::{BuildHasher, Hasher};
        let dir = &cfg.tmpdir;
        let mut attempt = 0u32;
        let mut file = loop {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(attempt);
            let name = format!("clang-offload-bundler-{:06x}", h.finish() & 0xff_ffff);
            match tempfile::Builder::new()
                .prefix(&name)
                .suffix(".tmp")
                .rand_bytes(0)
                .tempfile_in(dir)
            {
                Ok(f) => break f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 128 => {
                    attempt += 1
                }
                Err(e) => return Err(write_error(dir)(e)),
            }
        };
        if let Some(c) = contents {
            let path = file.path().to_path_buf();
            file.write_all(c).map_err(write_error(&path))?;
            file.flush().map_err(write_error(&path))?;
        }
        Ok(TempFile { file })
    }

    /// Its path.
    pub(super) fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Runs `llvm-objcopy args…` (its output and diagnostics pass through, as
/// `sys::ExecuteAndWait` lets them), or with `-###` reports it instead.
pub(super) fn execute(cfg: &Config, args: &[String], events: &mut Events<'_>) -> Result<()> {
    if cfg.print_commands {
        events(Event::Command {
            program: &cfg.objcopy,
            args,
        });
        return Ok(());
    }
    ToolInvocation::new(&cfg.objcopy)
        .args(args)
        .run_inherit()
        .map_err(|source| Error::ObjcopyFailed { source })
}

/// The host object without its bundle sections, as LLVM extracts it: `llvm-objcopy --regex
/// --remove-section=__CLANG_OFFLOAD_BUNDLE__.* -- <input> <tmp>`, then the bytes of `<tmp>`.
/// `member` holds the object's bytes when it is an archive member (written to a temporary file
/// first); otherwise the input path is used as given.
pub(super) fn host_bundle(
    cfg: &Config,
    member: Option<&[u8]>,
    events: &mut Events<'_>,
) -> Result<Vec<u8>> {
    let out = TempFile::create(cfg, None)?;
    let staged = match member {
        Some(bytes) => Some(TempFile::create(cfg, Some(bytes))?),
        None => None,
    };
    let input: PathBuf = match &staged {
        Some(t) => t.path().to_path_buf(),
        None => cfg.input(),
    };
    execute(
        cfg,
        &[
            "--regex".into(),
            "--remove-section=__CLANG_OFFLOAD_BUNDLE__.*".into(),
            "--".into(),
            input.display().to_string(),
            out.path().display().to_string(),
        ],
        events,
    )?;
    std::fs::read(out.path()).map_err(|source| Error::ObjcopyOutput {
        path: out.path().to_path_buf(),
        source,
    })
}
