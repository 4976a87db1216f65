//! [`InputName`]: how every offkit crate names an input in its messages — a file, or a member
//! of an archive (`libdev.a(kern.o)`, as linkers write it).

use std::fmt;
use std::path::PathBuf;

/// An input file, or a member of an archive: `libdev.a(kern.o)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputName {
    /// The file as found (the command-line word, or the library search result).
    pub file: PathBuf,
    /// The archive member, if the input is one.
    pub member: Option<String>,
}

impl InputName {
    /// A plain file.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        InputName {
            file: path.into(),
            member: None,
        }
    }

    /// The member `member` of the archive `archive`.
    pub fn member(archive: impl Into<PathBuf>, member: impl Into<String>) -> Self {
        InputName {
            file: archive.into(),
            member: Some(member.into()),
        }
    }
}

impl fmt::Display for InputName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.member {
            Some(m) => write!(f, "{}({m})", self.file.display()),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_linkers_do() {
        assert_eq!(InputName::file("k.o").to_string(), "k.o");
        assert_eq!(
            InputName::member("/l/libdev.a", "kern.o").to_string(),
            "/l/libdev.a(kern.o)"
        );
    }
}
