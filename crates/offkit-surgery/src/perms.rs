//! The mode a rewritten file gets: its own (rewritten in place, ownership too), or, written
//! elsewhere, the input's less the umask, as `cp` gives it (a pruned executable stays
//! executable).

use std::io;
use std::os::unix::fs::PermissionsExt;

use offkit_tools::fs::AtomicFile;

/// How a rewritten file gets its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perms {
    /// The destination's own mode and ownership (rewriting a file in place).
    KeepDest,
    /// The input's mode (its permission bits) less the umask, as `cp` gives a copy.
    LikeInput(u32),
}

impl Perms {
    /// The permissions for an output of the input whose metadata is `input`: [`Perms::KeepDest`]
    /// in place, otherwise [`Perms::LikeInput`].
    pub fn of(input: &std::fs::Metadata, in_place: bool) -> Perms {
        if in_place {
            Perms::KeepDest
        } else {
            Perms::LikeInput(input.permissions().mode())
        }
    }

    /// Gives the temporary file of `out` its mode (and, in place, the destination's owner).
    pub fn apply(self, out: &mut AtomicFile) -> io::Result<()> {
        match self {
            Perms::KeepDest => {
                out.keep_permissions_of_dest()?;
                if let Ok(m) = std::fs::metadata(out.dest()) {
                    use std::os::unix::fs::MetadataExt;
                    // Only root may give a file away; for anyone else the owner is already
                    // theirs.
                    let _ = std::os::unix::fs::fchown(out.file(), Some(m.uid()), Some(m.gid()));
                }
                Ok(())
            }
            Perms::LikeInput(mode) => {
                let created = out.file().metadata()?.permissions().mode();
                let mode = mode & 0o777 & !umask(created);
                out.file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
            }
        }
    }
}

/// The process's umask: from `/proc/self/status` (reading it does not change it, unlike
/// `umask(2)`), or else worked out from the mode `created` a file made with 0666 got (the
/// execute bits masked as the read bits are).
fn umask(created: u32) -> u32 {
    let from_proc = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        });
    from_proc.unwrap_or_else(|| {
        let rw = 0o666 & !created & 0o666;
        rw | ((rw & 0o444) >> 2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn umask_read_or_worked_out() {
        // Either way, a file made with 0666 has that mode less the umask.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"").unwrap();
        let created = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(0o666 & !umask(created), created);
    }
}
