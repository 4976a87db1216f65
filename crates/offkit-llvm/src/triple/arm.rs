//! The part of LLVM 19's ARM target parser that `Triple` uses: `ARM::getCanonicalArchName`,
//! `parseArchISA`, `parseArchEndian`, `parseArch`, `parseArchProfile`, `parseArchVersion`
//! (`llvm/lib/TargetParser/ARMTargetParser{,Common}.cpp`) and `parseARMArch` of `Triple.cpp`.

use super::kinds::{Arch, SubArch};

/// `ARM::ArchKind`, in the order of LLVM 19's `ARMTargetParser.def` (the order matters:
/// [`parse_arch`] returns the first entry whose name *ends with* the synonym).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArmArch {
    /// `invalid`.
    Invalid,
    /// `armv4`.
    V4,
    /// `armv4t`.
    V4t,
    /// `armv5t`.
    V5t,
    /// `armv5te`.
    V5te,
    /// `armv5tej`.
    V5tej,
    /// `armv6`.
    V6,
    /// `armv6k`.
    V6k,
    /// `armv6t2`.
    V6t2,
    /// `armv6kz`.
    V6kz,
    /// `armv6-m`.
    V6m,
    /// `armv7-a`.
    V7a,
    /// `armv7ve`.
    V7ve,
    /// `armv7-r`.
    V7r,
    /// `armv7-m`.
    V7m,
    /// `armv7e-m`.
    V7em,
    /// `armv8-a`.
    V8a,
    /// `armv8.1-a`.
    V8_1a,
    /// `armv8.2-a`.
    V8_2a,
    /// `armv8.3-a`.
    V8_3a,
    /// `armv8.4-a`.
    V8_4a,
    /// `armv8.5-a`.
    V8_5a,
    /// `armv8.6-a`.
    V8_6a,
    /// `armv8.7-a`.
    V8_7a,
    /// `armv8.8-a`.
    V8_8a,
    /// `armv8.9-a`.
    V8_9a,
    /// `armv9-a`.
    V9a,
    /// `armv9.1-a`.
    V9_1a,
    /// `armv9.2-a`.
    V9_2a,
    /// `armv9.3-a`.
    V9_3a,
    /// `armv9.4-a`.
    V9_4a,
    /// `armv9.5-a`.
    V9_5a,
    /// `armv8-r`.
    V8r,
    /// `armv8-m.base`.
    V8mBaseline,
    /// `armv8-m.main`.
    V8mMainline,
    /// `armv8.1-m.main`.
    V8_1mMainline,
    /// `iwmmxt`.
    Iwmmxt,
    /// `iwmmxt2`.
    Iwmmxt2,
    /// `xscale`.
    Xscale,
    /// `armv7s`.
    V7s,
    /// `armv7k`.
    V7k,
}

/// `ARMArchNames`: the names of `ARMTargetParser.def` in its order.
const ARCH_NAMES: &[(&str, ArmArch)] = &[
    ("invalid", ArmArch::Invalid),
    ("armv4", ArmArch::V4),
    ("armv4t", ArmArch::V4t),
    ("armv5t", ArmArch::V5t),
    ("armv5te", ArmArch::V5te),
    ("armv5tej", ArmArch::V5tej),
    ("armv6", ArmArch::V6),
    ("armv6k", ArmArch::V6k),
    ("armv6t2", ArmArch::V6t2),
    ("armv6kz", ArmArch::V6kz),
    ("armv6-m", ArmArch::V6m),
    ("armv7-a", ArmArch::V7a),
    ("armv7ve", ArmArch::V7ve),
    ("armv7-r", ArmArch::V7r),
    ("armv7-m", ArmArch::V7m),
    ("armv7e-m", ArmArch::V7em),
    ("armv8-a", ArmArch::V8a),
    ("armv8.1-a", ArmArch::V8_1a),
    ("armv8.2-a", ArmArch::V8_2a),
    ("armv8.3-a", ArmArch::V8_3a),
    ("armv8.4-a", ArmArch::V8_4a),
    ("armv8.5-a", ArmArch::V8_5a),
    ("armv8.6-a", ArmArch::V8_6a),
    ("armv8.7-a", ArmArch::V8_7a),
    ("armv8.8-a", ArmArch::V8_8a),
    ("armv8.9-a", ArmArch::V8_9a),
    ("armv9-a", ArmArch::V9a),
    ("armv9.1-a", ArmArch::V9_1a),
    ("armv9.2-a", ArmArch::V9_2a),
    ("armv9.3-a", ArmArch::V9_3a),
    ("armv9.4-a", ArmArch::V9_4a),
    ("armv9.5-a", ArmArch::V9_5a),
    ("armv8-r", ArmArch::V8r),
    ("armv8-m.base", ArmArch::V8mBaseline),
    ("armv8-m.main", ArmArch::V8mMainline),
    ("armv8.1-m.main", ArmArch::V8_1mMainline),
    ("iwmmxt", ArmArch::Iwmmxt),
    ("iwmmxt2", ArmArch::Iwmmxt2),
    ("xscale", ArmArch::Xscale),
    ("armv7s", ArmArch::V7s),
    ("armv7k", ArmArch::V7k),
];

/// `ARM::getArchSynonym` (LLVM 19).
fn arch_synonym(arch: &[u8]) -> &[u8] {
    let syn: &str = match arch {
        b"v5" => "v5t",
        b"v5e" => "v5te",
        b"v6j" => "v6",
        b"v6hl" => "v6k",
        b"v6m" | b"v6sm" | b"v6s-m" => "v6-m",
        b"v6z" | b"v6zk" => "v6kz",
        b"v7" | b"v7a" | b"v7hl" | b"v7l" => "v7-a",
        b"v7r" => "v7-r",
        b"v7m" => "v7-m",
        b"v7em" => "v7e-m",
        b"v8" | b"v8a" | b"v8l" | b"aarch64" | b"arm64" => "v8-a",
        b"v8.1a" => "v8.1-a",
        b"v8.2a" => "v8.2-a",
        b"v8.3a" => "v8.3-a",
        b"v8.4a" => "v8.4-a",
        b"v8.5a" => "v8.5-a",
        b"v8.6a" => "v8.6-a",
        b"v8.7a" => "v8.7-a",
        b"v8.8a" => "v8.8-a",
        b"v8.9a" => "v8.9-a",
        b"v8r" => "v8-r",
        b"v9" | b"v9a" => "v9-a",
        b"v9.1a" => "v9.1-a",
        b"v9.2a" => "v9.2-a",
        b"v9.3a" => "v9.3-a",
        b"v9.4a" => "v9.4-a",
        b"v9.5a" => "v9.5-a",
        b"v8m.base" => "v8-m.base",
        b"v8m.main" => "v8-m.main",
        b"v8.1m.main" => "v8.1-m.main",
        _ => return arch,
    };
    syn.as_bytes()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `ARM::getCanonicalArchName`: the architecture name without its `arm`/`thumb`/`aarch64`
/// prefix and endianness marker, or empty when the name is malformed.
pub(crate) fn canonical_arch_name(arch: &[u8]) -> &[u8] {
    let mut a = arch;
    let mut offset: Option<usize> = None;
    if a.starts_with(b"arm64_32") {
        offset = Some(8);
    } else if a.starts_with(b"arm64e") {
        offset = Some(6);
    } else if a.starts_with(b"arm64") {
        offset = Some(5);
    } else if a.starts_with(b"aarch64_32") {
        offset = Some(10);
    } else if a.starts_with(b"arm") {
        offset = Some(3);
    } else if a.starts_with(b"thumb") {
        offset = Some(5);
    } else if a.starts_with(b"aarch64") {
        // AArch64 uses "_be", not "eb".
        if contains(a, b"eb") {
            return b"";
        }
        offset = Some(if a.get(7..).is_some_and(|r| r.starts_with(b"_be")) {
            10
        } else {
            7
        });
    }
    match offset {
        // "armebv7": skip the "eb" after the prefix.
        Some(o) if a.get(o..).is_some_and(|r| r.starts_with(b"eb")) => offset = Some(o + 2),
        // Or, if it ends with "eb" ("armv7eb"), chop it off.
        _ => {
            if let Some(rest) = a.strip_suffix(b"eb") {
                a = rest;
            }
        }
    }
    if let Some(o) = offset {
        a = a.get(o..).unwrap_or(b"");
    }
    // Nothing left after the prefix: valid as written.
    if a.is_empty() {
        return arch;
    }
    if offset.is_some() {
        // Only 'vN' names after a prefix; no marketing names, no second "eb".
        if a.len() >= 2 && (a[0] != b'v' || !a[1].is_ascii_digit()) {
            return b"";
        }
        if contains(a, b"eb") {
            return b"";
        }
    }
    a
}

/// `ARM::parseArch`: canonicalize, take the synonym, and return the first table entry whose
/// name ends with it.
pub(crate) fn parse_arch(arch: &[u8]) -> ArmArch {
    let syn = arch_synonym(canonical_arch_name(arch));
    ARCH_NAMES
        .iter()
        .find(|(name, _)| name.as_bytes().ends_with(syn))
        .map_or(ArmArch::Invalid, |&(_, k)| k)
}

/// `ARM::ProfileKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    Invalid,
    A,
    R,
    M,
}

impl ArmArch {
    /// `parseArchVersion`'s result for this kind.
    fn version(self) -> u32 {
        use ArmArch::*;
        match self {
            V4 | V4t => 4,
            V5t | V5te | Iwmmxt | Iwmmxt2 | Xscale | V5tej => 5,
            V6 | V6k | V6t2 | V6kz | V6m => 6,
            V7a | V7ve | V7r | V7m | V7s | V7em | V7k => 7,
            V8a | V8_1a | V8_2a | V8_3a | V8_4a | V8_5a | V8_6a | V8_7a | V8_8a | V8_9a | V8r
            | V8mBaseline | V8mMainline | V8_1mMainline => 8,
            V9a | V9_1a | V9_2a | V9_3a | V9_4a | V9_5a => 9,
            Invalid => 0,
        }
    }

    fn profile(self) -> Profile {
        use ArmArch::*;
        match self {
            V6m | V7m | V7em | V8mMainline | V8mBaseline | V8_1mMainline => Profile::M,
            V7r | V8r => Profile::R,
            V7a | V7ve | V7k | V8a | V8_1a | V8_2a | V8_3a | V8_4a | V8_5a | V8_6a | V8_7a
            | V8_8a | V8_9a | V9a | V9_1a | V9_2a | V9_3a | V9_4a | V9_5a => Profile::A,
            _ => Profile::Invalid,
        }
    }

    /// The triple sub-architecture of this kind (`parseSubArch`'s ARM switch).
    pub(crate) fn sub_arch(self) -> SubArch {
        use ArmArch::*;
        match self {
            V4 | Invalid => SubArch::None,
            V4t => SubArch::ArmV4t,
            V5t => SubArch::ArmV5,
            V5te | Iwmmxt | Iwmmxt2 | Xscale | V5tej => SubArch::ArmV5te,
            V6 => SubArch::ArmV6,
            V6k | V6kz => SubArch::ArmV6k,
            V6t2 => SubArch::ArmV6t2,
            V6m => SubArch::ArmV6m,
            V7a | V7r => SubArch::ArmV7,
            V7ve => SubArch::ArmV7ve,
            V7k => SubArch::ArmV7k,
            V7m => SubArch::ArmV7m,
            V7s => SubArch::ArmV7s,
            V7em => SubArch::ArmV7em,
            V8a => SubArch::ArmV8,
            V8_1a => SubArch::ArmV8_1a,
            V8_2a => SubArch::ArmV8_2a,
            V8_3a => SubArch::ArmV8_3a,
            V8_4a => SubArch::ArmV8_4a,
            V8_5a => SubArch::ArmV8_5a,
            V8_6a => SubArch::ArmV8_6a,
            V8_7a => SubArch::ArmV8_7a,
            V8_8a => SubArch::ArmV8_8a,
            V8_9a => SubArch::ArmV8_9a,
            V9a => SubArch::ArmV9,
            V9_1a => SubArch::ArmV9_1a,
            V9_2a => SubArch::ArmV9_2a,
            V9_3a => SubArch::ArmV9_3a,
            V9_4a => SubArch::ArmV9_4a,
            V9_5a => SubArch::ArmV9_5a,
            V8r => SubArch::ArmV8r,
            V8mBaseline => SubArch::ArmV8mBaseline,
            V8mMainline => SubArch::ArmV8mMainline,
            V8_1mMainline => SubArch::ArmV8_1mMainline,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Isa {
    Invalid,
    Arm,
    Thumb,
    Aarch64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Endian {
    Invalid,
    Little,
    Big,
}

fn parse_isa(arch: &[u8]) -> Isa {
    if arch.starts_with(b"aarch64") || arch.starts_with(b"arm64") {
        Isa::Aarch64
    } else if arch.starts_with(b"thumb") {
        Isa::Thumb
    } else if arch.starts_with(b"arm") {
        Isa::Arm
    } else {
        Isa::Invalid
    }
}

fn parse_endian(arch: &[u8]) -> Endian {
    if arch.starts_with(b"armeb") || arch.starts_with(b"thumbeb") || arch.starts_with(b"aarch64_be")
    {
        return Endian::Big;
    }
    if arch.starts_with(b"arm") || arch.starts_with(b"thumb") {
        return if arch.ends_with(b"eb") {
            Endian::Big
        } else {
            Endian::Little
        };
    }
    if arch.starts_with(b"aarch64") {
        return Endian::Little;
    }
    Endian::Invalid
}

/// `parseARMArch` of `Triple.cpp`: the architecture of an `arm*`/`thumb*`/`aarch64*` name
/// that is not one of the plain spellings.
pub(crate) fn parse_arm_arch(name: &[u8]) -> Arch {
    let isa = parse_isa(name);
    let endian = parse_endian(name);
    let arch = match (endian, isa) {
        (Endian::Little, Isa::Arm) => Arch::Arm,
        (Endian::Little, Isa::Thumb) => Arch::Thumb,
        (Endian::Little, Isa::Aarch64) => Arch::Aarch64,
        (Endian::Big, Isa::Arm) => Arch::Armeb,
        (Endian::Big, Isa::Thumb) => Arch::Thumbeb,
        (Endian::Big, Isa::Aarch64) => Arch::Aarch64Be,
        _ => Arch::Unknown,
    };
    let canonical = canonical_arch_name(name);
    if canonical.is_empty() {
        return Arch::Unknown;
    }
    // Thumb only exists in v4 and later.
    if isa == Isa::Thumb && (canonical.starts_with(b"v2") || canonical.starts_with(b"v3")) {
        return Arch::Unknown;
    }
    // v6-M is Thumb only.
    let kind = parse_arch(canonical);
    if kind.profile() == Profile::M && kind.version() == 6 {
        return if endian == Endian::Big {
            Arch::Thumbeb
        } else {
            Arch::Thumb
        };
    }
    arch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_arch_name(b"armv7a"), b"v7a");
        assert_eq!(canonical_arch_name(b"armebv7"), b"v7");
        assert_eq!(canonical_arch_name(b"armv7eb"), b"v7");
        assert_eq!(canonical_arch_name(b"arm"), b"arm");
        assert_eq!(canonical_arch_name(b"aarch64_be"), b"aarch64_be");
        assert_eq!(canonical_arch_name(b"aarch64eb"), b"");
        assert_eq!(canonical_arch_name(b"armxyz"), b"");
        assert_eq!(canonical_arch_name(b"armx"), b"x");
        assert_eq!(canonical_arch_name(b"xscale"), b"xscale");
        assert_eq!(canonical_arch_name(b"eb"), b"eb");
    }

    #[test]
    fn arch_kinds() {
        assert_eq!(parse_arch(b"armv7a"), ArmArch::V7a);
        assert_eq!(parse_arch(b"armv8.2a"), ArmArch::V8_2a);
        assert_eq!(parse_arch(b"thumbv8m.main"), ArmArch::V8mMainline);
        assert_eq!(parse_arch(b"armv9.6a"), ArmArch::Invalid);
        assert_eq!(parse_arch(b"arm64"), ArmArch::V8a);
        assert_eq!(parse_arm_arch(b"armv7eb"), Arch::Armeb);
        assert_eq!(parse_arm_arch(b"armv6m"), Arch::Thumb);
        assert_eq!(parse_arm_arch(b"armebv6m"), Arch::Thumbeb);
        assert_eq!(parse_arm_arch(b"aarch64_bev8"), Arch::Aarch64Be);
        assert_eq!(parse_arm_arch(b"armv2"), Arch::Arm);
        assert_eq!(parse_arm_arch(b"thumbv2"), Arch::Unknown);
    }
}
