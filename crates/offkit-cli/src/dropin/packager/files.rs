//! Files as LLVM 19's packager sees them: `sys::path` name rules, and outputs written the way
//! `FileOutputBuffer` writes them (a temporary file in the same directory renamed into place,
//! mode 0666 less the umask; `-` is standard output; a device or pipe is written in place; a
//! directory is "Is a directory").

use std::io;
use std::path::Path;

pub use offkit_tools::fs::{Output, Outputs};

use crate::dropin::error::{Error, Result};

/// `sys::path::filename`: the last component; a path ending in `/` names `.`.
pub fn filename(path: &str) -> &str {
    if path.is_empty() {
        return "";
    }
    if path.ends_with('/') {
        // A root of only slashes is its own name.
        return if path.bytes().all(|b| b == b'/') {
            "/"
        } else {
            "."
        };
    }
    path.rsplit('/').next().unwrap_or(path)
}

/// `sys::path::extension`, without the dot (what the packager gives `getImageKind`).
pub fn extension(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return "";
    }
    match name.rfind('.') {
        Some(at) => &name[at + 1..],
        None => "",
    }
}

/// `sys::path::stem`: the file name without its last extension.
pub fn stem(path: &str) -> &str {
    let name = filename(path);
    if name == "." || name == ".." {
        return name;
    }
    match name.rfind('.') {
        Some(at) => &name[..at],
        None => name,
    }
}

/// Writes `data` to `path` as LLVM's `writeFile` helper does (through the one output path),
/// but the output joins `outs` and appears only when they are committed together
/// ([`commit`]): LLVM 19 leaves the files written before a failure, offkit none.
pub fn stage_file(outs: &mut Outputs, path: &str, data: &[u8]) -> Result {
    let mut out = Output::create(Path::new(path)).map_err(Error::Os)?;
    io::Write::write_all(&mut out, data).map_err(Error::Os)?;
    outs.push(out);
    Ok(())
}

/// Renames every output of `outs` into place.
pub fn commit(outs: Outputs) -> Result {
    outs.commit().map_err(|(_, e)| Error::Os(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_path_rules() {
        assert_eq!(extension("a/b.o"), "o");
        assert_eq!(extension("a.b/c"), "");
        assert_eq!(extension(".o"), "o");
        assert_eq!(extension("x."), "");
        assert_eq!(extension(".."), "");
        assert_eq!(extension("-"), "");
        assert_eq!(stem("dir/k.tar.gz"), "k.tar");
        assert_eq!(stem(".hidden"), "");
        assert_eq!(stem("-"), "-");
        assert_eq!(stem("a/"), ".");
        assert_eq!(filename("/"), "/");
    }

    #[test]
    fn outputs_appear_together_and_errors_are_llvms() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out");
        let mut outs = Outputs::default();
        stage_file(&mut outs, p.to_str().unwrap(), b"abc").unwrap();
        let message = |r: Result| r.unwrap_err().to_string();
        assert_eq!(
            message(stage_file(&mut outs, dir.path().to_str().unwrap(), b"x")),
            "Is a directory"
        );
        assert_eq!(
            message(stage_file(
                &mut outs,
                dir.path().join("no/x").to_str().unwrap(),
                b"x"
            )),
            "No such file or directory"
        );
        // Not committed: nothing appears.
        drop(outs);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut outs = Outputs::default();
        stage_file(&mut outs, p.to_str().unwrap(), b"abc").unwrap();
        assert!(!p.exists());
        commit(outs).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"abc");
    }
}
