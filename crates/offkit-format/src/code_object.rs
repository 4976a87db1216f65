//! What is inside a device code object, from its ELF header and symbols: for AMD GPU code
//! objects (`EM_AMDGPU`) the target ID the header encodes (processor from `EF_AMDGPU_MACH`,
//! `xnack` and `sramecc` by code-object version), the code-object version and the kernels
//! (their `.kd` kernel descriptors); for cubins (`EM_CUDA`) the SM and the kernels (`STO_CUDA_ENTRY`
//! functions); for other ELF device images (OpenMP's x86_64, aarch64, … offload images) their
//! offload entries, read by [`crate::entry`].
//!
//! ```text
//! image bytes ─describe─► CodeObject { target_id, code_object_version, kernels, entries,
//!                                      resources }
//!                            └─check_container(bundle entry ID) ─► warnings
//! stream of a compressed bundle ─parts::wants, Parts::add─► Parts ─describe_parts─► CodeObject
//! ```
//!
//! With the kernels come their resources ([`Resources`]): for AMD GPU code objects those of the
//! metadata note ([`amdgpu`]: registers, LDS, scratch, spills, wavefront size, …), for cubins
//! those `cuobjdump -res-usage` reports ([`cuda`]: registers, stack, shared, local and constant
//! memory).
//!
//! Reading is bounded (the symbol table is walked once; at most [`limits::MAX_KERNELS`] names
//! are kept) and never fails: what cannot be read becomes a warning, since the image itself
//! is still listed. An image that is not at hand whole (inside a compressed bundle, read as a
//! stream) is described from the [`Parts`] of it that the description needs, which
//! `parts::wants` names.
//!
//! ```no_run
//! let image = std::fs::read("kernel-gfx90a.o").unwrap();
//! let co = offkit_format::code_object::describe(&image).unwrap();
//! println!("{} v{:?}: {:?}", co.target_id, co.code_object_version, co.kernels);
//! ```

pub mod amdgpu;
pub mod cuda;
mod mach;
pub(crate) mod parts;

use object::read::elf::{FileHeader, SectionTable, Sym, SymbolTable};
use object::{elf, Endianness, FileKind, ReadRef};

pub use parts::Parts;

use crate::entry::{self, Role};
use offkit_llvm::target_id::TargetId;
use offkit_llvm::triple::Triple;
use offkit_read::limits;

/// `ELFOSABI_AMDGPU_HSA`.
pub(crate) const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `STT_AMDGPU_HSA_KERNEL` (code object v2 kernel symbols).
pub(crate) const STT_AMDGPU_HSA_KERNEL: u8 = 10;
/// `STO_CUDA_ENTRY`: a cubin function that is a kernel.
pub(crate) const STO_CUDA_ENTRY: u8 = 0x10;
/// `EF_AMDGPU_MACH`.
pub(crate) const EF_AMDGPU_MACH: u32 = 0xff;

/// Which kind of code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// An AMD GPU code object (`EM_AMDGPU`).
    Amdgpu,
    /// A cubin (`EM_CUDA`).
    Cuda,
    /// Any other ELF file (an OpenMP host-architecture offload image).
    Other,
}

impl Arch {
    /// `amdgpu`, `cuda` or `other`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Amdgpu => "amdgpu",
            Arch::Cuda => "cuda",
            Arch::Other => "other",
        }
    }
}

/// A target feature's setting in an AMDGPU header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setting {
    /// The processor does not have the feature.
    Unsupported,
    /// The code runs with the feature on or off.
    Any,
    /// The code needs the feature off.
    Off,
    /// The code needs the feature on.
    On,
}

impl Setting {
    /// `unsupported`, `any`, `off`, `on`.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Unsupported => "unsupported",
            Setting::Any => "any",
            Setting::Off => "off",
            Setting::On => "on",
        }
    }

    /// The target ID suffix: `+`, `-`, or none.
    fn sign(self) -> Option<char> {
        match self {
            Setting::On => Some('+'),
            Setting::Off => Some('-'),
            _ => None,
        }
    }
}

/// One offload entry of an OpenMP image.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EntryName {
    /// What it registers.
    pub role: Role,
    /// Its name.
    pub name: String,
}

/// What the header and symbols of a device ELF image say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeObject {
    /// Which kind.
    pub arch: Arch,
    /// `e_machine`.
    pub machine: u16,
    /// `e_flags`.
    pub e_flags: u32,
    /// `EI_OSABI`.
    pub os_abi: u8,
    /// `EI_ABIVERSION`.
    pub abi_version: u8,
    /// The processor the header names (`gfx90a`, `sm_80`); empty if none.
    pub processor: String,
    /// The target ID the header encodes (`gfx90a:xnack+`, `sm_80`); empty if none.
    pub target_id: String,
    /// AMDGPU: the `xnack` setting.
    pub xnack: Option<Setting>,
    /// AMDGPU: the `sramecc` setting.
    pub sramecc: Option<Setting>,
    /// AMDGPU (HSA): the code-object version (`EI_ABIVERSION` + 2).
    pub code_object_version: Option<u32>,
    /// AMDGPU code object v6+: the generic version of a generic processor.
    pub generic_version: Option<u32>,
    /// The kernels, in symbol-table order.
    pub kernels: Vec<String>,
    /// OpenMP images: the offload entries of their entry tables.
    pub entries: Vec<EntryName>,
    /// What the kernels use, when the symbols were read and the code object records it.
    pub resources: Option<Resources>,
    /// What could not be read, and where the header disagrees with its container.
    pub warnings: Vec<String>,
}

/// What a code object's kernels use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resources {
    /// An AMD GPU code object: each kernel of its metadata note, in the note's order.
    Amdgpu(Vec<amdgpu::KernelResources>),
    /// A cubin: module-wide and per function, as `cuobjdump -res-usage` reports them.
    Cuda(cuda::Resources),
}

/// Describes the ELF image `data`; `None` if it is not ELF.
pub fn describe(data: &[u8]) -> Option<CodeObject> {
    describe_at(data, 0)
}

/// [`describe`] for an image whose first byte is at absolute offset `base` (in its file, or in
/// the inflated data it came from), which the warnings' offsets count from.
pub fn describe_at(data: &[u8], base: u64) -> Option<CodeObject> {
    describe_with(data, base, Some(data))
}

/// Describes an image from the parts of it that are held (see `parts::wants`); the whole
/// description when they are all there.
pub fn describe_parts(parts: &Parts, base: u64) -> Option<CodeObject> {
    match parts.whole() {
        Some(whole) => describe_at(whole, base),
        None => describe_with(parts, base, None),
    }
}

/// Describes the ELF image `data` from its file header only (target ID, code-object version),
/// without its kernels or entries: all that a prefix of the image (the part of a compressed
/// bundle decompressed so far) can tell, and what costs one page of a mapped file.
pub(crate) fn describe_header(data: &[u8]) -> Option<CodeObject> {
    let head = data.get(..parts::ELF_HEADER as usize).unwrap_or(data);
    let mut parts = Parts::new(head.len() as u64);
    parts.add(0, head);
    describe_with(&parts, 0, None)
}

/// `whole`: the image's bytes when they are all at hand (an OpenMP image's entry tables are
/// read from them).
fn describe_with<'d, R: ReadRef<'d>>(
    data: R,
    base: u64,
    whole: Option<&[u8]>,
) -> Option<CodeObject> {
    match FileKind::parse(data) {
        Ok(FileKind::Elf32) => of::<elf::FileHeader32<Endianness>, R>(data, base, whole),
        Ok(FileKind::Elf64) => of::<elf::FileHeader64<Endianness>, R>(data, base, whole),
        _ => None,
    }
}

fn of<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
    data: R,
    base: u64,
    whole: Option<&[u8]>,
) -> Option<CodeObject> {
    let h = Elf::parse(data).ok()?;
    let endian = h.endian().ok()?;
    let ident = h.e_ident();
    let machine = h.e_machine(endian);
    let mut co = CodeObject {
        arch: match machine {
            elf::EM_AMDGPU => Arch::Amdgpu,
            elf::EM_CUDA => Arch::Cuda,
            _ => Arch::Other,
        },
        machine: machine.0,
        e_flags: h.e_flags(endian).0,
        os_abi: ident.os_abi.0,
        abi_version: ident.abi_version,
        processor: String::new(),
        target_id: String::new(),
        xnack: None,
        sramecc: None,
        code_object_version: None,
        generic_version: None,
        kernels: Vec::new(),
        entries: Vec::new(),
        resources: None,
        warnings: Vec::new(),
    };
    match co.arch {
        Arch::Amdgpu => co.amdgpu_header(),
        Arch::Cuda => co.cuda_header(),
        Arch::Other => {}
    }
    let size = data.len().unwrap_or(0);
    if co.arch == Arch::Other {
        match whole {
            Some(bytes) => co.openmp_entries(bytes),
            None if size > parts::ELF_HEADER => co.warnings.push(format!(
                "the offload entries of an image of {size} bytes in a compressed bundle are \
                 not read (more than MAX_CODE_OBJECT_PARTS); extract it to see them"
            )),
            None => {}
        }
        return Some(co);
    }
    if whole.is_none() && size <= parts::ELF_HEADER {
        // A header alone (`describe_header`).
        return Some(co);
    }
    co.symbols::<Elf, R>(h, endian, data, base);
    Some(co)
}

impl CodeObject {
    /// Decodes the AMDGPU `e_flags` (LLVM's `AMDGPUTargetStreamer` and `llvm-readobj`): the
    /// processor, and `xnack`/`sramecc` as the code-object version encodes them.
    fn amdgpu_header(&mut self) {
        let hsa = self.os_abi == ELFOSABI_AMDGPU_HSA;
        let version = hsa.then(|| u32::from(self.abi_version) + 2);
        self.code_object_version = version;
        if version == Some(2) {
            // V2 names its processor in an `NT_AMD_HSA_ISA` note; its e_flags bits 0 and 1
            // are xnack and the trap handler, not EF_AMDGPU_MACH.
            self.warnings.push(
                "code object v2 names its processor in a note, which offkit does not read".into(),
            );
            return;
        }
        let mach = self.e_flags & EF_AMDGPU_MACH;
        match mach::processor(mach) {
            Some(p) => self.processor = p.to_string(),
            None => {
                self.warnings.push(format!(
                    "unknown AMDGPU processor EF_AMDGPU_MACH {mach:#x} in e_flags {:#x}",
                    self.e_flags
                ));
                return;
            }
        }
        // The newest release that knows the processor says (`gfx940` is 19's only).
        let amdgcn = Triple::parse("amdgcn-amd-amdhsa");
        let supports = |feature: &str| {
            offkit_llvm::target_id::allowed_features_any(&amdgcn, self.processor.as_bytes())
                .contains(&feature)
        };
        let f = self.e_flags;
        match version {
            // V3: a bit per feature, on or off.
            Some(3) => {
                let v3 = |bit: u32, name: &str| {
                    if f & bit != 0 {
                        Setting::On
                    } else if supports(name) {
                        Setting::Off
                    } else {
                        Setting::Unsupported
                    }
                };
                self.xnack = Some(v3(0x100, "xnack"));
                self.sramecc = Some(v3(0x200, "sramecc"));
            }
            // V4 and later (and non-HSA): two bits per feature.
            _ => {
                let v4 = |bits: u32| match bits {
                    0 => Setting::Unsupported,
                    1 => Setting::Any,
                    2 => Setting::Off,
                    _ => Setting::On,
                };
                self.xnack = Some(v4((f >> 8) & 3));
                self.sramecc = Some(v4((f >> 10) & 3));
                if version.is_some_and(|v| v >= 6) && f >> 24 != 0 {
                    self.generic_version = Some(f >> 24);
                }
            }
        }
        let mut tid = self.processor.clone();
        // Features in name order, as LLVM's canonical target IDs have them.
        for (name, s) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(sign) = s.and_then(Setting::sign) {
                tid.push(':');
                tid.push_str(name);
                tid.push(sign);
            }
        }
        self.target_id = tid;
    }

    /// The SM of a cubin's `e_flags`: bits 0–7 in the original ABI (`EI_ABIVERSION` 7 and
    /// before), bits 8–15 from ABI version 8 (CUDA 12.8 and later).
    fn cuda_header(&mut self) {
        let sm = if self.abi_version >= 8 {
            (self.e_flags >> 8) & 0xff
        } else {
            self.e_flags & 0xff
        };
        if sm == 0 {
            self.warnings.push(format!(
                "no SM architecture in cubin e_flags {:#x}",
                self.e_flags
            ));
            return;
        }
        self.processor = format!("sm_{sm}");
        self.target_id = self.processor.clone();
    }

    /// Kernel names from the symbol table (`.symtab`, else `.dynsym`) and their resources.
    fn symbols<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
        &mut self,
        h: &Elf,
        endian: Endianness,
        data: R,
        base: u64,
    ) {
        let tables = h.sections(endian, data).and_then(|s| {
            let t = s.symbols(endian, data, elf::SHT_SYMTAB)?;
            let t = if t.is_empty() {
                s.symbols(endian, data, elf::SHT_DYNSYM)?
            } else {
                t
            };
            Ok((s, t))
        });
        let (sections, symbols) = match tables {
            Ok(t) => t,
            Err(e) => {
                self.warnings
                    .push(format!("cannot read the symbol table: {e}"));
                return;
            }
        };
        self.kernels_from_symbols::<Elf, R>(&symbols, endian);
        self.resources::<Elf, R>(&sections, &symbols, endian, data, base);
    }

    /// Kernel names: AMDGPU kernel descriptors `NAME.kd` (v3+) or `STT_AMDGPU_HSA_KERNEL`
    /// symbols (v2); cubin functions marked `STO_CUDA_ENTRY`.
    fn kernels_from_symbols<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
        &mut self,
        symbols: &SymbolTable<'d, Elf, R>,
        endian: Endianness,
    ) {
        for sym in symbols.iter() {
            let Ok(name) = sym.name(endian, symbols.strings()) else {
                self.warnings
                    .push("a symbol name is outside the string table".into());
                continue;
            };
            let kernel = match self.arch {
                Arch::Amdgpu if sym.st_type().0 == STT_AMDGPU_HSA_KERNEL => Some(name),
                Arch::Amdgpu if sym.st_type() == elf::STT_OBJECT => name.strip_suffix(b".kd"),
                Arch::Cuda
                    if sym.st_type() == elf::STT_FUNC && sym.st_other().0 & STO_CUDA_ENTRY != 0 =>
                {
                    Some(name)
                }
                _ => None,
            };
            let Some(k) = kernel.filter(|k| !k.is_empty()) else {
                continue;
            };
            if self.kernels.len() >= limits::MAX_KERNELS {
                self.warnings.push(format!(
                    "more than {} kernels (MAX_KERNELS); the rest are not listed",
                    limits::MAX_KERNELS
                ));
                break;
            }
            self.kernels.push(String::from_utf8_lossy(k).into_owned());
        }
    }

    /// The resources: the AMDGPU metadata note's, or the cubin's `.nv.info` and sections'.
    fn resources<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
        &mut self,
        sections: &SectionTable<'d, Elf, R>,
        symbols: &SymbolTable<'d, Elf, R>,
        endian: Endianness,
        data: R,
        base: u64,
    ) {
        let r = match self.arch {
            Arch::Amdgpu => {
                amdgpu::resources(sections, endian, data, base).map(|k| k.map(Resources::Amdgpu))
            }
            Arch::Cuda => cuda::resources(sections, symbols, endian, data, base)
                .map(|r| Some(Resources::Cuda(r))),
            Arch::Other => Ok(None),
        };
        match r {
            Ok(r) => self.resources = r,
            Err(e) => self
                .warnings
                .push(format!("cannot read the kernels' resources: {e}")),
        }
    }

    /// The offload entries of an OpenMP image's entry tables; kernels are those of role
    /// kernel.
    fn openmp_entries(&mut self, data: &[u8]) {
        match entry::read_tables(data, 0) {
            Ok(tables) => {
                let mut good = Vec::new();
                for t in tables {
                    match t {
                        Ok(t) => good.push(t),
                        Err(e) => self.warnings.push(format!(
                            "cannot read the offload entry table {}: {}",
                            e.kind.section_name(),
                            e.error
                        )),
                    }
                }
                for e in good.iter().flat_map(|t| &t.entries) {
                    if self.entries.len() >= limits::MAX_KERNELS {
                        self.warnings.push(format!(
                            "more than {} offload entries (MAX_KERNELS); the rest are not listed",
                            limits::MAX_KERNELS
                        ));
                        break;
                    }
                    let role = e.describe().role;
                    let name = e.name.display();
                    if role == Role::Kernel {
                        self.kernels.push(name.clone());
                    }
                    self.entries.push(EntryName { role, name });
                }
            }
            Err(e) => self
                .warnings
                .push(format!("cannot read the offload entry tables: {e}")),
        }
    }

    /// Compares the header's target ID with the one its container gives (a bundle entry ID's
    /// target ID, an offload binary's `arch`, a fat binary entry's SM) and records a warning
    /// when they disagree. An empty container target ID says nothing; AMDGPU IDs are compared
    /// in canonical form (processor alias, feature order).
    pub fn check_container(&mut self, container_target_id: &str) {
        if container_target_id.is_empty() || self.target_id.is_empty() {
            return;
        }
        let same = match self.arch {
            Arch::Amdgpu => {
                let triple = Triple::parse("amdgcn-amd-amdhsa");
                match TargetId::parse_any(&triple, container_target_id) {
                    Ok(t) => t.canonical() == self.target_id.as_bytes(),
                    Err(_) => container_target_id == self.target_id,
                }
            }
            Arch::Cuda => container_target_id == self.target_id,
            Arch::Other => true,
        };
        if !same {
            self.warnings.push(format!(
                "the ELF header's target ID is `{}` but its container says `{container_target_id}`",
                self.target_id
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 header with no sections.
    fn header(machine: u16, os_abi: u8, abi_version: u8, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2; // ELFCLASS64
        h[5] = 1; // little-endian
        h[6] = 1;
        h[7] = os_abi;
        h[8] = abi_version;
        h[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[20..24].copy_from_slice(&1u32.to_le_bytes());
        h[48..52].copy_from_slice(&flags.to_le_bytes());
        h[52..54].copy_from_slice(&64u16.to_le_bytes());
        h
    }

    fn amdgpu(abi_version: u8, flags: u32) -> CodeObject {
        describe(&header(
            elf::EM_AMDGPU.0,
            ELFOSABI_AMDGPU_HSA,
            abi_version,
            flags,
        ))
        .unwrap()
    }

    #[test]
    fn amdgpu_target_ids_by_version() {
        // v5: gfx90a, xnack on, sramecc any.
        let co = amdgpu(3, 0x73f);
        assert_eq!(co.target_id, "gfx90a:xnack+");
        assert_eq!(co.code_object_version, Some(5));
        assert_eq!(
            (co.xnack, co.sramecc),
            (Some(Setting::On), Some(Setting::Any))
        );
        assert_eq!(amdgpu(2, 0xa4c).target_id, "gfx942:sramecc-:xnack-");
        assert_eq!(amdgpu(3, 0x36).target_id, "gfx1030");
        // v3: bits mean on; a clear bit means off where the processor has the feature.
        assert_eq!(amdgpu(1, 0x12f).target_id, "gfx906:sramecc-:xnack+");
        assert_eq!(amdgpu(1, 0x36).target_id, "gfx1030");
        // v2: the processor is in a note.
        let v2 = amdgpu(0, 0x01);
        assert!(v2.target_id.is_empty() && v2.code_object_version == Some(2));
        // v6 generic with its version.
        let g = amdgpu(4, 0x51 | 0x100 | (1 << 24));
        assert_eq!(
            (g.target_id.as_str(), g.generic_version),
            ("gfx9-generic", Some(1))
        );
        // Unknown processor: a warning, no target ID.
        let u = amdgpu(3, 0x27);
        assert!(u.target_id.is_empty() && !u.warnings.is_empty());
    }

    #[test]
    fn container_disagreement() {
        let mut co = amdgpu(3, 0x73f);
        co.check_container("gfx90a:xnack+");
        assert!(co.warnings.is_empty());
        co.check_container("gfx90a:xnack-");
        assert_eq!(co.warnings.len(), 1, "{:?}", co.warnings);
        let mut s = amdgpu(2, 0xa4c);
        s.check_container("gfx942:xnack-:sramecc-");
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn cubin_sm() {
        let old = describe(&header(elf::EM_CUDA.0, 0x33, 7, 0x0050_0550)).unwrap();
        assert_eq!(old.target_id, "sm_80");
        let new = describe(&header(elf::EM_CUDA.0, 0x41, 8, 0x0600_5904)).unwrap();
        assert_eq!(new.target_id, "sm_89");
        let mut n = new.clone();
        n.check_container("sm_90");
        assert_eq!(n.warnings.len(), 1);
        assert!(describe(b"not elf").is_none());
    }
}
