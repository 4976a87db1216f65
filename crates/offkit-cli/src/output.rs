//! Writing outputs from the `offkit` subcommands: the one output path of
//! [`offkit_tools::fs::Output`] (whole files appear atomically, `-` is stdout, a device is
//! written in place), with the CLI's error context.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use offkit_tools::fs::Output;

/// Writes `bytes` to `path` through [`Output`]: a failure never leaves a partial output.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], with the contents produced by `fill` (which may stream).
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
        write_atomic(&p, b"whole").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"whole");
    }
}
