//! The enumerations of LLVM 19's `llvm::Triple` and the functions that parse one component
//! into them (`parseArch`, `parseSubArch`, `parseVendor`, `parseOS`, `parseEnvironment`,
//! `parseFormat`). Matched against `llvm/lib/TargetParser/Triple.cpp` and
//! `llvm/include/llvm/TargetParser/Triple.h` of the 19 release (Debian `19.1.7`).
//!
//! Every parser works on bytes: a triple read from a file may hold any byte, and LLVM compares
//! bytes.

use super::arm;

/// Declares a fieldless enum together with its LLVM spelling (`get…TypeName`) and a list of
/// all values.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $(
                #[doc = concat!("`", $text, "`.")]
                $variant,
            )*
        }

        impl $name {
            /// Every value, in LLVM 19's declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            /// The name LLVM prints for this value.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// `Triple::ArchType`. [`Arch::name`] is `getArchTypeName` (`ppc64` prints as `powerpc64`,
    /// `x86` as `i386`, `systemz` as `s390x`).
    Arch {
        Unknown => "unknown",
        Arm => "arm",
        Armeb => "armeb",
        Aarch64 => "aarch64",
        Aarch64Be => "aarch64_be",
        Aarch64_32 => "aarch64_32",
        Arc => "arc",
        Avr => "avr",
        Bpfel => "bpfel",
        Bpfeb => "bpfeb",
        Csky => "csky",
        Dxil => "dxil",
        Hexagon => "hexagon",
        Loongarch32 => "loongarch32",
        Loongarch64 => "loongarch64",
        M68k => "m68k",
        Mips => "mips",
        Mipsel => "mipsel",
        Mips64 => "mips64",
        Mips64el => "mips64el",
        Msp430 => "msp430",
        Ppc => "powerpc",
        Ppcle => "powerpcle",
        Ppc64 => "powerpc64",
        Ppc64le => "powerpc64le",
        R600 => "r600",
        Amdgcn => "amdgcn",
        Riscv32 => "riscv32",
        Riscv64 => "riscv64",
        Sparc => "sparc",
        Sparcv9 => "sparcv9",
        Sparcel => "sparcel",
        Systemz => "s390x",
        Tce => "tce",
        Tcele => "tcele",
        Thumb => "thumb",
        Thumbeb => "thumbeb",
        X86 => "i386",
        X86_64 => "x86_64",
        Xcore => "xcore",
        Xtensa => "xtensa",
        Nvptx => "nvptx",
        Nvptx64 => "nvptx64",
        Le32 => "le32",
        Le64 => "le64",
        Amdil => "amdil",
        Amdil64 => "amdil64",
        Hsail => "hsail",
        Hsail64 => "hsail64",
        Spir => "spir",
        Spir64 => "spir64",
        Spirv => "spirv",
        Spirv32 => "spirv32",
        Spirv64 => "spirv64",
        Kalimba => "kalimba",
        Shave => "shave",
        Lanai => "lanai",
        Wasm32 => "wasm32",
        Wasm64 => "wasm64",
        Renderscript32 => "renderscript32",
        Renderscript64 => "renderscript64",
        Ve => "ve",
    }
}

named_enum! {
    /// `Triple::SubArchType`. LLVM has no names for these; [`SubArch::name`] is offkit's
    /// spelling, for messages only.
    SubArch {
        None => "",
        ArmV9_5a => "armv9.5a",
        ArmV9_4a => "armv9.4a",
        ArmV9_3a => "armv9.3a",
        ArmV9_2a => "armv9.2a",
        ArmV9_1a => "armv9.1a",
        ArmV9 => "armv9",
        ArmV8_9a => "armv8.9a",
        ArmV8_8a => "armv8.8a",
        ArmV8_7a => "armv8.7a",
        ArmV8_6a => "armv8.6a",
        ArmV8_5a => "armv8.5a",
        ArmV8_4a => "armv8.4a",
        ArmV8_3a => "armv8.3a",
        ArmV8_2a => "armv8.2a",
        ArmV8_1a => "armv8.1a",
        ArmV8 => "armv8",
        ArmV8r => "armv8r",
        ArmV8mBaseline => "armv8m.base",
        ArmV8mMainline => "armv8m.main",
        ArmV8_1mMainline => "armv8.1m.main",
        ArmV7 => "armv7",
        ArmV7em => "armv7em",
        ArmV7m => "armv7m",
        ArmV7s => "armv7s",
        ArmV7k => "armv7k",
        ArmV7ve => "armv7ve",
        ArmV6 => "armv6",
        ArmV6m => "armv6m",
        ArmV6k => "armv6k",
        ArmV6t2 => "armv6t2",
        ArmV5 => "armv5",
        ArmV5te => "armv5te",
        ArmV4t => "armv4t",
        Arm64e => "arm64e",
        Arm64ec => "arm64ec",
        KalimbaV3 => "kalimba3",
        KalimbaV4 => "kalimba4",
        KalimbaV5 => "kalimba5",
        MipsR6 => "r6",
        PpcSpe => "spe",
        SpirvV10 => "spirv1.0",
        SpirvV11 => "spirv1.1",
        SpirvV12 => "spirv1.2",
        SpirvV13 => "spirv1.3",
        SpirvV14 => "spirv1.4",
        SpirvV15 => "spirv1.5",
        SpirvV16 => "spirv1.6",
        DxilV1_0 => "dxilv1.0",
        DxilV1_1 => "dxilv1.1",
        DxilV1_2 => "dxilv1.2",
        DxilV1_3 => "dxilv1.3",
        DxilV1_4 => "dxilv1.4",
        DxilV1_5 => "dxilv1.5",
        DxilV1_6 => "dxilv1.6",
        DxilV1_7 => "dxilv1.7",
        DxilV1_8 => "dxilv1.8",
    }
}

named_enum! {
    /// `Triple::VendorType`.
    Vendor {
        Unknown => "unknown",
        Apple => "apple",
        Pc => "pc",
        Scei => "scei",
        Freescale => "fsl",
        Ibm => "ibm",
        ImaginationTechnologies => "img",
        MipsTechnologies => "mti",
        Nvidia => "nvidia",
        Csr => "csr",
        Amd => "amd",
        Mesa => "mesa",
        Suse => "suse",
        OpenEmbedded => "oe",
    }
}

named_enum! {
    /// `Triple::OSType`.
    Os {
        Unknown => "unknown",
        Darwin => "darwin",
        DragonFly => "dragonfly",
        FreeBsd => "freebsd",
        Fuchsia => "fuchsia",
        Ios => "ios",
        KFreeBsd => "kfreebsd",
        Linux => "linux",
        Lv2 => "lv2",
        MacOsx => "macosx",
        NetBsd => "netbsd",
        OpenBsd => "openbsd",
        Solaris => "solaris",
        Uefi => "uefi",
        Win32 => "windows",
        Zos => "zos",
        Haiku => "haiku",
        Rtems => "rtems",
        NaCl => "nacl",
        Aix => "aix",
        Cuda => "cuda",
        Nvcl => "nvcl",
        AmdHsa => "amdhsa",
        Ps4 => "ps4",
        Ps5 => "ps5",
        ElfIamcu => "elfiamcu",
        TvOs => "tvos",
        WatchOs => "watchos",
        BridgeOs => "bridgeos",
        DriverKit => "driverkit",
        XrOs => "xros",
        Mesa3d => "mesa3d",
        AmdPal => "amdpal",
        HermitCore => "hermit",
        Hurd => "hurd",
        Wasi => "wasi",
        Emscripten => "emscripten",
        ShaderModel => "shadermodel",
        LiteOs => "liteos",
        Serenity => "serenity",
        Vulkan => "vulkan",
    }
}

named_enum! {
    /// `Triple::EnvironmentType`.
    Environment {
        Unknown => "unknown",
        Gnu => "gnu",
        GnuAbiN32 => "gnuabin32",
        GnuAbi64 => "gnuabi64",
        GnuEabi => "gnueabi",
        GnuEabiHf => "gnueabihf",
        GnuF32 => "gnuf32",
        GnuF64 => "gnuf64",
        GnuSf => "gnusf",
        GnuX32 => "gnux32",
        GnuIlp32 => "gnu_ilp32",
        Code16 => "code16",
        Eabi => "eabi",
        EabiHf => "eabihf",
        Android => "android",
        Musl => "musl",
        MuslEabi => "musleabi",
        MuslEabiHf => "musleabihf",
        MuslX32 => "muslx32",
        Msvc => "msvc",
        Itanium => "itanium",
        Cygnus => "cygnus",
        CoreClr => "coreclr",
        Simulator => "simulator",
        MacAbi => "macabi",
        Pixel => "pixel",
        Vertex => "vertex",
        Geometry => "geometry",
        Hull => "hull",
        Domain => "domain",
        Compute => "compute",
        Library => "library",
        RayGeneration => "raygeneration",
        Intersection => "intersection",
        AnyHit => "anyhit",
        ClosestHit => "closesthit",
        Miss => "miss",
        Callable => "callable",
        Mesh => "mesh",
        Amplification => "amplification",
        OpenCl => "opencl",
        OpenHos => "ohos",
        PAuthTest => "pauthtest",
        GnuT64 => "gnut64",
        GnuEabiT64 => "gnueabit64",
        GnuEabiHfT64 => "gnueabihft64",
    }
}

named_enum! {
    /// `Triple::ObjectFormatType`. [`ObjectFormat::name`] is `getObjectFormatTypeName`
    /// (empty for `Unknown`).
    ObjectFormat {
        Unknown => "",
        Coff => "coff",
        DxContainer => "dxcontainer",
        Elf => "elf",
        Goff => "goff",
        MachO => "macho",
        Spirv => "spirv",
        Wasm => "wasm",
        Xcoff => "xcoff",
    }
}

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
const ARCH_NAMES: &[(&str, Arch)] = &[
    ("i386", Arch::X86),
    ("i486", Arch::X86),
    ("i586", Arch::X86),
    ("i686", Arch::X86),
    ("i786", Arch::X86),
    ("i886", Arch::X86),
    ("i986", Arch::X86),
    ("amd64", Arch::X86_64),
    ("x86_64", Arch::X86_64),
    ("x86_64h", Arch::X86_64),
    ("powerpc", Arch::Ppc),
    ("powerpcspe", Arch::Ppc),
    ("ppc", Arch::Ppc),
    ("ppc32", Arch::Ppc),
    ("powerpcle", Arch::Ppcle),
    ("ppcle", Arch::Ppcle),
    ("ppc32le", Arch::Ppcle),
    ("powerpc64", Arch::Ppc64),
    ("ppu", Arch::Ppc64),
    ("ppc64", Arch::Ppc64),
    ("powerpc64le", Arch::Ppc64le),
    ("ppc64le", Arch::Ppc64le),
    ("xscale", Arch::Arm),
    ("xscaleeb", Arch::Armeb),
    ("aarch64", Arch::Aarch64),
    ("aarch64_be", Arch::Aarch64Be),
    ("aarch64_32", Arch::Aarch64_32),
    ("arc", Arch::Arc),
    ("arm64", Arch::Aarch64),
    ("arm64_32", Arch::Aarch64_32),
    ("arm64e", Arch::Aarch64),
    ("arm64ec", Arch::Aarch64),
    ("arm", Arch::Arm),
    ("armeb", Arch::Armeb),
    ("thumb", Arch::Thumb),
    ("thumbeb", Arch::Thumbeb),
    ("avr", Arch::Avr),
    ("m68k", Arch::M68k),
    ("msp430", Arch::Msp430),
    ("mips", Arch::Mips),
    ("mipseb", Arch::Mips),
    ("mipsallegrex", Arch::Mips),
    ("mipsisa32r6", Arch::Mips),
    ("mipsr6", Arch::Mips),
    ("mipsel", Arch::Mipsel),
    ("mipsallegrexel", Arch::Mipsel),
    ("mipsisa32r6el", Arch::Mipsel),
    ("mipsr6el", Arch::Mipsel),
    ("mips64", Arch::Mips64),
    ("mips64eb", Arch::Mips64),
    ("mipsn32", Arch::Mips64),
    ("mipsisa64r6", Arch::Mips64),
    ("mips64r6", Arch::Mips64),
    ("mipsn32r6", Arch::Mips64),
    ("mips64el", Arch::Mips64el),
    ("mipsn32el", Arch::Mips64el),
    ("mipsisa64r6el", Arch::Mips64el),
    ("mips64r6el", Arch::Mips64el),
    ("mipsn32r6el", Arch::Mips64el),
    ("r600", Arch::R600),
    ("amdgcn", Arch::Amdgcn),
    ("riscv32", Arch::Riscv32),
    ("riscv64", Arch::Riscv64),
    ("hexagon", Arch::Hexagon),
    ("s390x", Arch::Systemz),
    ("systemz", Arch::Systemz),
    ("sparc", Arch::Sparc),
    ("sparcel", Arch::Sparcel),
    ("sparcv9", Arch::Sparcv9),
    ("sparc64", Arch::Sparcv9),
    ("tce", Arch::Tce),
    ("tcele", Arch::Tcele),
    ("xcore", Arch::Xcore),
    ("nvptx", Arch::Nvptx),
    ("nvptx64", Arch::Nvptx64),
    ("le32", Arch::Le32),
    ("le64", Arch::Le64),
    ("amdil", Arch::Amdil),
    ("amdil64", Arch::Amdil64),
    ("hsail", Arch::Hsail),
    ("hsail64", Arch::Hsail64),
    ("spir", Arch::Spir),
    ("spir64", Arch::Spir64),
    ("spirv", Arch::Spirv),
    ("spirv1.5", Arch::Spirv),
    ("spirv1.6", Arch::Spirv),
    ("spirv32", Arch::Spirv32),
    ("spirv32v1.0", Arch::Spirv32),
    ("spirv32v1.1", Arch::Spirv32),
    ("spirv32v1.2", Arch::Spirv32),
    ("spirv32v1.3", Arch::Spirv32),
    ("spirv32v1.4", Arch::Spirv32),
    ("spirv32v1.5", Arch::Spirv32),
    ("spirv32v1.6", Arch::Spirv32),
    ("spirv64", Arch::Spirv64),
    ("spirv64v1.0", Arch::Spirv64),
    ("spirv64v1.1", Arch::Spirv64),
    ("spirv64v1.2", Arch::Spirv64),
    ("spirv64v1.3", Arch::Spirv64),
    ("spirv64v1.4", Arch::Spirv64),
    ("spirv64v1.5", Arch::Spirv64),
    ("spirv64v1.6", Arch::Spirv64),
];

/// `parseArch`'s table after the `StartsWith("kalimba")` case, in LLVM 19's order.
const ARCH_NAMES_AFTER_KALIMBA: &[(&str, Arch)] = &[
    ("lanai", Arch::Lanai),
    ("renderscript32", Arch::Renderscript32),
    ("renderscript64", Arch::Renderscript64),
    ("shave", Arch::Shave),
    ("ve", Arch::Ve),
    ("wasm32", Arch::Wasm32),
    ("wasm64", Arch::Wasm64),
    ("csky", Arch::Csky),
    ("loongarch32", Arch::Loongarch32),
    ("loongarch64", Arch::Loongarch64),
    ("dxil", Arch::Dxil),
    ("dxilv1.0", Arch::Dxil),
    ("dxilv1.1", Arch::Dxil),
    ("dxilv1.2", Arch::Dxil),
    ("dxilv1.3", Arch::Dxil),
    ("dxilv1.4", Arch::Dxil),
    ("dxilv1.5", Arch::Dxil),
    ("dxilv1.6", Arch::Dxil),
    ("dxilv1.7", Arch::Dxil),
    ("dxilv1.8", Arch::Dxil),
    ("xtensa", Arch::Xtensa),
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

/// LLVM 19's `parseArch`: the architecture of a triple's first component.
pub fn parse_arch(name: &[u8]) -> Arch {
    let found = first_match(name, ARCH_NAMES, exact)
        .or_else(|| name.starts_with(b"kalimba").then_some(Arch::Kalimba))
        .or_else(|| first_match(name, ARCH_NAMES_AFTER_KALIMBA, exact));
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

const VENDOR_NAMES: &[(&str, Vendor)] = &[
    ("apple", Vendor::Apple),
    ("pc", Vendor::Pc),
    ("scei", Vendor::Scei),
    ("sie", Vendor::Scei),
    ("fsl", Vendor::Freescale),
    ("ibm", Vendor::Ibm),
    ("img", Vendor::ImaginationTechnologies),
    ("mti", Vendor::MipsTechnologies),
    ("nvidia", Vendor::Nvidia),
    ("csr", Vendor::Csr),
    ("amd", Vendor::Amd),
    ("mesa", Vendor::Mesa),
    ("suse", Vendor::Suse),
    ("oe", Vendor::OpenEmbedded),
];

/// LLVM 19's `parseVendor` (exact names only).
pub fn parse_vendor(name: &[u8]) -> Vendor {
    first_match(name, VENDOR_NAMES, exact).unwrap_or(Vendor::Unknown)
}

/// `parseOS`'s prefixes, in LLVM 19's order (the first prefix that matches wins, so
/// `linux-foo`… and `linuxfoo` are both Linux).
const OS_PREFIXES: &[(&str, Os)] = &[
    ("darwin", Os::Darwin),
    ("dragonfly", Os::DragonFly),
    ("freebsd", Os::FreeBsd),
    ("fuchsia", Os::Fuchsia),
    ("ios", Os::Ios),
    ("kfreebsd", Os::KFreeBsd),
    ("linux", Os::Linux),
    ("lv2", Os::Lv2),
    ("macos", Os::MacOsx),
    ("netbsd", Os::NetBsd),
    ("openbsd", Os::OpenBsd),
    ("solaris", Os::Solaris),
    ("uefi", Os::Uefi),
    ("win32", Os::Win32),
    ("windows", Os::Win32),
    ("zos", Os::Zos),
    ("haiku", Os::Haiku),
    ("rtems", Os::Rtems),
    ("nacl", Os::NaCl),
    ("aix", Os::Aix),
    ("cuda", Os::Cuda),
    ("nvcl", Os::Nvcl),
    ("amdhsa", Os::AmdHsa),
    ("ps4", Os::Ps4),
    ("ps5", Os::Ps5),
    ("elfiamcu", Os::ElfIamcu),
    ("tvos", Os::TvOs),
    ("watchos", Os::WatchOs),
    ("bridgeos", Os::BridgeOs),
    ("driverkit", Os::DriverKit),
    ("xros", Os::XrOs),
    ("visionos", Os::XrOs),
    ("mesa3d", Os::Mesa3d),
    ("amdpal", Os::AmdPal),
    ("hermit", Os::HermitCore),
    ("hurd", Os::Hurd),
    ("wasi", Os::Wasi),
    ("emscripten", Os::Emscripten),
    ("shadermodel", Os::ShaderModel),
    ("liteos", Os::LiteOs),
    ("serenity", Os::Serenity),
    ("vulkan", Os::Vulkan),
];

/// LLVM 19's `parseOS` (by prefix: `macosx10.15`, `amdhsa5` are recognized).
pub fn parse_os(name: &[u8]) -> Os {
    first_match(name, OS_PREFIXES, prefix).unwrap_or(Os::Unknown)
}

/// `parseEnvironment`'s prefixes, in LLVM 19's order (longer names first where they overlap).
const ENVIRONMENT_PREFIXES: &[(&str, Environment)] = &[
    ("eabihf", Environment::EabiHf),
    ("eabi", Environment::Eabi),
    ("gnuabin32", Environment::GnuAbiN32),
    ("gnuabi64", Environment::GnuAbi64),
    ("gnueabihft64", Environment::GnuEabiHfT64),
    ("gnueabihf", Environment::GnuEabiHf),
    ("gnueabit64", Environment::GnuEabiT64),
    ("gnueabi", Environment::GnuEabi),
    ("gnuf32", Environment::GnuF32),
    ("gnuf64", Environment::GnuF64),
    ("gnusf", Environment::GnuSf),
    ("gnux32", Environment::GnuX32),
    ("gnu_ilp32", Environment::GnuIlp32),
    ("code16", Environment::Code16),
    ("gnut64", Environment::GnuT64),
    ("gnu", Environment::Gnu),
    ("android", Environment::Android),
    ("musleabihf", Environment::MuslEabiHf),
    ("musleabi", Environment::MuslEabi),
    ("muslx32", Environment::MuslX32),
    ("musl", Environment::Musl),
    ("msvc", Environment::Msvc),
    ("itanium", Environment::Itanium),
    ("cygnus", Environment::Cygnus),
    ("coreclr", Environment::CoreClr),
    ("simulator", Environment::Simulator),
    ("macabi", Environment::MacAbi),
    ("pixel", Environment::Pixel),
    ("vertex", Environment::Vertex),
    ("geometry", Environment::Geometry),
    ("hull", Environment::Hull),
    ("domain", Environment::Domain),
    ("compute", Environment::Compute),
    ("library", Environment::Library),
    ("raygeneration", Environment::RayGeneration),
    ("intersection", Environment::Intersection),
    ("anyhit", Environment::AnyHit),
    ("closesthit", Environment::ClosestHit),
    ("miss", Environment::Miss),
    ("callable", Environment::Callable),
    ("mesh", Environment::Mesh),
    ("amplification", Environment::Amplification),
    ("opencl", Environment::OpenCl),
    ("ohos", Environment::OpenHos),
    ("pauthtest", Environment::PAuthTest),
];

/// LLVM 19's `parseEnvironment` (by prefix).
pub fn parse_environment(name: &[u8]) -> Environment {
    first_match(name, ENVIRONMENT_PREFIXES, prefix).unwrap_or(Environment::Unknown)
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
pub fn parse_format(name: &[u8]) -> ObjectFormat {
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
];

const KALIMBA_SUBARCH_SUFFIXES: &[(&str, SubArch)] = &[
    ("kalimba3", SubArch::KalimbaV3),
    ("kalimba4", SubArch::KalimbaV4),
    ("kalimba5", SubArch::KalimbaV5),
];

/// LLVM 19's `parseSubArch`. Like LLVM it runs the ARM architecture parser on any name
/// (so even an unknown architecture may get an ARM sub-architecture: `a` ends like `armv7-a`).
pub fn parse_sub_arch(name: &[u8]) -> SubArch {
    if name.starts_with(b"mips") && (name.ends_with(b"r6el") || name.ends_with(b"r6")) {
        return SubArch::MipsR6;
    }
    match name {
        b"powerpcspe" => return SubArch::PpcSpe,
        b"arm64e" => return SubArch::Arm64e,
        b"arm64ec" => return SubArch::Arm64ec,
        _ => {}
    }
    if name.starts_with(b"spirv") {
        return first_match(name, SPIRV_SUBARCH_SUFFIXES, suffix).unwrap_or(SubArch::None);
    }
    if name.starts_with(b"dxil") {
        return first_match(name, DXIL_SUBARCH_SUFFIXES, suffix).unwrap_or(SubArch::None);
    }
    let arm_name = arm::canonical_arch_name(name);
    if arm_name.is_empty() {
        return first_match(name, KALIMBA_SUBARCH_SUFFIXES, suffix).unwrap_or(SubArch::None);
    }
    arm::parse_arch(arm_name).sub_arch()
}

/// LLVM 19's `getDefaultFormat`: the object format of a triple whose environment names none.
pub fn default_format(arch: Arch, os: Os) -> ObjectFormat {
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
pub fn is_os_darwin(os: Os) -> bool {
    matches!(
        os,
        Os::Darwin | Os::MacOsx | Os::Ios | Os::TvOs | Os::WatchOs | Os::DriverKit | Os::XrOs
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names_round_trip_through_the_parser() {
        // Every name LLVM prints parses back to the same architecture, except those whose
        // printed name is not in the table (`unknown`).
        for &a in Arch::ALL {
            if a == Arch::Unknown {
                continue;
            }
            assert_eq!(parse_arch(a.name().as_bytes()), a, "{}", a.name());
        }
    }

    #[test]
    fn component_parsers() {
        assert_eq!(parse_arch(b"amd64"), Arch::X86_64);
        assert_eq!(parse_arch(b"armv7a"), Arch::Arm);
        assert_eq!(parse_arch(b"thumbv6m"), Arch::Thumb);
        assert_eq!(parse_arch(b"armv6m"), Arch::Thumb);
        assert_eq!(parse_arch(b"thumbv3"), Arch::Unknown);
        assert_eq!(parse_arch(b"bpf"), Arch::Bpfel);
        assert_eq!(parse_arch(b"kalimba4"), Arch::Kalimba);
        assert_eq!(parse_arch(b"gfx906"), Arch::Unknown);
        assert_eq!(parse_vendor(b"sie"), Vendor::Scei);
        assert_eq!(parse_vendor(b"xyz"), Vendor::Unknown);
        assert_eq!(parse_os(b"amdhsa5"), Os::AmdHsa);
        assert_eq!(parse_os(b"macos14"), Os::MacOsx);
        assert_eq!(parse_environment(b"gnueabihf"), Environment::GnuEabiHf);
        assert_eq!(parse_environment(b"gnu-elf"), Environment::Gnu);
        assert_eq!(parse_format(b"gnu-elf"), ObjectFormat::Elf);
        assert_eq!(parse_format(b"xcoff"), ObjectFormat::Xcoff);
        assert_eq!(parse_sub_arch(b"armv7s"), SubArch::ArmV7s);
        assert_eq!(parse_sub_arch(b"armv7"), SubArch::ArmV7);
        assert_eq!(parse_sub_arch(b"mipsisa64r6el"), SubArch::MipsR6);
        assert_eq!(parse_sub_arch(b"spirv64v1.3"), SubArch::SpirvV13);
        assert_eq!(parse_sub_arch(b"x86_64"), SubArch::None);
        // LLVM's suffix match makes a bare `a` an ARMv7-A.
        assert_eq!(parse_sub_arch(b"a"), SubArch::ArmV7);
        assert_eq!(default_format(Arch::X86_64, Os::Win32), ObjectFormat::Coff);
        assert_eq!(default_format(Arch::Ppc64, Os::Aix), ObjectFormat::Xcoff);
        assert_eq!(default_format(Arch::Amdgcn, Os::AmdHsa), ObjectFormat::Elf);
    }
}
