//! The enumerations of `llvm::Triple` and the functions that parse one component into them
//! (`parseArch`, `parseSubArch`, `parseVendor`, `parseOS`, `parseEnvironment`, `parseFormat`),
//! for LLVM 19 and 22. Matched against `llvm/lib/TargetParser/Triple.cpp` and
//! `llvm/include/llvm/TargetParser/Triple.h` of 19.1.7 and 22.1.8: each name table has the
//! releases that know a row as a column (22 adds `aarch64_lfi`, `riscv32be`, `riscv64be`,
//! `dxilv1.9`, vendors `intel` and `meta`, OSes `managarm`, `wasip1`–`wasip3`, `cheriotrtos`,
//! environments `muslabin32`, `muslabi64`, `muslf32`, `muslsf`, `muslwali`, `rootsignature`,
//! `llvm`, `mlibc`, `mtia`; it drops `le32`, `le64` and `nacl`). The values 22 added come last
//! in each enumeration. The ARM architecture parser is 19's for both.
//!
//! Every parser works on bytes: a triple read from a file may hold any byte, and LLVM compares
//! bytes.

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
        Riscv32be => "riscv32be",
        Riscv64be => "riscv64be",
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
        DxilV1_9 => "dxilv1.9",
        Aarch64Lfi => "lfi",
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
        Intel => "intel",
        Meta => "meta",
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
        Managarm => "managarm",
        WasiP1 => "wasip1",
        WasiP2 => "wasip2",
        WasiP3 => "wasip3",
        CheriotRtos => "cheriotrtos",
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
        MuslAbiN32 => "muslabin32",
        MuslAbi64 => "muslabi64",
        MuslF32 => "muslf32",
        MuslSf => "muslsf",
        MuslWali => "muslwali",
        RootSignature => "rootsignature",
        Llvm => "llvm",
        Mlibc => "mlibc",
        Mtia => "mtia",
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

mod parse;

pub(crate) use parse::{
    default_format, is_os_darwin, parse_arch, parse_environment, parse_format, parse_os,
    parse_sub_arch, parse_vendor,
};
