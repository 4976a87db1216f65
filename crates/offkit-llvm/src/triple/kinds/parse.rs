//! The functions that parse one component of a triple into its enumeration (`parseArch`,
//! `parseSubArch`, `parseVendor`, `parseOS`, `parseEnvironment`, `parseFormat`), with their
//! name tables (each row with the releases that know it), for LLVM 19 and 22.

use super::super::arm;
use super::{Arch, Environment, ObjectFormat, Os, SubArch, Vendor};
use crate::version::{LlvmVersion, Releases};

/// The first entry of `table` whose pattern `matches` `s` (LLVM's `StringSwitch`, which stops
/// at the first matching case).
fn first_match<T: Copy>(
    s: &[u8],
    table: &[(&str, T)],
    matches: fn(&[u8], &[u8]) -> bool,
) -> Option<T> {
    table
        .iter()
        .find(|(p, _)| matches(s, p.as_bytes()))
        .map(|&(_, v)| v)
}

/// [`first_match`] over the rows of a table that release `llvm` has.
fn first_match_in<T: Copy>(
    llvm: LlvmVersion,
    s: &[u8],
    table: &[(&str, T, Releases)],
    matches: fn(&[u8], &[u8]) -> bool,
) -> Option<T> {
    table
        .iter()
        .find(|(p, _, r)| r.contains(llvm) && matches(s, p.as_bytes()))
        .map(|&(_, v, _)| v)
}

const ALL: Releases = Releases::ALL;
const NEW22: Releases = Releases::SINCE_22;
const OLD19: Releases = Releases::UNTIL_22;

fn exact(s: &[u8], p: &[u8]) -> bool {
    s == p
}

fn prefix(s: &[u8], p: &[u8]) -> bool {
    s.starts_with(p)
}

fn suffix(s: &[u8], p: &[u8]) -> bool {
    s.ends_with(p)
}

/// `parseArch`'s exact-match table, in LLVM 19's order.
const ARCH_NAMES: &[(&str, Arch, Releases)] = &[
    ("i386", Arch::X86, ALL),
    ("i486", Arch::X86, ALL),
    ("i586", Arch::X86, ALL),
    ("i686", Arch::X86, ALL),
    ("i786", Arch::X86, ALL),
    ("i886", Arch::X86, ALL),
    ("i986", Arch::X86, ALL),
    ("amd64", Arch::X86_64, ALL),
    ("x86_64", Arch::X86_64, ALL),
    ("x86_64h", Arch::X86_64, ALL),
    ("powerpc", Arch::Ppc, ALL),
    ("powerpcspe", Arch::Ppc, ALL),
    ("ppc", Arch::Ppc, ALL),
    ("ppc32", Arch::Ppc, ALL),
    ("powerpcle", Arch::Ppcle, ALL),
    ("ppcle", Arch::Ppcle, ALL),
    ("ppc32le", Arch::Ppcle, ALL),
    ("powerpc64", Arch::Ppc64, ALL),
    ("ppu", Arch::Ppc64, ALL),
    ("ppc64", Arch::Ppc64, ALL),
    ("powerpc64le", Arch::Ppc64le, ALL),
    ("ppc64le", Arch::Ppc64le, ALL),
    ("xscale", Arch::Arm, ALL),
    ("xscaleeb", Arch::Armeb, ALL),
    ("aarch64", Arch::Aarch64, ALL),
    ("aarch64_be", Arch::Aarch64Be, ALL),
    ("aarch64_32", Arch::Aarch64_32, ALL),
    ("aarch64_lfi", Arch::Aarch64, NEW22),
    ("arc", Arch::Arc, ALL),
    ("arm64", Arch::Aarch64, ALL),
    ("arm64_32", Arch::Aarch64_32, ALL),
    ("arm64e", Arch::Aarch64, ALL),
    ("arm64ec", Arch::Aarch64, ALL),
    ("arm", Arch::Arm, ALL),
    ("armeb", Arch::Armeb, ALL),
    ("thumb", Arch::Thumb, ALL),
    ("thumbeb", Arch::Thumbeb, ALL),
    ("avr", Arch::Avr, ALL),
    ("m68k", Arch::M68k, ALL),
    ("msp430", Arch::Msp430, ALL),
    ("mips", Arch::Mips, ALL),
    ("mipseb", Arch::Mips, ALL),
    ("mipsallegrex", Arch::Mips, ALL),
    ("mipsisa32r6", Arch::Mips, ALL),
    ("mipsr6", Arch::Mips, ALL),
    ("mipsel", Arch::Mipsel, ALL),
    ("mipsallegrexel", Arch::Mipsel, ALL),
    ("mipsisa32r6el", Arch::Mipsel, ALL),
    ("mipsr6el", Arch::Mipsel, ALL),
    ("mips64", Arch::Mips64, ALL),
    ("mips64eb", Arch::Mips64, ALL),
    ("mipsn32", Arch::Mips64, ALL),
    ("mipsisa64r6", Arch::Mips64, ALL),
    ("mips64r6", Arch::Mips64, ALL),
    ("mipsn32r6", Arch::Mips64, ALL),
    ("mips64el", Arch::Mips64el, ALL),
    ("mipsn32el", Arch::Mips64el, ALL),
    ("mipsisa64r6el", Arch::Mips64el, ALL),
    ("mips64r6el", Arch::Mips64el, ALL),
    ("mipsn32r6el", Arch::Mips64el, ALL),
    ("r600", Arch::R600, ALL),
    ("amdgcn", Arch::Amdgcn, ALL),
    ("riscv32", Arch::Riscv32, ALL),
    ("riscv64", Arch::Riscv64, ALL),
    ("riscv32be", Arch::Riscv32be, NEW22),
    ("riscv64be", Arch::Riscv64be, NEW22),
    ("hexagon", Arch::Hexagon, ALL),
    ("s390x", Arch::Systemz, ALL),
    ("systemz", Arch::Systemz, ALL),
    ("sparc", Arch::Sparc, ALL),
    ("sparcel", Arch::Sparcel, ALL),
    ("sparcv9", Arch::Sparcv9, ALL),
    ("sparc64", Arch::Sparcv9, ALL),
    ("tce", Arch::Tce, ALL),
    ("tcele", Arch::Tcele, ALL),
    ("xcore", Arch::Xcore, ALL),
    ("nvptx", Arch::Nvptx, ALL),
    ("nvptx64", Arch::Nvptx64, ALL),
    ("le32", Arch::Le32, OLD19),
    ("le64", Arch::Le64, OLD19),
    ("amdil", Arch::Amdil, ALL),
    ("amdil64", Arch::Amdil64, ALL),
    ("hsail", Arch::Hsail, ALL),
    ("hsail64", Arch::Hsail64, ALL),
    ("spir", Arch::Spir, ALL),
    ("spir64", Arch::Spir64, ALL),
    ("spirv", Arch::Spirv, ALL),
    ("spirv1.5", Arch::Spirv, ALL),
    ("spirv1.6", Arch::Spirv, ALL),
    ("spirv32", Arch::Spirv32, ALL),
    ("spirv32v1.0", Arch::Spirv32, ALL),
    ("spirv32v1.1", Arch::Spirv32, ALL),
    ("spirv32v1.2", Arch::Spirv32, ALL),
    ("spirv32v1.3", Arch::Spirv32, ALL),
    ("spirv32v1.4", Arch::Spirv32, ALL),
    ("spirv32v1.5", Arch::Spirv32, ALL),
    ("spirv32v1.6", Arch::Spirv32, ALL),
    ("spirv64", Arch::Spirv64, ALL),
    ("spirv64v1.0", Arch::Spirv64, ALL),
    ("spirv64v1.1", Arch::Spirv64, ALL),
    ("spirv64v1.2", Arch::Spirv64, ALL),
    ("spirv64v1.3", Arch::Spirv64, ALL),
    ("spirv64v1.4", Arch::Spirv64, ALL),
    ("spirv64v1.5", Arch::Spirv64, ALL),
    ("spirv64v1.6", Arch::Spirv64, ALL),
];

/// `parseArch`'s table after the `StartsWith("kalimba")` case, in LLVM 19's order.
const ARCH_NAMES_AFTER_KALIMBA: &[(&str, Arch, Releases)] = &[
    ("lanai", Arch::Lanai, ALL),
    ("renderscript32", Arch::Renderscript32, ALL),
    ("renderscript64", Arch::Renderscript64, ALL),
    ("shave", Arch::Shave, ALL),
    ("ve", Arch::Ve, ALL),
    ("wasm32", Arch::Wasm32, ALL),
    ("wasm64", Arch::Wasm64, ALL),
    ("csky", Arch::Csky, ALL),
    ("loongarch32", Arch::Loongarch32, ALL),
    ("loongarch64", Arch::Loongarch64, ALL),
    ("dxil", Arch::Dxil, ALL),
    ("dxilv1.0", Arch::Dxil, ALL),
    ("dxilv1.1", Arch::Dxil, ALL),
    ("dxilv1.2", Arch::Dxil, ALL),
    ("dxilv1.3", Arch::Dxil, ALL),
    ("dxilv1.4", Arch::Dxil, ALL),
    ("dxilv1.5", Arch::Dxil, ALL),
    ("dxilv1.6", Arch::Dxil, ALL),
    ("dxilv1.7", Arch::Dxil, ALL),
    ("dxilv1.8", Arch::Dxil, ALL),
    ("dxilv1.9", Arch::Dxil, NEW22),
    ("xtensa", Arch::Xtensa, ALL),
];

/// `parseBPFArch`: `bpf` is the host's endianness (little here, as on every host offkit
/// supports).
fn parse_bpf_arch(name: &[u8]) -> Arch {
    match name {
        b"bpf" | b"bpf_le" | b"bpfel" => Arch::Bpfel,
        b"bpf_be" | b"bpfeb" => Arch::Bpfeb,
        _ => Arch::Unknown,
    }
}

/// `parseArch` of release `llvm`: the architecture of a triple's first component.
pub(crate) fn parse_arch(llvm: LlvmVersion, name: &[u8]) -> Arch {
    let found = first_match_in(llvm, name, ARCH_NAMES, exact)
        .or_else(|| name.starts_with(b"kalimba").then_some(Arch::Kalimba))
        .or_else(|| first_match_in(llvm, name, ARCH_NAMES_AFTER_KALIMBA, exact));
    match found {
        Some(arch) => arch,
        None if name.starts_with(b"arm")
            || name.starts_with(b"thumb")
            || name.starts_with(b"aarch64") =>
        {
            arm::parse_arm_arch(name)
        }
        None if name.starts_with(b"bpf") => parse_bpf_arch(name),
        None => Arch::Unknown,
    }
}

const VENDOR_NAMES: &[(&str, Vendor, Releases)] = &[
    ("apple", Vendor::Apple, ALL),
    ("pc", Vendor::Pc, ALL),
    ("scei", Vendor::Scei, ALL),
    ("sie", Vendor::Scei, ALL),
    ("fsl", Vendor::Freescale, ALL),
    ("ibm", Vendor::Ibm, ALL),
    ("img", Vendor::ImaginationTechnologies, ALL),
    ("mti", Vendor::MipsTechnologies, ALL),
    ("nvidia", Vendor::Nvidia, ALL),
    ("csr", Vendor::Csr, ALL),
    ("amd", Vendor::Amd, ALL),
    ("mesa", Vendor::Mesa, ALL),
    ("suse", Vendor::Suse, ALL),
    ("oe", Vendor::OpenEmbedded, ALL),
    ("intel", Vendor::Intel, NEW22),
    ("meta", Vendor::Meta, NEW22),
];

/// `parseVendor` of release `llvm` (exact names only).
pub(crate) fn parse_vendor(llvm: LlvmVersion, name: &[u8]) -> Vendor {
    first_match_in(llvm, name, VENDOR_NAMES, exact).unwrap_or(Vendor::Unknown)
}

/// `parseOS`'s prefixes, in LLVM 19's order (the first prefix that matches wins, so
/// `linux-foo`… and `linuxfoo` are both Linux).
const OS_PREFIXES: &[(&str, Os, Releases)] = &[
    ("darwin", Os::Darwin, ALL),
    ("dragonfly", Os::DragonFly, ALL),
    ("freebsd", Os::FreeBsd, ALL),
    ("fuchsia", Os::Fuchsia, ALL),
    ("ios", Os::Ios, ALL),
    ("kfreebsd", Os::KFreeBsd, ALL),
    ("linux", Os::Linux, ALL),
    ("lv2", Os::Lv2, ALL),
    ("macos", Os::MacOsx, ALL),
    ("managarm", Os::Managarm, NEW22),
    ("netbsd", Os::NetBsd, ALL),
    ("openbsd", Os::OpenBsd, ALL),
    ("solaris", Os::Solaris, ALL),
    ("uefi", Os::Uefi, ALL),
    ("win32", Os::Win32, ALL),
    ("windows", Os::Win32, ALL),
    ("zos", Os::Zos, ALL),
    ("haiku", Os::Haiku, ALL),
    ("rtems", Os::Rtems, ALL),
    ("nacl", Os::NaCl, OLD19),
    ("aix", Os::Aix, ALL),
    ("cuda", Os::Cuda, ALL),
    ("nvcl", Os::Nvcl, ALL),
    ("amdhsa", Os::AmdHsa, ALL),
    ("ps4", Os::Ps4, ALL),
    ("ps5", Os::Ps5, ALL),
    ("elfiamcu", Os::ElfIamcu, ALL),
    ("tvos", Os::TvOs, ALL),
    ("watchos", Os::WatchOs, ALL),
    ("bridgeos", Os::BridgeOs, ALL),
    ("driverkit", Os::DriverKit, ALL),
    ("xros", Os::XrOs, ALL),
    ("visionos", Os::XrOs, ALL),
    ("mesa3d", Os::Mesa3d, ALL),
    ("amdpal", Os::AmdPal, ALL),
    ("hermit", Os::HermitCore, ALL),
    ("hurd", Os::Hurd, ALL),
    ("wasip1", Os::WasiP1, NEW22),
    ("wasip2", Os::WasiP2, NEW22),
    ("wasip3", Os::WasiP3, NEW22),
    ("wasi", Os::Wasi, ALL),
    ("emscripten", Os::Emscripten, ALL),
    ("shadermodel", Os::ShaderModel, ALL),
    ("liteos", Os::LiteOs, ALL),
    ("serenity", Os::Serenity, ALL),
    ("vulkan", Os::Vulkan, ALL),
    ("cheriotrtos", Os::CheriotRtos, NEW22),
];

/// `parseOS` of release `llvm` (by prefix: `macosx10.15`, `amdhsa5` are recognized).
pub(crate) fn parse_os(llvm: LlvmVersion, name: &[u8]) -> Os {
    first_match_in(llvm, name, OS_PREFIXES, prefix).unwrap_or(Os::Unknown)
}

/// `parseEnvironment`'s prefixes, in LLVM 19's order (longer names first where they overlap).
const ENVIRONMENT_PREFIXES: &[(&str, Environment, Releases)] = &[
    ("eabihf", Environment::EabiHf, ALL),
    ("eabi", Environment::Eabi, ALL),
    ("gnuabin32", Environment::GnuAbiN32, ALL),
    ("gnuabi64", Environment::GnuAbi64, ALL),
    ("gnueabihft64", Environment::GnuEabiHfT64, ALL),
    ("gnueabihf", Environment::GnuEabiHf, ALL),
    ("gnueabit64", Environment::GnuEabiT64, ALL),
    ("gnueabi", Environment::GnuEabi, ALL),
    ("gnuf32", Environment::GnuF32, ALL),
    ("gnuf64", Environment::GnuF64, ALL),
    ("gnusf", Environment::GnuSf, ALL),
    ("gnux32", Environment::GnuX32, ALL),
    ("gnu_ilp32", Environment::GnuIlp32, ALL),
    ("code16", Environment::Code16, ALL),
    ("gnut64", Environment::GnuT64, ALL),
    ("gnu", Environment::Gnu, ALL),
    ("android", Environment::Android, ALL),
    ("muslabin32", Environment::MuslAbiN32, NEW22),
    ("muslabi64", Environment::MuslAbi64, NEW22),
    ("musleabihf", Environment::MuslEabiHf, ALL),
    ("musleabi", Environment::MuslEabi, ALL),
    ("muslf32", Environment::MuslF32, NEW22),
    ("muslsf", Environment::MuslSf, NEW22),
    ("muslx32", Environment::MuslX32, ALL),
    ("muslwali", Environment::MuslWali, NEW22),
    ("musl", Environment::Musl, ALL),
    ("msvc", Environment::Msvc, ALL),
    ("itanium", Environment::Itanium, ALL),
    ("cygnus", Environment::Cygnus, ALL),
    ("coreclr", Environment::CoreClr, ALL),
    ("simulator", Environment::Simulator, ALL),
    ("macabi", Environment::MacAbi, ALL),
    ("pixel", Environment::Pixel, ALL),
    ("vertex", Environment::Vertex, ALL),
    ("geometry", Environment::Geometry, ALL),
    ("hull", Environment::Hull, ALL),
    ("domain", Environment::Domain, ALL),
    ("compute", Environment::Compute, ALL),
    ("library", Environment::Library, ALL),
    ("raygeneration", Environment::RayGeneration, ALL),
    ("intersection", Environment::Intersection, ALL),
    ("anyhit", Environment::AnyHit, ALL),
    ("closesthit", Environment::ClosestHit, ALL),
    ("miss", Environment::Miss, ALL),
    ("callable", Environment::Callable, ALL),
    ("mesh", Environment::Mesh, ALL),
    ("amplification", Environment::Amplification, ALL),
    ("rootsignature", Environment::RootSignature, NEW22),
    ("opencl", Environment::OpenCl, ALL),
    ("ohos", Environment::OpenHos, ALL),
    ("pauthtest", Environment::PAuthTest, ALL),
    ("llvm", Environment::Llvm, NEW22),
    ("mlibc", Environment::Mlibc, NEW22),
    ("mtia", Environment::Mtia, NEW22),
];

/// `parseEnvironment` of release `llvm` (by prefix).
pub(crate) fn parse_environment(llvm: LlvmVersion, name: &[u8]) -> Environment {
    first_match_in(llvm, name, ENVIRONMENT_PREFIXES, prefix).unwrap_or(Environment::Unknown)
}

/// `parseFormat`'s suffixes; `xcoff` must come before `coff`.
const FORMAT_SUFFIXES: &[(&str, ObjectFormat)] = &[
    ("xcoff", ObjectFormat::Xcoff),
    ("coff", ObjectFormat::Coff),
    ("elf", ObjectFormat::Elf),
    ("goff", ObjectFormat::Goff),
    ("macho", ObjectFormat::MachO),
    ("wasm", ObjectFormat::Wasm),
    ("spirv", ObjectFormat::Spirv),
];

/// LLVM 19's `parseFormat`: the object format named at the end of an environment component
/// (`gnu-elf`, `msvc-coff`…).
pub(crate) fn parse_format(name: &[u8]) -> ObjectFormat {
    first_match(name, FORMAT_SUFFIXES, suffix).unwrap_or(ObjectFormat::Unknown)
}

const SPIRV_SUBARCH_SUFFIXES: &[(&str, SubArch)] = &[
    ("v1.0", SubArch::SpirvV10),
    ("v1.1", SubArch::SpirvV11),
    ("v1.2", SubArch::SpirvV12),
    ("v1.3", SubArch::SpirvV13),
    ("v1.4", SubArch::SpirvV14),
    ("v1.5", SubArch::SpirvV15),
    ("v1.6", SubArch::SpirvV16),
];

const DXIL_SUBARCH_SUFFIXES: &[(&str, SubArch)] = &[
    ("v1.0", SubArch::DxilV1_0),
    ("v1.1", SubArch::DxilV1_1),
    ("v1.2", SubArch::DxilV1_2),
    ("v1.3", SubArch::DxilV1_3),
    ("v1.4", SubArch::DxilV1_4),
    ("v1.5", SubArch::DxilV1_5),
    ("v1.6", SubArch::DxilV1_6),
    ("v1.7", SubArch::DxilV1_7),
    ("v1.8", SubArch::DxilV1_8),
    ("v1.9", SubArch::DxilV1_9),
];

const KALIMBA_SUBARCH_SUFFIXES: &[(&str, SubArch)] = &[
    ("kalimba3", SubArch::KalimbaV3),
    ("kalimba4", SubArch::KalimbaV4),
    ("kalimba5", SubArch::KalimbaV5),
];

/// `parseSubArch` of release `llvm` (22 adds `aarch64_lfi` and `dxilv1.9`). Like LLVM it runs
/// the ARM architecture parser on any name (so even an unknown architecture may get an ARM
/// sub-architecture: `a` ends like `armv7-a`); the ARM parser is LLVM 19's for both releases.
pub(crate) fn parse_sub_arch(llvm: LlvmVersion, name: &[u8]) -> SubArch {
    if name.starts_with(b"mips") && (name.ends_with(b"r6el") || name.ends_with(b"r6")) {
        return SubArch::MipsR6;
    }
    match name {
        b"powerpcspe" => return SubArch::PpcSpe,
        b"arm64e" => return SubArch::Arm64e,
        b"arm64ec" => return SubArch::Arm64ec,
        b"aarch64_lfi" if llvm >= LlvmVersion::V22 => return SubArch::Aarch64Lfi,
        _ => {}
    }
    if name.starts_with(b"spirv") {
        return first_match(name, SPIRV_SUBARCH_SUFFIXES, suffix).unwrap_or(SubArch::None);
    }
    if name.starts_with(b"dxil") {
        let known = match llvm {
            LlvmVersion::V19 => DXIL_SUBARCH_SUFFIXES.len() - 1,
            _ => DXIL_SUBARCH_SUFFIXES.len(),
        };
        let table = DXIL_SUBARCH_SUFFIXES
            .get(..known)
            .unwrap_or(DXIL_SUBARCH_SUFFIXES);
        return first_match(name, table, suffix).unwrap_or(SubArch::None);
    }
    let arm_name = arm::canonical_arch_name(name);
    if arm_name.is_empty() {
        return first_match(name, KALIMBA_SUBARCH_SUFFIXES, suffix).unwrap_or(SubArch::None);
    }
    arm::parse_arch(arm_name).sub_arch()
}

/// LLVM 19's `getDefaultFormat`: the object format of a triple whose environment names none.
pub(crate) fn default_format(arch: Arch, os: Os) -> ObjectFormat {
    let darwin = is_os_darwin(os);
    match arch {
        Arch::Unknown
        | Arch::Aarch64
        | Arch::Aarch64_32
        | Arch::Arm
        | Arch::Thumb
        | Arch::X86
        | Arch::X86_64 => match os {
            Os::Win32 | Os::Uefi => ObjectFormat::Coff,
            _ if darwin => ObjectFormat::MachO,
            _ => ObjectFormat::Elf,
        },
        Arch::Ppc64 | Arch::Ppc => {
            if os == Os::Aix {
                ObjectFormat::Xcoff
            } else if darwin {
                ObjectFormat::MachO
            } else {
                ObjectFormat::Elf
            }
        }
        Arch::Systemz if os == Os::Zos => ObjectFormat::Goff,
        Arch::Wasm32 | Arch::Wasm64 => ObjectFormat::Wasm,
        Arch::Spirv | Arch::Spirv32 | Arch::Spirv64 => ObjectFormat::Spirv,
        Arch::Dxil => ObjectFormat::DxContainer,
        _ => ObjectFormat::Elf,
    }
}

/// `Triple::isOSDarwin`: macOS, iOS, tvOS, watchOS, XROS or DriverKit (not bridgeOS).
pub(crate) fn is_os_darwin(os: Os) -> bool {
    matches!(
        os,
        Os::Darwin | Os::MacOsx | Os::Ios | Os::TvOs | Os::WatchOs | Os::DriverKit | Os::XrOs
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use LlvmVersion::{V19, V22};

    #[test]
    fn arch_names_round_trip_through_the_parser() {
        // Every name LLVM prints parses back to the same architecture, except those whose
        // printed name is not in the table (`unknown`).
        for &a in Arch::ALL {
            if a == Arch::Unknown {
                continue;
            }
            for v in LlvmVersion::ALL {
                let known = ARCH_NAMES
                    .iter()
                    .chain(ARCH_NAMES_AFTER_KALIMBA)
                    .any(|&(n, x, r)| n == a.name() && x == a && !r.contains(v));
                if !known {
                    assert_eq!(parse_arch(v, a.name().as_bytes()), a, "{v}: {}", a.name());
                }
            }
        }
    }

    #[test]
    fn component_parsers() {
        assert_eq!(parse_arch(V19, b"amd64"), Arch::X86_64);
        assert_eq!(parse_arch(V19, b"armv7a"), Arch::Arm);
        assert_eq!(parse_arch(V19, b"thumbv6m"), Arch::Thumb);
        assert_eq!(parse_arch(V19, b"armv6m"), Arch::Thumb);
        assert_eq!(parse_arch(V19, b"thumbv3"), Arch::Unknown);
        assert_eq!(parse_arch(V19, b"bpf"), Arch::Bpfel);
        assert_eq!(parse_arch(V19, b"kalimba4"), Arch::Kalimba);
        assert_eq!(parse_arch(V19, b"gfx906"), Arch::Unknown);
        assert_eq!(parse_vendor(V19, b"sie"), Vendor::Scei);
        assert_eq!(parse_vendor(V19, b"xyz"), Vendor::Unknown);
        assert_eq!(parse_os(V19, b"amdhsa5"), Os::AmdHsa);
        assert_eq!(parse_os(V19, b"macos14"), Os::MacOsx);
        assert_eq!(parse_environment(V19, b"gnueabihf"), Environment::GnuEabiHf);
        assert_eq!(parse_environment(V19, b"gnu-elf"), Environment::Gnu);
        assert_eq!(parse_format(b"gnu-elf"), ObjectFormat::Elf);
        assert_eq!(parse_format(b"xcoff"), ObjectFormat::Xcoff);
        assert_eq!(parse_sub_arch(V19, b"armv7s"), SubArch::ArmV7s);
        assert_eq!(parse_sub_arch(V19, b"armv7"), SubArch::ArmV7);
        assert_eq!(parse_sub_arch(V19, b"mipsisa64r6el"), SubArch::MipsR6);
        assert_eq!(parse_sub_arch(V19, b"spirv64v1.3"), SubArch::SpirvV13);
        assert_eq!(parse_sub_arch(V19, b"x86_64"), SubArch::None);
        // LLVM's suffix match makes a bare `a` an ARMv7-A.
        assert_eq!(parse_sub_arch(V19, b"a"), SubArch::ArmV7);
        assert_eq!(default_format(Arch::X86_64, Os::Win32), ObjectFormat::Coff);
        assert_eq!(default_format(Arch::Ppc64, Os::Aix), ObjectFormat::Xcoff);
        assert_eq!(default_format(Arch::Amdgcn, Os::AmdHsa), ObjectFormat::Elf);
    }

    #[test]
    fn names_by_release() {
        assert_eq!(parse_arch(V19, b"le32"), Arch::Le32);
        assert_eq!(parse_arch(V22, b"le32"), Arch::Unknown);
        assert_eq!(parse_arch(V19, b"riscv64be"), Arch::Unknown);
        assert_eq!(parse_arch(V22, b"riscv64be"), Arch::Riscv64be);
        assert_eq!(parse_arch(V22, b"aarch64_lfi"), Arch::Aarch64);
        assert_eq!(parse_sub_arch(V22, b"aarch64_lfi"), SubArch::Aarch64Lfi);
        assert_eq!(parse_sub_arch(V19, b"dxilv1.9"), SubArch::None);
        assert_eq!(parse_sub_arch(V22, b"dxilv1.9"), SubArch::DxilV1_9);
        assert_eq!(parse_vendor(V19, b"intel"), Vendor::Unknown);
        assert_eq!(parse_vendor(V22, b"intel"), Vendor::Intel);
        assert_eq!(parse_os(V19, b"nacl"), Os::NaCl);
        assert_eq!(parse_os(V22, b"nacl"), Os::Unknown);
        assert_eq!(parse_os(V19, b"wasip2"), Os::Wasi);
        assert_eq!(parse_os(V22, b"wasip2"), Os::WasiP2);
        assert_eq!(parse_environment(V19, b"muslabi64"), Environment::Musl);
        assert_eq!(parse_environment(V22, b"muslabi64"), Environment::MuslAbi64);
        assert_eq!(parse_environment(V22, b"llvm"), Environment::Llvm);
    }
}
