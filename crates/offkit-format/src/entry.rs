//! Offload entry tables: the `__tgt_offload_entry` arrays through which a host program tells the
//! offload runtime which kernels and global variables its device images hold.
//!
//! clang 19 emits one 32-byte entry (20 bytes on 32-bit hosts) per kernel or `declare target`
//! variable into a section named after the programming model — `omp_offloading_entries`,
//! `cuda_offloading_entries`, `hip_offloading_entries` — and the static linker gathers them
//! between `__start_<section>` and `__stop_<section>`. LLVM 20 and later use one section,
//! `llvm_offload_entries`, with 56-byte entries that carry their own kind. The pointer fields
//! (`addr`, `name`) are filled in by relocations: in a relocatable object through the section's
//! `.rel[a]` section, in a linked position-independent file through the dynamic relocations
//! (`.rela.dyn`, `.relr.dyn`; an lld-linked PIE has zeros in the section itself).
//!
//! ```text
//! ELF ─► omp_offloading_entries + .rela…  ─► [Entry { addr: region_id, name: "__omp_offloading_…", size: 0 }]
//!        hip_offloading_entries + .rela.dyn ─► [Entry { addr: 0x4020 (dv), name: "dv", size: 16, flags: 0 }]
//! ```
//!
//! ```
//! use offkit_format::entry::{self, Layout, TableKind};
//!
//! // One raw 64-bit little-endian LLVM 19 entry: a 4-byte variable, no relocations applied.
//! let mut bytes = vec![0u8; 32];
//! bytes[16] = 4;
//! let layout = Layout::legacy(8);
//! let raw = entry::parse_raw(&bytes, layout, entry::Endianness::Little, 0).unwrap();
//! assert_eq!(raw[0].size, 4);
//! assert_eq!(TableKind::from_section_name(b"hip_offloading_entries"), Some(TableKind::Hip));
//! ```

mod elf;
mod flags;

use std::fmt;

pub use object::Endianness;

use crate::error::{Error, Result};
use crate::kind::OffloadKind;
use offkit_llvm::LlvmVersion;
use offkit_read::limits;

pub use elf::{read_tables, TableError};
pub use flags::{describe, Description, Role};

/// Which entry section a table was read from. Each holds entries of either layout
/// ([`detect_layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableKind {
    /// `omp_offloading_entries` (LLVM 20 and earlier; 32-byte entries until 19, 56 in 20).
    OpenMp,
    /// `cuda_offloading_entries` (LLVM 20 and earlier).
    Cuda,
    /// `hip_offloading_entries` (LLVM 20 and earlier).
    Hip,
    /// `llvm_offload_entries` (LLVM 21 and later, clang-22's for OpenMP, CUDA and HIP): every
    /// model in one table, 56-byte entries that carry their own kind.
    Llvm,
}

impl TableKind {
    /// All kinds, in the order their sections are looked for.
    pub const ALL: [TableKind; 4] = [Self::OpenMp, Self::Cuda, Self::Hip, Self::Llvm];

    /// The kind of the section named `name`, if it is an entry section.
    pub fn from_section_name(name: &[u8]) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.section_name().as_bytes() == name)
    }

    /// The section name.
    pub fn section_name(self) -> &'static str {
        let [omp, cuda, hip, llvm] = crate::container::ENTRY_TABLES;
        match self {
            Self::OpenMp => omp,
            Self::Cuda => cuda,
            Self::Hip => hip,
            Self::Llvm => llvm,
        }
    }

    /// The entry format LLVM writes into this section (the bytes decide: [`detect_layout`]).
    pub fn format(self) -> Format {
        match self {
            Self::Llvm => Format::Llvm,
            _ => Format::Legacy,
        }
    }

    /// The programming model of every entry of a legacy table (`None` for `llvm_offload_entries`,
    /// whose entries carry their own kind).
    pub(crate) fn offload_kind(self) -> Option<OffloadKind> {
        match self {
            Self::OpenMp => Some(OffloadKind::OpenMp),
            Self::Cuda => Some(OffloadKind::Cuda),
            Self::Hip => Some(OffloadKind::Hip),
            Self::Llvm => None,
        }
    }
}

impl Format {
    /// The LLVM release whose meanings of the flags a table of this layout has: 19 for the
    /// 32-byte entries, the newest offkit knows for the 56-byte ones.
    pub(crate) fn release(self) -> LlvmVersion {
        match self {
            Format::Legacy => LlvmVersion::V19,
            Format::Llvm => LlvmVersion::NEWEST,
        }
    }
}

/// The two entry layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// LLVM 19's `{ ptr addr; ptr name; size_t size; i32 flags; i32 reserved }`: 32 bytes on
    /// 64-bit hosts, 20 on 32-bit ones.
    Legacy,
    /// LLVM 20+'s `{ u64 reserved; u16 version; u16 kind; u32 flags; ptr addr; ptr name;
    /// u64 size; u64 data; ptr aux_addr }`: 56 bytes on 64-bit hosts.
    Llvm,
}

/// Where the fields of one entry are, for a given format and pointer size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The format.
    pub format: Format,
    /// The pointer (and `size_t`) size: 4 or 8.
    pub pointer_size: u8,
    /// The distance between two entries (the struct's size, padded to its alignment).
    pub stride: u64,
}

impl Layout {
    /// The LLVM 19 layout for pointers (and `size_t`) of `pointer_size` bytes. It has no 64-bit
    /// field on 32-bit hosts, so the alignment of `i64` does not matter.
    pub fn legacy(pointer_size: u8) -> Self {
        let p = u64::from(pointer_size);
        Layout {
            format: Format::Legacy,
            pointer_size,
            stride: 3 * p + 8,
        }
    }

    /// The LLVM 20+ layout: 56 bytes on 64-bit hosts; on 32-bit hosts 44 bytes, padded to the
    /// alignment of `i64` (4 on i386, 8 on most others).
    pub fn llvm(pointer_size: u8, i64_align: u8) -> Self {
        let p = u64::from(pointer_size);
        let raw = 16 + 2 * p + 16 + p;
        let align = u64::from(i64_align.max(pointer_size)).max(1);
        Layout {
            format: Format::Llvm,
            pointer_size,
            stride: raw.div_ceil(align) * align,
        }
    }

    /// The layout of `format`.
    pub fn of(format: Format, pointer_size: u8, i64_align: u8) -> Self {
        match format {
            Format::Legacy => Self::legacy(pointer_size),
            Format::Llvm => Self::llvm(pointer_size, i64_align),
        }
    }

    /// Offset of `addr` in an entry.
    pub fn addr_offset(self) -> u64 {
        match self.format {
            Format::Legacy => 0,
            Format::Llvm => 16,
        }
    }

    /// Offset of `name` in an entry.
    pub fn name_offset(self) -> u64 {
        self.addr_offset() + u64::from(self.pointer_size)
    }

    /// Offset of `size` in an entry.
    pub fn size_offset(self) -> u64 {
        self.name_offset() + u64::from(self.pointer_size)
    }

    /// Offset of `aux_addr` (LLVM 20+ only).
    pub fn aux_addr_offset(self) -> Option<u64> {
        match self.format {
            Format::Legacy => None,
            Format::Llvm => Some(self.size_offset() + 16),
        }
    }

    /// The size of `size` (and of the `data` field of LLVM 20+): `size_t` in LLVM 19, `u64`
    /// later.
    fn size_width(self) -> u8 {
        match self.format {
            Format::Legacy => self.pointer_size,
            Format::Llvm => 8,
        }
    }
}

/// The layout of a table read from section `kind`: the one its bytes hold, whatever the
/// section's name (LLVM 20 wrote 56-byte entries into `omp_offloading_entries`; LLVM 21 and
/// later use `llvm_offload_entries`).
///
/// The 56-byte layout is recognised by its header, which no relocation touches: every entry has
/// `reserved` 0 and a non-zero `version` (LLVM writes 1), or is all zero (the dummy entry a
/// registration object may add), and one at least has a version. A 32-byte entry cannot look
/// like that: its first word is `addr` (relocated to 0 in an object, where the `name` pointer
/// that would be the version is 0 too; an address in a linked file). Otherwise the table is
/// read in its section's layout, except that 32-byte entries are taken in
/// `llvm_offload_entries` when they fit and the 56-byte ones do not.
pub fn detect_layout(
    bytes: &[u8],
    kind: TableKind,
    pointer_size: u8,
    i64_align: u8,
    endian: Endianness,
) -> Layout {
    let llvm = Layout::llvm(pointer_size, i64_align);
    let legacy = Layout::legacy(pointer_size);
    let fits = |l: Layout| !bytes.is_empty() && l.stride != 0 && bytes.len() as u64 % l.stride == 0;
    if fits(llvm) {
        let mut versioned = false;
        let header_ok = bytes.chunks(llvm.stride as usize).all(|e| {
            let reserved = read_word(e, 0, 8, endian);
            let version = read_word(e, 8, 2, endian);
            versioned |= version.is_some_and(|v| v != 0);
            match (reserved, version) {
                (Some(0), Some(v)) if v != 0 => true,
                _ => e.iter().all(|&b| b == 0),
            }
        });
        if header_ok && versioned {
            return llvm;
        }
    }
    match kind.format() {
        Format::Llvm if fits(legacy) && !fits(llvm) => legacy,
        format => Layout::of(format, pointer_size, i64_align),
    }
}

/// One entry as its bytes hold it, before relocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawEntry {
    /// The absolute offset of the entry.
    pub offset: u64,
    /// `reserved` (LLVM 20+; 0 in LLVM 19).
    pub reserved: u64,
    /// `version` (LLVM 20+: 1; 0 for LLVM 19 entries, which have none).
    pub version: u16,
    /// `kind` (LLVM 20+: the offload kind flag, 1 OpenMP, 2 CUDA, 4 HIP, 8 SYCL; 0 for LLVM 19).
    pub kind: u16,
    /// `flags`.
    pub flags: u32,
    /// The `addr` pointer's stored bits.
    pub addr: u64,
    /// The `name` pointer's stored bits.
    pub name: u64,
    /// `size`.
    pub size: u64,
    /// `data` (LLVM 20+) or `reserved` (LLVM 19's `int32_t`, zero-extended).
    pub data: u64,
    /// The `aux_addr` pointer's stored bits (LLVM 20+).
    pub aux_addr: u64,
}

/// Reads a word of `width` (1, 2, 4 or 8) bytes at `pos` of `bytes`.
pub(crate) fn read_word(bytes: &[u8], pos: u64, width: u8, endian: Endianness) -> Option<u64> {
    let start = usize::try_from(pos).ok()?;
    let b = bytes.get(start..start.checked_add(usize::from(width))?)?;
    let mut buf = [0u8; 8];
    match endian {
        Endianness::Little => {
            buf.get_mut(..b.len())?.copy_from_slice(b);
            Some(u64::from_le_bytes(buf))
        }
        Endianness::Big => {
            buf.get_mut(8 - b.len()..)?.copy_from_slice(b);
            Some(u64::from_be_bytes(buf))
        }
    }
}

/// Decodes the entries of a table's bytes (`base` = absolute offset of `bytes[0]`) without
/// applying relocations. The section size must be a whole number of entries.
pub fn parse_raw(
    bytes: &[u8],
    layout: Layout,
    endian: Endianness,
    base: u64,
) -> Result<Vec<RawEntry>> {
    let len = bytes.len() as u64;
    if layout.stride == 0 || len % layout.stride != 0 {
        return Err(Error::Invalid {
            what: "offload entry table",
            offset: base,
            reason: format!(
                "its {len} bytes are not a whole number of {}-byte entries",
                layout.stride
            ),
        });
    }
    let count = len / layout.stride;
    if count > limits::MAX_ROWS as u64 {
        return Err(Error::limit(
            limits::Limit::Rows,
            "offload entry count",
            base,
            count,
        ));
    }
    let p = layout.pointer_size;
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = i * layout.stride;
        let word = |off: u64, width: u8| {
            read_word(bytes, at + off, width, endian).ok_or(Error::Truncated {
                what: "offload entry",
                offset: base + at,
                needed: layout.stride,
                left: len - at,
            })
        };
        let mut e = RawEntry {
            offset: base + at,
            reserved: 0,
            version: 0,
            kind: 0,
            flags: 0,
            addr: word(layout.addr_offset(), p)?,
            name: word(layout.name_offset(), p)?,
            size: word(layout.size_offset(), layout.size_width())?,
            data: 0,
            aux_addr: 0,
        };
        let after_size = layout.size_offset() + u64::from(layout.size_width());
        match layout.format {
            Format::Legacy => {
                e.flags = word(after_size, 4)? as u32;
                e.data = word(after_size + 4, 4)?;
            }
            Format::Llvm => {
                e.reserved = word(0, 8)?;
                e.version = word(8, 2)? as u16;
                e.kind = word(10, 2)? as u16;
                e.flags = word(12, 4)? as u32;
                e.data = word(after_size, 8)?;
                e.aux_addr = word(after_size + 8, p)?;
            }
        }
        out.push(e);
    }
    Ok(out)
}

/// A pointer field after relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Address<'d> {
    /// The address, when it is known: in a linked file the link-time virtual address (a PIE's
    /// load base is 0); in a relocatable object only the value of a field no relocation covers.
    pub value: Option<u64>,
    /// The symbol the field refers to: the relocation's symbol in a relocatable object (for a
    /// section symbol, the symbol defined at that spot when there is one), an undefined
    /// dynamic symbol, or in a linked file the symbol found at `value`.
    pub symbol: Option<&'d [u8]>,
    /// The relocation addend, when `symbol` is the relocation's and not an exact match.
    pub addend: i64,
}

impl Address<'_> {
    /// Whether the field is a null pointer.
    pub fn is_null(&self) -> bool {
        self.value == Some(0) && self.symbol.is_none()
    }
}

impl fmt::Display for Address<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.symbol, self.value) {
            (Some(s), _) => {
                f.write_str(&String::from_utf8_lossy(s))?;
                match self.addend {
                    0 => Ok(()),
                    a if a < 0 => write!(f, "-{:#x}", a.unsigned_abs()),
                    a => write!(f, "+{a:#x}"),
                }
            }
            (None, Some(0)) => f.write_str("null"),
            (None, Some(v)) => write!(f, "{v:#x}"),
            (None, None) => f.write_str("?"),
        }
    }
}

/// What the `name` pointer of an entry points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Name<'d> {
    /// A null pointer (an OpenMP `requires` entry has one).
    Null,
    /// The NUL-terminated string it points at (without the NUL).
    Str(&'d [u8]),
    /// A pointer into something this file does not hold (an undefined symbol).
    Unresolved(Address<'d>),
}

impl Name<'_> {
    /// The name, lossily decoded: the string, empty for null, `<sym+addend>` when unresolved.
    pub fn display(&self) -> String {
        match self {
            Name::Null => String::new(),
            Name::Str(s) => String::from_utf8_lossy(s).into_owned(),
            Name::Unresolved(a) => format!("<{a}>"),
        }
    }
}

/// One entry with its pointers resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry<'d> {
    /// The index of the entry in its table.
    pub index: usize,
    /// The entry as stored.
    pub raw: RawEntry,
    /// The programming model (the table's, or for LLVM 20+ the entry's `kind`).
    pub offload_kind: OffloadKind,
    /// The host address: a kernel's `.region_id` (OpenMP), host stub (CUDA) or handle (HIP),
    /// or a variable's host copy.
    pub addr: Address<'d>,
    /// The symbol name to look up in the device image.
    pub name: Name<'d>,
    /// `aux_addr` (LLVM 20+; null otherwise).
    pub aux_addr: Address<'d>,
    /// The entry's layout.
    pub format: Format,
}

impl Entry<'_> {
    /// The LLVM release whose meanings of the flags apply: 19 for a 32-byte entry, the newest
    /// offkit knows (22) for a 56-byte one.
    pub(crate) fn release(&self) -> LlvmVersion {
        self.format.release()
    }

    /// What the entry registers, and its flags by name.
    pub fn describe(&self) -> Description {
        describe(
            self.release(),
            self.offload_kind,
            self.raw.flags,
            self.raw.size,
            self.raw.data,
        )
    }
}

/// One entry table: the entries of one section of one ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table<'d> {
    /// Which section.
    pub kind: TableKind,
    /// The section's index in the section header table.
    pub section_index: usize,
    /// The absolute offset of the section's contents.
    pub offset: u64,
    /// The entry layout.
    pub layout: Layout,
    /// How the pointers were resolved.
    pub resolution: Resolution,
    /// The entries, in section order.
    pub entries: Vec<Entry<'d>>,
}

/// How an entry table's pointer fields were resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// A relocatable object: through the section's static relocations.
    Static,
    /// A linked file: the section contents plus the dynamic relocations (`.rela.dyn`,
    /// `.rel.dyn`, `.relr.dyn`) that cover it.
    Dynamic,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(Layout::legacy(8).stride, 32);
        assert_eq!(Layout::legacy(4).stride, 20);
        assert_eq!(Layout::llvm(8, 8).stride, 56);
        assert_eq!(Layout::llvm(4, 4).stride, 44);
        assert_eq!(Layout::llvm(4, 8).stride, 48);
        let l = Layout::llvm(8, 8);
        assert_eq!(
            (l.addr_offset(), l.name_offset(), l.size_offset()),
            (16, 24, 32)
        );
        assert_eq!(l.aux_addr_offset(), Some(48));
        let l = Layout::legacy(4);
        assert_eq!(
            (l.addr_offset(), l.name_offset(), l.size_offset()),
            (0, 4, 8)
        );
    }

    #[test]
    fn raw_big_endian_and_32_bit() {
        // A ppc64 entry: size 8, flags 1 (link), big-endian.
        let mut b = vec![0u8; 32];
        b[23] = 8;
        b[27] = 1;
        let e = parse_raw(&b, Layout::legacy(8), Endianness::Big, 0x40).unwrap();
        assert_eq!((e[0].size, e[0].flags, e[0].offset), (8, 1, 0x40));
        // An i386 entry: 20 bytes, name pointer 0x17 (REL implicit addend), flags 4.
        let mut b = vec![0u8; 40];
        b[24] = 0x17;
        b[32] = 4;
        let e = parse_raw(&b, Layout::legacy(4), Endianness::Little, 0).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[1].name, e[1].flags), (0x17, 4));
        assert!(parse_raw(&b[..39], Layout::legacy(4), Endianness::Little, 0).is_err());
    }

    #[test]
    fn raw_llvm_format() {
        let mut b = vec![0u8; 56];
        b[8] = 1; // version
        b[10] = 4; // kind: HIP
        b[12] = 0x10; // constant
        b[32] = 16; // size
        b[40] = 7; // data
        let e = parse_raw(&b, Layout::llvm(8, 8), Endianness::Little, 0).unwrap();
        assert_eq!(
            (e[0].version, e[0].kind, e[0].flags, e[0].size, e[0].data),
            (1, 4, 0x10, 16, 7)
        );
    }

    #[test]
    fn layouts_are_detected_by_content() {
        let le = Endianness::Little;
        let mut v1 = vec![0u8; 56];
        v1[8] = 1; // version
        v1[10] = 1; // OpenMP
        let detect = |b: &[u8], k| detect_layout(b, k, 8, 8, le).format;
        // 56-byte entries in an old section name, with LLVM's all-zero dummy entry.
        let mut two = v1.clone();
        two.extend_from_slice(&[0u8; 56]);
        assert_eq!(detect(&two, TableKind::OpenMp), Format::Llvm);
        assert_eq!(detect(&v1, TableKind::Hip), Format::Llvm);
        // 224 zero bytes are seven 32-byte entries of an object (or four 56-byte ones with no
        // version): the section's own layout.
        assert_eq!(detect(&[0u8; 224], TableKind::OpenMp), Format::Legacy);
        assert_eq!(detect(&[0u8; 224], TableKind::Llvm), Format::Llvm);
        // A linked 32-byte table: addresses in the first word.
        let mut linked = vec![0u8; 224];
        linked[0] = 0x40;
        linked[8] = 1;
        assert_eq!(detect(&linked, TableKind::OpenMp), Format::Legacy);
        // 32-byte entries in llvm_offload_entries when 56-byte ones cannot fit.
        assert_eq!(detect(&[0u8; 64], TableKind::Llvm), Format::Legacy);
        // Neither fits: the section's layout, whose parse then says why.
        assert_eq!(detect(&[0u8; 50], TableKind::Llvm), Format::Llvm);
        assert!(parse_raw(&[0u8; 50], Layout::llvm(8, 8), le, 0).is_err());
        // 32-bit hosts: 44-byte (i386) entries.
        let mut i386 = vec![0u8; 44];
        i386[8] = 1;
        assert_eq!(detect_layout(&i386, TableKind::OpenMp, 4, 4, le).stride, 44);
    }

    #[test]
    fn describe_flags() {
        let describe = |k, f, s, d| describe(LlvmVersion::V19, k, f, s, d);
        let d = describe(OffloadKind::OpenMp, 0, 0, 0);
        assert_eq!(d.role, Role::Kernel);
        let d = describe(OffloadKind::OpenMp, 1, 8, 0);
        assert_eq!((d.role, d.flags.as_slice()), (Role::Link, &["link"][..]));
        let d = describe(OffloadKind::OpenMp, 0x10, 0, 8);
        assert_eq!(d.role, Role::Requires);
        assert_eq!(d.requires, ["unified_shared_memory"]);
        let d = describe(OffloadKind::Hip, 0x10, 4, 0);
        assert_eq!(
            (d.role, d.flags.as_slice()),
            (Role::Variable, &["constant"][..])
        );
        let d = describe(OffloadKind::Cuda, 0x29, 4, 0);
        assert_eq!(d.role, Role::Managed);
        assert_eq!(d.flags, ["extern", "normalized"]);
        let d = describe(OffloadKind::Cuda, 0x100, 0, 0);
        assert_eq!((d.role, d.unknown_flags), (Role::Kernel, 0x100));
        // By release: 19 knows ctor and dtor, 22 the indirect vtable.
        assert_eq!(describe(OffloadKind::OpenMp, 0x2, 0, 0).role, Role::Ctor);
        let d22 = super::describe(LlvmVersion::V22, OffloadKind::OpenMp, 0x2, 0, 0);
        assert_eq!((d22.role, d22.unknown_flags), (Role::Kernel, 0x2));
        let d22 = super::describe(LlvmVersion::V22, OffloadKind::OpenMp, 0x28, 8, 0);
        assert_eq!(d22.role, Role::IndirectFunction);
        assert_eq!(d22.flags, ["indirect", "indirect_vtable"]);
        let d22 = super::describe(LlvmVersion::V22, OffloadKind::OpenMp, 0x20, 8, 0);
        assert_eq!(d22.role, Role::IndirectVtable);
        let d19 = describe(OffloadKind::OpenMp, 0x20, 8, 0);
        assert_eq!((d19.role, d19.unknown_flags), (Role::Variable, 0x20));
    }
}
