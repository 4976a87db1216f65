//! Which LLVM release offkit stands in for: a value handed down from the face that chose it.
//!
//! Under an LLVM tool's name offkit *is* one LLVM release, chosen by the user once (the shims'
//! `--llvm`, `OFFKIT_LLVM`, or a `-19`/`-22` suffix of the tool's name). Each concept that
//! differs between releases keeps its differences in one place — one table or one `match` on
//! an [`LlvmVersion`] — instead of `if version` tests scattered through the code.
//!
//! The releases are the ones Debian ships, which the conformance tests compare against byte for
//! byte: 19.1.7 (Debian 12) and 22.1.8 (Debian 13).
//!
//! ```
//! use offkit_llvm::version::LlvmVersion;
//!
//! let v: LlvmVersion = "22".parse().unwrap();
//! assert_eq!(v.major(), 22);
//! assert_eq!(v.release(), "22.1.8");
//! assert!("20".parse::<LlvmVersion>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;

/// An LLVM release offkit stands in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LlvmVersion {
    /// LLVM 19.1.7, as Debian 12 (bookworm) ships it.
    V19,
    /// LLVM 22.1.8, as Debian 13 (trixie) ships it.
    V22,
}

impl LlvmVersion {
    /// Every release, oldest first.
    pub const ALL: [LlvmVersion; 2] = [LlvmVersion::V19, LlvmVersion::V22];

    /// The release a face is when the user chose none. LLVM 19 stays the default: a build that
    /// worked keeps working, and nothing in a tool's command line alone says which release
    /// the compiler that runs it is.
    pub const DEFAULT: LlvmVersion = LlvmVersion::V19;

    /// The newest release offkit knows. offkit's own commands (`offkit check`, `prune`,
    /// `--device`) accept everything it knows: processors, offload-arch names, kinds.
    pub const NEWEST: LlvmVersion = LlvmVersion::V22;

    /// The major version number (19, 22).
    pub fn major(self) -> u32 {
        match self {
            LlvmVersion::V19 => 19,
            LlvmVersion::V22 => 22,
        }
    }

    /// The release with major version `major`, if offkit stands in for it.
    pub fn from_major(major: u32) -> Option<LlvmVersion> {
        LlvmVersion::ALL.into_iter().find(|v| v.major() == major)
    }

    /// The full release number (`19.1.7`).
    pub fn release(self) -> &'static str {
        match self {
            LlvmVersion::V19 => "19.1.7",
            LlvmVersion::V22 => "22.1.8",
        }
    }

    /// Debian's package revision of the release, which the tools print in `--version`
    /// (`Debian clang-offload-bundler version 19.1.7 (3~deb12u1)`).
    pub fn debian_revision(self) -> &'static str {
        match self {
            LlvmVersion::V19 => "3~deb12u1",
            LlvmVersion::V22 => "1~deb13u5",
        }
    }

    /// Where Debian installs the release (`/usr/lib/llvm-19`): the last place the linker
    /// wrapper looks for the tools it runs.
    pub fn debian_prefix(self) -> &'static str {
        match self {
            LlvmVersion::V19 => "/usr/lib/llvm-19",
            LlvmVersion::V22 => "/usr/lib/llvm-22",
        }
    }
}

/// The releases that know something (a processor, a name, a flag): from `since` up to, not
/// including, `until`. Tables keep one row per thing with this as a column, instead of one
/// table per release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Releases {
    /// The first release that knows it.
    pub since: LlvmVersion,
    /// The first release that no longer knows it, if any does.
    pub until: Option<LlvmVersion>,
}

impl Releases {
    /// Every release.
    pub const ALL: Releases = Releases {
        since: LlvmVersion::V19,
        until: None,
    };
    /// New in LLVM 22 (added in 20 or 21; offkit stands in for no release between).
    pub const SINCE_22: Releases = Releases {
        since: LlvmVersion::V22,
        until: None,
    };
    /// LLVM 19's, gone by 22.
    pub const UNTIL_22: Releases = Releases {
        since: LlvmVersion::V19,
        until: Some(LlvmVersion::V22),
    };

    /// Whether release `llvm` knows it.
    pub fn contains(self, llvm: LlvmVersion) -> bool {
        llvm >= self.since && self.until.is_none_or(|u| llvm < u)
    }
}

impl Default for LlvmVersion {
    fn default() -> Self {
        LlvmVersion::DEFAULT
    }
}

impl fmt::Display for LlvmVersion {
    /// The major version number, as a user gives it (`22`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.major())
    }
}

/// A version that offkit does not stand in for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not an LLVM version offkit stands in for (it knows 19 and 22)")]
pub struct UnknownVersion {
    /// What was given.
    pub given: String,
}

impl FromStr for LlvmVersion {
    type Err = UnknownVersion;

    /// `19` or `22`; a full release number (`22.1.8`) or `llvm-22` is taken by its major.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.strip_prefix("llvm-").unwrap_or(t);
        let major = t.split('.').next().unwrap_or("");
        major
            .parse()
            .ok()
            .and_then(LlvmVersion::from_major)
            .ok_or_else(|| UnknownVersion { given: s.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for v in LlvmVersion::ALL {
            assert_eq!(v.to_string().parse::<LlvmVersion>(), Ok(v));
            assert_eq!(v.release().parse::<LlvmVersion>(), Ok(v));
        }
        assert_eq!("llvm-22".parse::<LlvmVersion>(), Ok(LlvmVersion::V22));
        for bad in ["", "18", "20", "x", "2 2", "-19"] {
            assert!(bad.parse::<LlvmVersion>().is_err(), "{bad}");
        }
        assert_eq!(LlvmVersion::default(), LlvmVersion::V19);
        assert!(LlvmVersion::V19 < LlvmVersion::V22);
        assert_eq!(LlvmVersion::ALL.last(), Some(&LlvmVersion::NEWEST));
        assert!(Releases::UNTIL_22.contains(LlvmVersion::V19));
        assert!(!Releases::UNTIL_22.contains(LlvmVersion::V22));
        assert!(!Releases::SINCE_22.contains(LlvmVersion::V19));
        assert!(Releases::ALL.contains(LlvmVersion::V22));
    }
}
