//! Thin archive members on files: the resolver through which the scanner
//! ([`offkit_format::scan`], which does no I/O) reads them, memory-mapped, from their own files,
//! and where their bytes are.

use std::path::{Path, PathBuf};

use offkit_format::scan::{Location, Resolver, Step};
use offkit_tools::MappedFile;

/// A mapped file as the scanner's resolver returns it.
struct Mapped(MappedFile);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Reads thin archive members relative to the directory of the archive that names them, as
/// `ar` and the linkers do.
#[derive(Debug, Default)]
pub struct ThinResolver;

/// The path of thin member `member` of the archive at `archive`: relative names are taken
/// from the archive's directory (a thin member that is itself a thin archive nests the
/// directories).
pub fn thin_member_path(archive: &Location, member: &str) -> PathBuf {
    let mut dir = PathBuf::new();
    for step in &archive.steps {
        match step {
            Step::File(f) => dir = parent(Path::new(f)),
            Step::ThinMember(m) => dir = parent(&dir.join(m)),
            _ => {}
        }
    }
    dir.join(member)
}

/// The file whose bytes the offsets of `location` (in the input `input`) count in: the input,
/// or the file of the innermost thin archive member on the way.
pub fn bytes_file(location: &Location, input: &Path) -> PathBuf {
    let steps = &location.steps;
    let thin = steps.iter().rposition(|s| matches!(s, Step::ThinMember(_)));
    match (thin, location.thin_member()) {
        (Some(at), Some(member)) => {
            let archive = Location {
                steps: steps.get(..at).unwrap_or_default().to_vec(),
            };
            thin_member_path(&archive, member)
        }
        _ => input.to_path_buf(),
    }
}

fn parent(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

impl Resolver for ThinResolver {
    fn thin_member(
        &mut self,
        archive: &Location,
        member: &str,
    ) -> std::io::Result<Box<dyn AsRef<[u8]>>> {
        let path = thin_member_path(archive, member);
        MappedFile::open(&path)
            .map(|m| Box::new(Mapped(m)) as Box<dyn AsRef<[u8]>>)
            .map_err(|e| std::io::Error::new(e.kind(), format!("`{}`: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thin_paths() {
        let l = Location::file("lib/libk.a");
        assert_eq!(thin_member_path(&l, "k.o"), Path::new("lib/k.o"));
        assert_eq!(thin_member_path(&l, "/abs/k.o"), Path::new("/abs/k.o"));
        let l = Location::file("libk.a");
        assert_eq!(thin_member_path(&l, "sub/k.o"), Path::new("sub/k.o"));
        let l = Location::file("a/libk.a").with(Step::ThinMember("b/inner.a".into()));
        assert_eq!(thin_member_path(&l, "k.o"), Path::new("a/b/k.o"));
    }
}
