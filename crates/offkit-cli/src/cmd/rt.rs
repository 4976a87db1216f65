//! `offkit rt`: where offkit's runtime libraries (`libomptarget.so.19.1`, `.so.22.1`) are, found
//! next to the running `offkit`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use offkit_tools::Env;

/// The runtime libraries, by SONAME: LLVM 19's and LLVM 22's (docs/runtime.md).
pub const LIBRARIES: [&str; 2] = ["libomptarget.so.19.1", "libomptarget.so.22.1"];

/// Show where offkit's runtime libraries are.
///
/// The runtime (`crates/offkit-rt`) is `libomptarget.so.19.1` for programs built by clang-19 and
/// `libomptarget.so.22.1` for clang-22's, in one directory found next to this `offkit`: its own
/// directory (a cargo build: `target/<profile>/`), or `../lib/offkit` beside the `bin/` it is in
/// (the wheel, `pip install offkit`; a prefix install). `cargo install` installs the binary
/// only: copy the two libraries of a `cargo build --release -p offkit-rt` into `<root>/lib/offkit`.
/// Without `--libdir`, prints the path of each library.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  LD_LIBRARY_PATH=$(offkit rt --libdir) ./a.out\n  \
                        clang-22 -fopenmp --offload-arch=native p.c -L$(offkit rt --libdir) \
                        -l:libomptarget.so.22.1"
)]
pub struct Args {
    /// Print only the directory holding the libraries.
    #[arg(long)]
    libdir: bool,
}

/// Where the libraries may be for an `offkit` at `exe`, in the order looked at.
pub fn candidates(exe: &Path) -> Vec<PathBuf> {
    let Some(dir) = exe.parent() else {
        return Vec::new();
    };
    let mut out = vec![dir.to_path_buf()];
    if let Some(prefix) = dir.parent() {
        out.push(prefix.join("lib").join("offkit"));
    }
    out
}

/// The first of `dirs` that holds every runtime library.
pub fn find(dirs: &[PathBuf]) -> Option<&PathBuf> {
    dirs.iter()
        .find(|d| LIBRARIES.iter().all(|l| d.join(l).is_file()))
}

/// Runs `offkit rt`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("failed to find the offkit executable")?;
    let dirs = candidates(&exe);
    let Some(dir) = find(&dirs) else {
        let looked: Vec<String> = dirs.iter().map(|d| format!("`{}`", d.display())).collect();
        bail!(
            "the runtime libraries ({}) are not next to `{}`: looked in {}; `cargo install` \
             installs the binary only (copy the libraries of `cargo build --release -p offkit-rt` \
             into the last of those), the wheel has them (`pip install offkit`)",
            LIBRARIES.join(", "),
            exe.display(),
            looked.join(" and ")
        );
    };
    if args.libdir {
        println!("{}", dir.display());
    } else {
        for l in LIBRARIES {
            println!("{}", dir.join(l).display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let t = tempfile::tempdir().unwrap();
        let (bin, lib) = (t.path().join("bin"), t.path().join("lib/offkit"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        let dirs = candidates(&bin.join("offkit"));
        assert_eq!(dirs, [bin.clone(), lib.clone()]);
        assert_eq!(find(&dirs), None);
        // The wheel's layout: bin/offkit and lib/offkit/.
        for l in LIBRARIES {
            std::fs::write(lib.join(l), b"").unwrap();
        }
        assert_eq!(find(&dirs), Some(&lib));
        // A cargo build's: the libraries beside the binary win.
        for l in LIBRARIES {
            std::fs::write(bin.join(l), b"").unwrap();
        }
        assert_eq!(find(&dirs), Some(&bin));
    }
}
