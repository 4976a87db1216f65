//! Writing outputs: whole files appear atomically (temp file + rename), `-` is stdout, and
//! binary data is never written to a terminal.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use offkit_tools::AtomicFile;

/// Writes `bytes` to `path` atomically (see [`offkit_tools::AtomicFile`]): a failure never
/// leaves a partial output.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], with the contents produced by `fill` (which may stream).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let context = || format!("failed to write `{}`", path.display());
    let mut file = AtomicFile::create(path).with_context(context)?;
    {
        let mut w = io::BufWriter::with_capacity(1 << 20, file.file());
        fill(&mut w).with_context(context)?;
        w.flush().with_context(context)?;
    }
    file.commit().with_context(context)
}

/// Writes binary `bytes` to stdout, refusing a terminal.
pub fn write_stdout_binary(bytes: &[u8]) -> Result<()> {
    let out = io::stdout();
    if out.is_terminal() {
        bail!("refusing to write binary data to a terminal; redirect stdout or give `-o FILE`");
    }
    let mut lock = out.lock();
    lock.write_all(bytes)?;
    lock.flush()?;
    Ok(())
}

/// Writes `bytes` to `path`, or to stdout when `path` is `-`.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        write_stdout_binary(bytes)
    } else {
        write_atomic(path, bytes)
    }
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
