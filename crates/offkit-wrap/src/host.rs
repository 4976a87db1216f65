//! The host architectures offkit writes registration objects for, and what differs between
//! them: ELF machine, code alignment, `.eh_frame` type, relocation numbers, and how LLVM aligns
//! byte arrays.

use object::elf;

use offkit_llvm::triple::{Arch, ObjectFormat, Triple};

use crate::elf::SHT_X86_64_UNWIND;
use crate::error::Error;

fn unsupported(triple: &str) -> Error {
    Error::UnsupportedHost {
        triple: triple.to_string(),
    }
}

/// A host architecture (always ELF, 64-bit, little-endian, Linux-style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Host {
    /// x86-64 (`x86_64-*-linux-*` and other ELF systems).
    X86_64,
    /// AArch64 (`aarch64-*-linux-*` and other ELF systems).
    Aarch64,
}

impl Host {
    /// The host of a target triple: the architecture must be x86-64 or AArch64 (little-endian)
    /// and the object format ELF (no Darwin, Windows or UEFI).
    pub fn from_triple(triple: &str) -> Result<Host, Error> {
        let t = Triple::parse(triple);
        let host = match t.arch() {
            Arch::X86_64 => Host::X86_64,
            Arch::Aarch64 => Host::Aarch64,
            _ => None.ok_or_else(|| unsupported(triple))?,
        };
        if !matches!(t.object_format(), ObjectFormat::Elf | ObjectFormat::Coff)
            || !triple.contains('-')
        {
            return Err(unsupported(triple));
        }
        Ok(host)
    }

    /// Whether `triple` is a COFF (Windows) host.
    pub fn is_coff(triple: &str) -> bool {
        Triple::parse(triple).object_format() == ObjectFormat::Coff
    }

    /// Whether offkit writes the registration module for `triple` as LLVM IR only (for LLVM
    /// 19's `llc` to compile): COFF hosts, and ELF hosts offkit has no code tables for but
    /// LLVM 19's wrapper supports (64-bit PowerPC, SystemZ, RISC-V).
    pub fn ir_only(triple: &str) -> bool {
        let t = Triple::parse(triple);
        let elf_other = t.object_format() == ObjectFormat::Elf
            && triple.contains('-')
            && matches!(
                t.arch(),
                Arch::Ppc64 | Arch::Ppc64le | Arch::Systemz | Arch::Riscv64
            );
        elf_other || (Host::is_coff(triple) && Host::from_triple(triple).is_ok())
    }

    /// `e_machine`.
    pub fn machine(self) -> u16 {
        match self {
            Host::X86_64 => elf::EM_X86_64.0,
            Host::Aarch64 => elf::EM_AARCH64.0,
        }
    }

    /// The alignment LLVM gives functions (and so `.text.startup`).
    pub fn function_align(self) -> u64 {
        match self {
            Host::X86_64 => 16,
            Host::Aarch64 => 4,
        }
    }

    /// The section type of `.eh_frame`.
    pub fn eh_frame_type(self) -> u32 {
        match self {
            Host::X86_64 => SHT_X86_64_UNWIND,
            Host::Aarch64 => elf::SHT_PROGBITS.0,
        }
    }

    /// The 64-bit absolute data relocation.
    pub fn abs64(self) -> u32 {
        match self {
            Host::X86_64 => R_X86_64_64,
            Host::Aarch64 => R_AARCH64_ABS64,
        }
    }

    /// The 32-bit PC-relative data relocation (for `.eh_frame`).
    pub fn prel32(self) -> u32 {
        match self {
            Host::X86_64 => R_X86_64_PC32,
            Host::Aarch64 => R_AARCH64_PREL32,
        }
    }

    /// Whether the ELF psABI wants `$x`/`$d` mapping symbols.
    pub fn mapping_symbols(self) -> bool {
        self == Host::Aarch64
    }

    /// The alignment LLVM gives an `[n x i8]` global without an explicit alignment
    /// (`DataLayout::getPreferredAlign`): 16 when it is larger than 16 bytes, otherwise the
    /// preferred alignment of `i8` (1 on x86-64; 4 on AArch64, whose data layout says `i8:8:32`).
    pub fn byte_array_align(self, size: u64) -> u64 {
        match (size > 16, self) {
            (true, _) => 16,
            (false, Host::X86_64) => 1,
            (false, Host::Aarch64) => 4,
        }
    }

    /// The LLVM name of the architecture, as in a triple.
    pub fn arch_name(self) -> &'static str {
        match self {
            Host::X86_64 => "x86_64",
            Host::Aarch64 => "aarch64",
        }
    }
}

/// `R_X86_64_64`.
pub const R_X86_64_64: u32 = 1;
/// `R_X86_64_PC32`.
pub const R_X86_64_PC32: u32 = 2;
/// `R_X86_64_PLT32`.
pub const R_X86_64_PLT32: u32 = 4;
/// `R_X86_64_GOTPCREL`.
pub const R_X86_64_GOTPCREL: u32 = 9;
/// `R_AARCH64_ABS64`.
pub const R_AARCH64_ABS64: u32 = 257;
/// `R_AARCH64_PREL32`.
pub const R_AARCH64_PREL32: u32 = 261;
/// `R_AARCH64_ADR_PREL_PG_HI21`.
pub const R_AARCH64_ADR_PREL_PG_HI21: u32 = 275;
/// `R_AARCH64_ADD_ABS_LO12_NC`.
pub const R_AARCH64_ADD_ABS_LO12_NC: u32 = 277;
/// `R_AARCH64_CALL26`.
pub const R_AARCH64_CALL26: u32 = 283;
/// `R_AARCH64_LDST64_ABS_LO12_NC`.
pub const R_AARCH64_LDST64_ABS_LO12_NC: u32 = 286;
/// `R_AARCH64_ADR_GOT_PAGE`.
pub const R_AARCH64_ADR_GOT_PAGE: u32 = 311;
/// `R_AARCH64_LD64_GOT_LO12_NC`.
pub const R_AARCH64_LD64_GOT_LO12_NC: u32 = 312;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_triples() {
        assert_eq!(
            Host::from_triple("x86_64-pc-linux-gnu").unwrap(),
            Host::X86_64
        );
        assert_eq!(
            Host::from_triple("x86_64-unknown-linux").unwrap(),
            Host::X86_64
        );
        assert_eq!(
            Host::from_triple("aarch64-linux-gnu").unwrap(),
            Host::Aarch64
        );
        assert!(Host::is_coff("x86_64-pc-windows-msvc"));
        assert!(Host::ir_only("x86_64-pc-windows-msvc"));
        assert!(Host::ir_only("powerpc64le-unknown-linux-gnu"));
        assert!(!Host::ir_only("x86_64-pc-linux-gnu"));
        assert!(!Host::ir_only("x86_64-apple-darwin"));
        assert!(Host::is_coff("x86_64-w64-windows-gnu"));
        assert_eq!(
            Host::from_triple("x86_64-w64-windows-gnu").unwrap(),
            Host::X86_64
        );
        for bad in [
            "x86_64",
            "x86_64-apple-darwin",
            "riscv64-linux-gnu",
            "aarch64_be-linux-gnu",
            "",
        ] {
            assert!(Host::from_triple(bad).is_err(), "{bad}");
        }
    }
}
