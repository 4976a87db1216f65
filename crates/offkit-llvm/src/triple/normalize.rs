//! `Triple::normalize` of LLVM 19 and 22, step for step (the component permutation below is
//! subtle enough that it is kept in LLVM's shape rather than re-derived). 22 adds the
//! canonical forms ([`CanonicalForm`]: pad or cut to 3, 4 or 5 components) and takes an OS
//! component starting with `msys` as Cygwin.

use std::borrow::Cow;

use super::CanonicalForm;
use crate::version::LlvmVersion;

use super::kinds::{
    parse_arch, parse_environment, parse_format, parse_os, parse_vendor, Arch, Environment,
    ObjectFormat, Os, Vendor,
};

type Component<'a> = Cow<'a, [u8]>;

/// The result of LLVM's `VersionTuple::tryParse` (`major[.minor[.subminor[.build]]]`), with
/// its field widths (minor, subminor and build are 31-bit fields).
#[derive(Default)]
struct Version {
    major: u32,
    minor: Option<u32>,
    rest_nonzero: bool,
}

impl Version {
    fn is_empty(&self) -> bool {
        self.major == 0 && self.minor.unwrap_or(0) == 0 && !self.rest_nonzero
    }
}

/// `parseInt` of `VersionTuple.cpp`: one or more digits, wrapping like `unsigned`.
fn parse_int(input: &mut &[u8]) -> Option<u32> {
    let (&first, rest) = input.split_first()?;
    if !first.is_ascii_digit() {
        return None;
    }
    *input = rest;
    let mut value = u32::from(first - b'0');
    while let Some((&d, rest)) = input.split_first() {
        if !d.is_ascii_digit() {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u32::from(d - b'0'));
        *input = rest;
    }
    Some(value)
}

/// `VersionTuple::tryParse` followed by `withoutBuild`; `None` where LLVM's parse fails (the
/// tuple then stays empty).
fn try_parse_version(mut input: &[u8]) -> Option<Version> {
    const FIELD: u32 = 0x7fff_ffff;
    let major = parse_int(&mut input)?;
    let mut v = Version {
        major,
        ..Version::default()
    };
    if input.is_empty() {
        return Some(v);
    }
    let mut rest_fields = Vec::new();
    for field in 0..3 {
        input = input.strip_prefix(b".")?;
        let n = parse_int(&mut input)? & FIELD;
        if field == 0 {
            v.minor = Some(n);
        } else {
            rest_fields.push(n);
        }
        if input.is_empty() {
            break;
        }
    }
    if !input.is_empty() {
        return None;
    }
    // `withoutBuild` drops the fourth field.
    v.rest_nonzero = rest_fields.first().is_some_and(|&n| n != 0);
    Some(v)
}

/// `getDXILArchNameFromShaderModel`: the DXIL version a Shader Model OS component implies
/// (19 knows 1.0–1.8, 22 also 1.9, the latest of each being `shadermodel6.x`'s).
fn dxil_arch_from_shader_model(
    llvm: LlvmVersion,
    shader_model: &[u8],
) -> crate::Result<&'static str> {
    const ALL_NAMES: [&str; 10] = [
        "dxilv1.0", "dxilv1.1", "dxilv1.2", "dxilv1.3", "dxilv1.4", "dxilv1.5", "dxilv1.6",
        "dxilv1.7", "dxilv1.8", "dxilv1.9",
    ];
    let known = match llvm {
        LlvmVersion::V19 => 9,
        _ => 10,
    };
    let names = ALL_NAMES.get(..known).unwrap_or(&ALL_NAMES);
    let version = try_parse_version(shader_model.get(b"shadermodel".len()..).unwrap_or(&[]))
        .unwrap_or_default();
    if !version.is_empty() {
        if let (6, Some(minor)) = (version.major, version.minor) {
            return usize::try_from(minor)
                .ok()
                .and_then(|m| names.get(m).copied())
                .ok_or_else(|| crate::Error::Invalid {
                    what: "triple",
                    offset: 0,
                    reason: format!(
                        "unsupported Shader Model version `{}` (LLVM {llvm} aborts with \
                         `Unsupported Shader Model version`)",
                        String::from_utf8_lossy(shader_model)
                    ),
                });
        }
    } else if shader_model == b"shadermodel6.x" {
        return Ok(names.last().copied().unwrap_or("dxilv1.0"));
    }
    Ok("dxilv1.0")
}

/// One candidate move of `normalize`'s permutation loop: does `comp` parse as the component
/// for position `pos`? Updates the parsed values exactly as LLVM's loop does (including for
/// candidates that fail).
struct Parsed {
    arch: Arch,
    vendor: Vendor,
    os: Os,
    environment: Environment,
    object_format: ObjectFormat,
    is_mingw32: bool,
    is_cygwin: bool,
    /// LLVM 22 also takes `msys…` as Cygwin.
    msys_is_cygwin: bool,
    /// The release whose name tables apply.
    llvm: LlvmVersion,
}

impl Parsed {
    fn try_position(&mut self, pos: usize, comp: &[u8]) -> bool {
        match pos {
            0 => {
                self.arch = parse_arch(self.llvm, comp);
                self.arch != Arch::Unknown
            }
            1 => {
                self.vendor = parse_vendor(self.llvm, comp);
                self.vendor != Vendor::Unknown
            }
            2 => {
                self.os = parse_os(self.llvm, comp);
                self.is_cygwin = is_cygwin(comp, self.msys_is_cygwin);
                self.is_mingw32 = comp.starts_with(b"mingw");
                self.os != Os::Unknown || self.is_cygwin || self.is_mingw32
            }
            _ => {
                self.environment = parse_environment(self.llvm, comp);
                if self.environment != Environment::Unknown {
                    return true;
                }
                self.object_format = parse_format(comp);
                self.object_format != ObjectFormat::Unknown
            }
        }
    }
}

/// Moves the component at `idx` left to `pos`, pushing the non-fixed components in between
/// one place right (`a-b-i386` → `i386-a-b`).
fn insert_left(comps: &mut [Component<'_>], found: &[bool; 4], pos: usize, idx: usize) {
    let Some(moved) = comps.get_mut(idx) else {
        return;
    };
    let mut current = std::mem::take(moved);
    let mut i = pos;
    while !current.is_empty() {
        while i < 4 && found[i] {
            i += 1;
        }
        let Some(slot) = comps.get_mut(i) else { break };
        std::mem::swap(&mut current, slot);
        i += 1;
    }
}

/// Moves the component at `idx` right to `pos` by inserting empty components before it,
/// skipping fixed ones (`pc-a` → `-pc-a`).
fn push_right(comps: &mut Vec<Component<'_>>, found: &[bool; 4], pos: usize, mut idx: usize) {
    loop {
        let mut current: Component<'_> = Cow::Borrowed(&[]);
        let mut i = idx;
        while let Some(slot) = comps.get_mut(i) {
            std::mem::swap(&mut current, slot);
            if current.is_empty() {
                break;
            }
            i += 1;
            while i < 4 && found[i] {
                i += 1;
            }
        }
        if !current.is_empty() {
            comps.push(current);
        }
        idx += 1;
        while idx < 4 && found[idx] {
            idx += 1;
        }
        if idx >= pos {
            break;
        }
    }
}

/// Sets component `i`, growing the list with empty components first if needed (`resize`).
fn set(comps: &mut Vec<Component<'_>>, i: usize, value: &'static str) {
    if comps.len() <= i {
        comps.resize(i + 1, Cow::Borrowed(&[]));
    }
    comps[i] = Cow::Borrowed(value.as_bytes());
}

/// `IsCygwin` of an OS component.
fn is_cygwin(os: &[u8], msys: bool) -> bool {
    os.starts_with(b"cygwin") || (msys && os.starts_with(b"msys"))
}

pub(super) fn normalize(
    llvm: LlvmVersion,
    s: &[u8],
    form: CanonicalForm,
) -> crate::Result<Vec<u8>> {
    let mut comps: Vec<Component<'_>> = s.split(|&b| b == b'-').map(Cow::Borrowed).collect();
    let (mut p, mut found) = parse_in_place(llvm, &comps);
    permute(&mut comps, &mut p, &mut found);

    // "none" in the middle of a three-component triple is the OS, not the vendor.
    if found[0]
        && !found[1]
        && !found[2]
        && found[3]
        && comps.get(1).is_some_and(|c| c.as_ref() == b"none")
        && comps.get(2).is_some_and(|c| c.is_empty())
    {
        comps.swap(1, 2);
    }

    for c in comps.iter_mut() {
        if c.is_empty() {
            *c = Cow::Borrowed(b"unknown");
        }
    }

    if p.environment == Environment::Android {
        if let Some(version) = comps.get(3).and_then(|c| c.strip_prefix(b"androideabi")) {
            let mut env = b"android".to_vec();
            env.extend_from_slice(version);
            if let Some(slot) = comps.get_mut(3) {
                *slot = Cow::Owned(env);
            }
        }
    }

    // SUSE uses "gnueabi" to mean "gnueabihf".
    if p.vendor == Vendor::Suse && p.environment == Environment::GnuEabi {
        set(&mut comps, 3, "gnueabihf");
    }

    windows(&mut comps, &p);

    // DXIL without a version takes it from the Shader Model version.
    if comps.first().is_some_and(|c| c.as_ref() == b"dxil") {
        comps.truncate(4);
        if p.os == Os::ShaderModel {
            let sm = comps.get(2).map(|c| c.to_vec()).unwrap_or_default();
            set(&mut comps, 0, dxil_arch_from_shader_model(llvm, &sm)?);
        }
    }

    // LLVM 22's canonical forms (19 has only `Any`).
    if let Some(n) = form.components() {
        comps.resize(n, Cow::Borrowed(b"unknown"));
    }

    Ok(comps.join(&b'-'))
}

/// What each component parses as in its own position (a component that does stays there),
/// and which of the four positions are found.
fn parse_in_place(llvm: LlvmVersion, comps: &[Component<'_>]) -> (Parsed, [bool; 4]) {
    // `msys` is Cygwin from LLVM 20 on.
    let msys_is_cygwin = llvm >= LlvmVersion::V22;
    let mut p = Parsed {
        arch: comps.first().map_or(Arch::Unknown, |c| parse_arch(llvm, c)),
        vendor: comps
            .get(1)
            .map_or(Vendor::Unknown, |c| parse_vendor(llvm, c)),
        os: Os::Unknown,
        environment: comps
            .get(3)
            .map_or(Environment::Unknown, |c| parse_environment(llvm, c)),
        object_format: comps
            .get(4)
            .map_or(ObjectFormat::Unknown, |c| parse_format(c)),
        is_mingw32: false,
        is_cygwin: false,
        msys_is_cygwin,
        llvm,
    };
    if let Some(c) = comps.get(2) {
        p.os = parse_os(llvm, c);
        p.is_cygwin = is_cygwin(c, msys_is_cygwin);
        p.is_mingw32 = c.starts_with(b"mingw");
    }
    let found = [
        p.arch != Arch::Unknown,
        p.vendor != Vendor::Unknown,
        p.os != Os::Unknown,
        p.environment != Environment::Unknown,
    ];
    (p, found)
}

/// Moves the components that did not parse in place into the positions they parse as.
fn permute(comps: &mut Vec<Component<'_>>, p: &mut Parsed, found: &mut [bool; 4]) {
    for pos in 0..4 {
        if found[pos] {
            continue;
        }
        let mut idx = 0;
        while idx < comps.len() {
            if idx < 4 && found[idx] {
                idx += 1;
                continue;
            }
            let Some(candidate) = comps.get(idx).map(|c| c.to_vec()) else {
                break;
            };
            if !p.try_position(pos, &candidate) {
                idx += 1;
                continue;
            }
            if pos < idx {
                insert_left(comps, found, pos, idx);
            } else if pos > idx {
                push_right(comps, found, pos, idx);
            }
            found[pos] = true;
            break;
        }
    }
}

/// Windows environments: the OS `windows`, the environment `msvc`/`gnu`/`cygnus` (or the
/// object format's name), and a non-COFF object format as a fifth component.
fn windows(comps: &mut Vec<Component<'_>>, p: &Parsed) {
    if p.os == Os::Win32 {
        comps.resize(4, Cow::Borrowed(&[]));
        set(comps, 2, "windows");
        if p.environment == Environment::Unknown {
            let env = match p.object_format {
                ObjectFormat::Unknown | ObjectFormat::Coff => "msvc",
                f => f.name(),
            };
            set(comps, 3, env);
        }
    } else if p.is_mingw32 {
        comps.resize(4, Cow::Borrowed(&[]));
        set(comps, 2, "windows");
        set(comps, 3, "gnu");
    } else if p.is_cygwin {
        comps.resize(4, Cow::Borrowed(&[]));
        set(comps, 2, "windows");
        set(comps, 3, "cygnus");
    }
    if (p.is_mingw32 || p.is_cygwin || (p.os == Os::Win32 && p.environment != Environment::Unknown))
        && !matches!(p.object_format, ObjectFormat::Unknown | ObjectFormat::Coff)
    {
        comps.resize(5, Cow::Borrowed(&[]));
        set(comps, 4, p.object_format.name());
    }
}

#[cfg(test)]
mod tests {
    use super::normalize;
    use crate::triple::CanonicalForm;
    use crate::version::LlvmVersion::{V19, V22};

    fn n(s: &str) -> String {
        String::from_utf8(normalize(V19, s.as_bytes(), CanonicalForm::Any).unwrap()).unwrap()
    }

    #[test]
    fn llvm22_forms_and_msys() {
        let n22 = |s: &str, f| String::from_utf8(normalize(V22, s.as_bytes(), f).unwrap()).unwrap();
        assert_eq!(
            n22("amdgcn-amd-amdhsa-", CanonicalForm::ThreeIdent),
            "amdgcn-amd-amdhsa"
        );
        assert_eq!(
            n22("amdgcn-amd-amdhsa", CanonicalForm::FourIdent),
            "amdgcn-amd-amdhsa-unknown"
        );
        assert_eq!(
            n22("x86_64---", CanonicalForm::FourIdent),
            "x86_64-unknown-unknown-unknown"
        );
        assert_eq!(
            n22("x86_64-linux", CanonicalForm::FiveIdent),
            "x86_64-unknown-linux-unknown-unknown"
        );
        assert_eq!(
            n22("x86_64-pc-msys", CanonicalForm::Any),
            "x86_64-pc-windows-cygnus"
        );
        assert_eq!(n("x86_64-pc-msys"), "x86_64-pc-msys");
    }

    #[test]
    fn llvm_unit_test_cases() {
        // From LLVM's TripleTest.cpp (Normalization), as 19 behaves.
        assert_eq!(n(""), "unknown");
        assert_eq!(n("-"), "unknown-unknown");
        assert_eq!(n("--"), "unknown-unknown-unknown");
        assert_eq!(n("i386"), "i386");
        assert_eq!(n("i386-linux"), "i386-unknown-linux");
        assert_eq!(n("linux-i386"), "i386-unknown-linux");
        assert_eq!(n("pc-i386-linux"), "i386-pc-linux");
        assert_eq!(n("a-b-c-i386"), "i386-a-b-c");
        assert_eq!(n("a-pc-c-i386"), "i386-pc-a-c");
        assert_eq!(n("i386-pc-c-d"), "i386-pc-c-d");
        assert_eq!(n("x86_64-gnu-linux"), "x86_64-unknown-linux-gnu");
        assert_eq!(n("x86_64-linux-gnu"), "x86_64-unknown-linux-gnu");
        assert_eq!(n("i486-pc-mingw32"), "i486-pc-windows-gnu");
        assert_eq!(n("i386-pc-cygwin"), "i386-pc-windows-cygnus");
        assert_eq!(n("x86_64-pc-win32"), "x86_64-pc-windows-msvc");
        assert_eq!(n("x86_64-pc-win32-elf"), "x86_64-pc-windows-elf");
        assert_eq!(n("x86_64-pc-windows-gnu-elf"), "x86_64-pc-windows-gnu-elf");
        assert_eq!(n("armv7-linux-androideabi"), "armv7-unknown-linux-android");
        assert_eq!(
            n("armv7-linux-androideabi21"),
            "armv7-unknown-linux-android21"
        );
        assert_eq!(n("armv7-suse-linux-gnueabi"), "armv7-suse-linux-gnueabihf");
        assert_eq!(n("arm-none-eabi"), "arm-unknown-none-eabi");
        assert_eq!(
            n("dxil-shadermodel6.3-library"),
            "dxilv1.3-unknown-shadermodel6.3-library"
        );
        assert_eq!(
            n("dxil-pc-shadermodel6.x-compute"),
            "dxilv1.8-pc-shadermodel6.x-compute"
        );
        assert_eq!(
            n("dxil-pc-shadermodel5.0-compute"),
            "dxilv1.0-pc-shadermodel5.0-compute"
        );
        assert!(normalize(
            V19,
            b"dxil-unknown-shadermodel6.9-compute",
            CanonicalForm::Any
        )
        .is_err());
        assert_eq!(
            normalize(
                V22,
                b"dxil-unknown-shadermodel6.9-compute",
                CanonicalForm::Any
            )
            .unwrap(),
            b"dxilv1.9-unknown-shadermodel6.9-compute"
        );
        assert!(normalize(
            V22,
            b"dxil-unknown-shadermodel6.10-compute",
            CanonicalForm::Any
        )
        .is_err());
    }
}
