//! What an entry's flags mean, per programming model and LLVM release, as LLVM's runtimes and
//! registration code read them. The OpenMP names are one table with the releases as a column:
//! LLVM 19's runtime knows `ctor` and `dtor` (gone by 22), 22's knows `indirect_vtable`. A
//! 32-byte entry is read by 19's meanings, a 56-byte one by 22's.

use crate::kind::OffloadKind;
use offkit_llvm::{LlvmVersion, Releases};

/// What an entry registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A kernel (size 0): OpenMP target region, CUDA/HIP `__global__` function.
    Kernel,
    /// A global variable (OpenMP `declare target to/enter`, CUDA/HIP `__device__`).
    Variable,
    /// An OpenMP `declare target link` variable (the entry is the host's reference pointer).
    Link,
    /// An OpenMP indirect function (`declare target indirect`).
    IndirectFunction,
    /// An OpenMP indirect vtable (LLVM 22's `OMP_DECLARE_TARGET_INDIRECT_VTABLE`).
    IndirectVtable,
    /// An OpenMP global constructor.
    Ctor,
    /// An OpenMP global destructor.
    Dtor,
    /// An OpenMP `requires` registration (the flags are in `data`).
    Requires,
    /// A CUDA/HIP `__managed__` variable.
    Managed,
    /// A CUDA/HIP surface.
    Surface,
    /// A CUDA/HIP texture.
    Texture,
    /// A kind offkit does not know.
    Unknown,
}

impl Role {
    /// A short lowercase name: `kernel`, `variable`, `link`, `indirect`, `indirect-vtable`,
    /// `ctor`, `dtor`,
    /// `requires`, `managed`, `surface`, `texture`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Kernel => "kernel",
            Role::Variable => "variable",
            Role::Link => "link",
            Role::IndirectFunction => "indirect",
            Role::IndirectVtable => "indirect-vtable",
            Role::Ctor => "ctor",
            Role::Dtor => "dtor",
            Role::Requires => "requires",
            Role::Managed => "managed",
            Role::Surface => "surface",
            Role::Texture => "texture",
            Role::Unknown => "unknown",
        }
    }
}

/// The decoded meaning of an entry's flags.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Description {
    /// What the entry registers.
    pub role: Role,
    /// The names of the flag bits set, in bit order (e.g. `link`; `extern`, `constant`).
    pub flags: Vec<&'static str>,
    /// Bits offkit has no name for.
    pub unknown_flags: u32,
    /// For an OpenMP `requires` entry, the names of the requirement bits in `data`.
    pub requires: Vec<&'static str>,
}

/// OpenMP entry flags (`OpenMPOffloadingDeclareTargetFlags` of `offload/include/omptarget.h`
/// and the requires bit).
pub(crate) mod omp {
    use super::Releases;

    /// `declare target link`.
    pub(crate) const LINK: u32 = 0x01;
    /// Global constructor (LLVM 19; the bit is unused by 22).
    pub(crate) const CTOR: u32 = 0x02;
    /// Global destructor (LLVM 19; the bit is unused by 22).
    pub(crate) const DTOR: u32 = 0x04;
    /// `declare target indirect` function.
    pub(crate) const INDIRECT: u32 = 0x08;
    /// A `requires` registration entry.
    pub(crate) const REGISTER_REQUIRES: u32 = 0x10;
    /// An indirect vtable (LLVM 22).
    pub(crate) const INDIRECT_VTABLE: u32 = 0x20;
    /// The names of the flag bits, with the releases whose runtime knows each.
    pub(crate) const NAMES: [(u32, &str, Releases); 6] = [
        (LINK, "link", Releases::ALL),
        (CTOR, "ctor", Releases::UNTIL_22),
        (DTOR, "dtor", Releases::UNTIL_22),
        (INDIRECT, "indirect", Releases::ALL),
        (REGISTER_REQUIRES, "requires", Releases::ALL),
        (INDIRECT_VTABLE, "indirect_vtable", Releases::SINCE_22),
    ];
    /// The `requires` clauses (`OMP_REQ_*`, the same in 19 and 22) in the `data` of a requires
    /// entry.
    pub(crate) const REQUIRES_NAMES: [(u64, &str); 5] = [
        (0x001, "none"),
        (0x002, "reverse_offload"),
        (0x004, "unified_address"),
        (0x008, "unified_shared_memory"),
        (0x010, "dynamic_allocators"),
    ];
}

/// CUDA and HIP entry flags (`OffloadEntryKindFlag`, the same in 19 and 22).
pub(crate) mod cuda {
    /// Bits 0–2: the kind of a variable entry.
    pub(crate) const KIND_MASK: u32 = 0x7;
    /// A global variable.
    pub(crate) const GLOBAL: u32 = 0;
    /// A `__managed__` variable.
    pub(crate) const MANAGED: u32 = 1;
    /// A surface.
    pub(crate) const SURFACE: u32 = 2;
    /// A texture.
    pub(crate) const TEXTURE: u32 = 3;
    /// The variable is `extern` (defined in another translation unit).
    pub(crate) const EXTERN: u32 = 0x08;
    /// The variable is `__constant__`.
    pub(crate) const CONSTANT: u32 = 0x10;
    /// The texture is normalized.
    pub(crate) const NORMALIZED: u32 = 0x20;
    /// The names of the flag bits above the kind.
    pub(crate) const NAMES: [(u32, &str); 3] = [
        (EXTERN, "extern"),
        (CONSTANT, "constant"),
        (NORMALIZED, "normalized"),
    ];
}

/// Decodes `flags` of an entry of model `kind` with `size` and `data`, as release `llvm`'s
/// runtimes and registration code read them: OpenMP by flag bits (size 0 without flags is a
/// kernel), CUDA and HIP by size (0 is a kernel) and then the kind bits.
pub fn describe(
    llvm: LlvmVersion,
    kind: OffloadKind,
    flags: u32,
    size: u64,
    data: u64,
) -> Description {
    let named = |names: &mut dyn Iterator<Item = (u32, &'static str)>, flags: u32| {
        let mut known = 0;
        let mut out = Vec::new();
        for (bit, name) in names {
            if flags & bit != 0 {
                out.push(name);
                known |= bit;
            }
        }
        (out, flags & !known)
    };
    match kind {
        OffloadKind::OpenMp => {
            let known = |bit: u32| {
                omp::NAMES
                    .iter()
                    .any(|&(b, _, r)| b == bit && r.contains(llvm) && flags & bit != 0)
            };
            let (names, unknown) = named(
                &mut omp::NAMES
                    .iter()
                    .filter(|(_, _, r)| r.contains(llvm))
                    .map(|&(b, n, _)| (b, n)),
                flags,
            );
            let role = if known(omp::REGISTER_REQUIRES) {
                Role::Requires
            } else if known(omp::LINK) {
                Role::Link
            } else if known(omp::INDIRECT) {
                Role::IndirectFunction
            } else if known(omp::INDIRECT_VTABLE) {
                Role::IndirectVtable
            } else if known(omp::CTOR) {
                Role::Ctor
            } else if known(omp::DTOR) {
                Role::Dtor
            } else if size == 0 {
                Role::Kernel
            } else {
                Role::Variable
            };
            let requires = if role == Role::Requires {
                omp::REQUIRES_NAMES
                    .iter()
                    .filter(|(bit, _)| data & bit != 0)
                    .map(|(_, n)| *n)
                    .collect()
            } else {
                Vec::new()
            };
            Description {
                role,
                flags: names,
                unknown_flags: unknown,
                requires,
            }
        }
        OffloadKind::Cuda | OffloadKind::Hip => {
            let (names, unknown) = named(&mut cuda::NAMES.into_iter(), flags & !cuda::KIND_MASK);
            let role = if size == 0 {
                Role::Kernel
            } else {
                match flags & cuda::KIND_MASK {
                    cuda::GLOBAL => Role::Variable,
                    cuda::MANAGED => Role::Managed,
                    cuda::SURFACE => Role::Surface,
                    cuda::TEXTURE => Role::Texture,
                    _ => Role::Unknown,
                }
            };
            Description {
                role,
                flags: names,
                unknown_flags: unknown,
                requires: Vec::new(),
            }
        }
        _ => Description {
            role: if size == 0 {
                Role::Kernel
            } else {
                Role::Unknown
            },
            flags: Vec::new(),
            unknown_flags: flags,
            requires: Vec::new(),
        },
    }
}
