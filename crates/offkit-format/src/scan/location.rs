//! Where something is: a path of steps from the input file down through archive members,
//! sections, offload binaries and bundle entries, written like `libk.a(k.o):.llvm.offloading[1]`.

use std::fmt;

use crate::error::Error;

/// One step of a [`Location`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// The input file, as the caller named it.
    File(String),
    /// A member of a static archive: `(name)`.
    Member(String),
    /// A member of a thin archive, read from its own file: `(name)`; offsets below it are in
    /// that file.
    ThinMember(String),
    /// A section of an object file: `:name`.
    Section(String),
    /// The n-th offload binary image of a section or file, from 0: `[n]`.
    Binary(usize),
    /// The n-th bundle of a sequence of bundles (a `.hip_fatbin` section, a bundle file), from
    /// 0: `[n]`.
    Bundle(usize),
    /// A bundle entry: `:id` after a [`Step::Bundle`], else `[id]`.
    BundleEntry(String),
    /// A global of an LLVM bitcode module (`@llvm.embedded.object`): `:@name`.
    Global(String),
    /// The inflated contents of a compressed bundle or offload binary: not shown in the path;
    /// offsets below it are in the inflated data.
    Inflated,
    /// Bytes decoded from a bitcode array constant (stored bit-packed): not shown in the path;
    /// offsets below it are in the decoded bytes.
    Decoded,
}

/// A path from an input file to something inside it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Location {
    /// The steps, outermost first; the first is normally [`Step::File`].
    pub steps: Vec<Step>,
}

impl Location {
    /// The location of the input file `name`.
    pub fn file(name: impl Into<String>) -> Self {
        Location {
            steps: vec![Step::File(name.into())],
        }
    }

    /// This location plus one step.
    pub fn with(&self, step: Step) -> Self {
        let mut l = self.clone();
        l.steps.push(step);
        l
    }

    /// Whether offsets at this location are in inflated data (not in any file).
    pub fn is_inflated(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Inflated))
    }

    /// Whether offsets at this location are in bytes decoded from bitcode (not in any file).
    pub fn is_decoded(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Decoded))
    }

    /// Whether offsets at this location count in a file (the input or a thin member's).
    pub fn in_file(&self) -> bool {
        !self.is_inflated() && !self.is_decoded()
    }

    /// The thin-archive member file whose bytes this location is in, if any (offsets are in
    /// that file).
    pub fn thin_member(&self) -> Option<&str> {
        self.steps.iter().rev().find_map(|s| match s {
            Step::ThinMember(m) => Some(m.as_str()),
            _ => None,
        })
    }

    /// Wraps an error found here into [`Error::Within`], unless this is the input file itself
    /// (the caller names that) or the error already says where it is.
    pub(crate) fn wrap(&self, e: Error) -> Error {
        if self.steps.len() <= 1 || matches!(e, Error::Within { .. }) {
            return e;
        }
        let mut location = self.to_string();
        if self.is_inflated() {
            location.push_str(" (offsets are in the inflated data)");
        } else if self.is_decoded() {
            location.push_str(" (offsets are in the bytes decoded from the bitcode constant)");
        } else if let Some(m) = self.thin_member() {
            location.push_str(&format!(" (offsets are in the thin archive member `{m}`)"));
        }
        Error::Within {
            location,
            source: Box::new(e),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut after_bundle = false;
        for s in &self.steps {
            if matches!(s, Step::Inflated | Step::Decoded) {
                continue;
            }
            let was = std::mem::replace(&mut after_bundle, matches!(s, Step::Bundle(_)));
            match s {
                Step::BundleEntry(id) if was => write!(f, ":{id}")?,
                Step::File(n) => f.write_str(n)?,
                Step::Member(n) | Step::ThinMember(n) => write!(f, "({n})")?,
                Step::Section(n) => write!(f, ":{n}")?,
                Step::Binary(i) | Step::Bundle(i) => write!(f, "[{i}]")?,
                Step::BundleEntry(id) => write!(f, "[{id}]")?,
                Step::Global(n) => write!(f, ":@{n}")?,
                Step::Inflated | Step::Decoded => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let l = Location::file("libk.a")
            .with(Step::Member("k.o".into()))
            .with(Step::Section(".llvm.offloading".into()))
            .with(Step::Binary(1));
        assert_eq!(l.to_string(), "libk.a(k.o):.llvm.offloading[1]");
        let l = Location::file("a.out")
            .with(Step::Section(".hip_fatbin".into()))
            .with(Step::Inflated)
            .with(Step::BundleEntry("hip-amdgcn-amd-amdhsa--gfx90a".into()));
        assert_eq!(
            l.to_string(),
            "a.out:.hip_fatbin[hip-amdgcn-amd-amdhsa--gfx90a]"
        );
        assert!(l.is_inflated());
        let l = Location::file("librocsparse.so")
            .with(Step::Section(".hip_fatbin".into()))
            .with(Step::Bundle(17))
            .with(Step::Inflated)
            .with(Step::BundleEntry("hipv4-amdgcn-amd-amdhsa--gfx90a".into()));
        assert_eq!(
            l.to_string(),
            "librocsparse.so:.hip_fatbin[17]:hipv4-amdgcn-amd-amdhsa--gfx90a"
        );
        let e = l.wrap(Error::BadMagic {
            what: "x",
            offset: 0,
        });
        assert!(e.to_string().contains("inflated"), "{e}");
        // The file itself is not wrapped.
        assert!(matches!(
            Location::file("f").wrap(Error::BadMagic {
                what: "x",
                offset: 0
            }),
            Error::BadMagic { .. }
        ));
    }
}
