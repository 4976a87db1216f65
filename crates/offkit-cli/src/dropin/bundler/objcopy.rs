//! What LLVM 19 delegates to `llvm-objcopy` (adding bundle sections to a host object, removing
//! them to extract the host object), its temporary files, and the verbose timer report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use offkit_tools::ToolInvocation;

use super::{error, file_error, Ctx, Run};

/// A temporary file named as LLVM names them (`clang-offload-bundler-XXXXXX.tmp` in
/// `$TMPDIR`), deleted when dropped.
pub struct TempFile {
    file: tempfile::NamedTempFile,
}

impl TempFile {
    /// Creates one, optionally with `contents`. The name has six random lowercase hex digits,
    /// like LLVM's `%%%%%%` model.
    pub fn create(ctx: &Ctx<'_>, contents: Option<&[u8]>) -> Run<TempFile> {
        use std::hash::{BuildHasher, Hasher};
        let dir = ctx.tmpdir();
        let mut attempt = 0u32;
        let mut file = loop {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u32(attempt);
            let name = format!("clang-offload-bundler-{:06x}", h.finish() & 0xff_ffff);
            match tempfile::Builder::new()
                .prefix(&name)
                .suffix(".tmp")
                .rand_bytes(0)
                .tempfile_in(&dir)
            {
                Ok(f) => break f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 128 => {
                    attempt += 1
                }
                Err(e) => return Err(file_error(&dir, e)),
            }
        };
        if let Some(c) = contents {
            file.write_all(c).map_err(|e| file_error(file.path(), e))?;
            file.flush().map_err(|e| file_error(file.path(), e))?;
        }
        Ok(TempFile { file })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

/// Runs `llvm-objcopy args…`, or with `-###` prints it to stderr instead (every argument
/// double-quoted, the program by its full path).
pub fn execute(ctx: &Ctx<'_>, args: &[String]) -> Run {
    if ctx.cfg.print_commands {
        let mut line = format!("\"{}\"", ctx.objcopy.display());
        for a in args {
            line.push_str(&format!(" \"{a}\""));
        }
        eprintln!("{line}");
        return Ok(());
    }
    // Its output and diagnostics pass through, as `sys::ExecuteAndWait` lets them.
    ToolInvocation::new(&ctx.objcopy)
        .args(args)
        .run_inherit()
        .map_err(|_| error("'llvm-objcopy' tool failed"))
}

/// The host object without its bundle sections, as LLVM 19 extracts it: `llvm-objcopy
/// --regex --remove-section=__CLANG_OFFLOAD_BUNDLE__.* -- <input> <tmp>`, then the bytes of
/// `<tmp>`. `member` holds the object's bytes when it is an archive member (written to a
/// temporary file first); otherwise the input path is used as given.
pub fn host_bundle(ctx: &Ctx<'_>, member: Option<&[u8]>) -> Run<Vec<u8>> {
    let out = TempFile::create(ctx, None)?;
    let staged = match member {
        Some(bytes) => Some(TempFile::create(ctx, Some(bytes))?),
        None => None,
    };
    let input: PathBuf = match &staged {
        Some(t) => t.path().to_path_buf(),
        None => PathBuf::from(ctx.cfg.inputs.first().cloned().unwrap_or_default()),
    };
    execute(
        ctx,
        &[
            "--regex".into(),
            "--remove-section=__CLANG_OFFLOAD_BUNDLE__.*".into(),
            "--".into(),
            input.display().to_string(),
            out.path().display().to_string(),
        ],
    )?;
    std::fs::read(out.path()).map_err(|_| error("Failed to read back the modified object file"))
}

/// The timers the verbose mode reports at exit: `(name, wall time)`.
static TIMERS: Mutex<Vec<(&'static str, Duration)>> = Mutex::new(Vec::new());

/// Records a timer for the exit report.
pub fn record_timer(name: &'static str, d: Duration) {
    if let Ok(mut t) = TIMERS.lock() {
        t.push((name, d));
    }
}

/// Prints LLVM's timer group report ("Timer group for clang offload bundler") if any timer ran.
/// Only wall time is measured; it stands in for user and system time too.
pub fn print_timers() {
    let timers = TIMERS.lock().map(|t| t.clone()).unwrap_or_default();
    if timers.is_empty() {
        return;
    }
    let total: f64 = timers.iter().map(|(_, d)| d.as_secs_f64()).sum();
    let pct = |v: f64| if total > 0.0 { v / total * 100.0 } else { 0.0 };
    let mut s = String::new();
    s.push_str("===-------------------------------------------------------------------------===\n");
    s.push_str("                     Timer group for clang offload bundler\n");
    s.push_str("===-------------------------------------------------------------------------===\n");
    s.push_str(&format!(
        "  Total Execution Time: {total:.4} seconds ({total:.4} wall clock)\n\n"
    ));
    s.push_str(
        "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---\n",
    );
    let mut sorted = timers.clone();
    sorted.sort_by_key(|t| std::cmp::Reverse(t.1));
    for (name, d) in sorted
        .iter()
        .map(|(n, d)| (*n, d.as_secs_f64()))
        .chain([("Total", total)])
    {
        let cell = format!("{d:>9.4} ({:>5.1}%)", pct(d));
        s.push_str(&format!("{cell}{cell}{cell}{cell}  {name}\n"));
    }
    s.push('\n');
    eprint!("{s}");
}
