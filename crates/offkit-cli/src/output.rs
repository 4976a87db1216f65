//! Writing outputs from the `offkit` subcommands: the one output path of
//! [`offkit_tools::fs::Output`] (whole files appear atomically, `-` is stdout, a device is
//! written in place), with the CLI's error context.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use offkit_tools::fs::Output;

/// Writes to `path` through [`Output`] what `fill` produces (it may stream): a failure never
/// leaves a partial output.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let context = || format!("failed to write `{}`", path.display());
    let mut out = Output::create(path).with_context(context)?;
    {
        let mut w = io::BufWriter::with_capacity(1 << 20, &mut out);
        fill(&mut w).with_context(context)?;
        w.flush().with_context(context)?;
    }
    out.commit().with_context(context)
}

/// `3 files`, `1 file`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An error already printed (with [`print_error`]): the command only has to exit 1.
#[derive(Debug)]
pub struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the error was reported")
    }
}

impl std::error::Error for Reported {}

/// The result of a command over several inputs of which `failed` could not be read (each
/// reported already): with more than one input, an error that says how many.
pub fn inputs_failed(failed: usize, inputs: usize) -> Result<()> {
    match (failed, inputs) {
        (0, _) => Ok(()),
        (_, 1) => Err(Reported.into()),
        _ => bail!("{failed} of {inputs} inputs could not be read"),
    }
}

/// Whether `err` comes from a closed stdout (a broken pipe is quiet, STYLE.md).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Prints `error: …` and the numbered `Caused by:` chain on stderr.
pub fn print_error(err: &anyhow::Error) {
    let mut s = format!("error: {err}\n");
    let causes: Vec<_> = err.chain().skip(1).collect();
    if !causes.is_empty() {
        s.push_str("\nCaused by:\n");
        for (i, c) in causes.iter().enumerate() {
            s.push_str(&format!("    {i}: {c}\n"));
        }
    }
    let _ = io::stderr().lock().write_all(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_nothing_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.bin");
        let err = write_atomic_with(&p, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        });
        assert!(err.is_err());
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        write_atomic_with(&p, |w| w.write_all(b"whole")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"whole");
    }
}
