//! What differs between the LLVM releases' wrapper modules, in one table per release.
//!
//! LLVM 19 and LLVM 22 (`llvm/lib/Frontend/Offloading/OffloadWrapper.cpp` and `Utility.cpp`)
//! build the same module but for these differences; everything else — sections, symbols, the
//! constructors and destructors, the descriptor, the image layout — is the same code in both,
//! and so the same bytes here:
//!
//! | | LLVM 19 | LLVM 22 |
//! |---|---|---|
//! | entry table | `omp_`/`cuda_`/`hip_offloading_entries` | `llvm_offload_entries` (all kinds) |
//! | `__tgt_offload_entry` | `{ ptr, ptr, i64, i32, i32 }`, 32 bytes | `{ i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }`, 56 bytes |
//! | dummy entry | no alignment | `align 8` (the same object) |
//! | CUDA/HIP entry walk | every entry; `flags & 7`: 0 variable, others skipped (CUDA) or surface/texture (HIP) | entries of the kind's own `Kind` (CUDA 2, HIP 4); managed variables registered (`__{cuda,hip}RegisterManagedVar`), surface/texture for HIP only; HIP's switch is a jump table in `.rodata` on x86-64 |
//! | HIP bundle's host entry | `host-x86_64-unknown-linux--` | `host-x86_64-unknown-linux-gnu-` |
//! | OpenMP offload binary | offload kind 1 | offload kind 1 (HIP would be 4: bit flags) |
//!
//! The offload binary's numbering is `offkit_format::binary::layout_v1`'s (it takes the release).

use offkit_format::entry::TableKind;
use offkit_llvm::LlvmVersion;

use crate::Kind;

/// The entry walk of the CUDA/HIP registration (`.{cuda,hip}.globals_reg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// LLVM 19: 32-byte entries, all of them.
    Llvm19,
    /// LLVM 22: 56-byte entries of the kind's own `Kind`, managed variables too.
    Llvm22,
}

/// One release's wrapper module.
#[derive(Debug)]
pub(crate) struct Release {
    /// The release.
    pub llvm: LlvmVersion,
    /// The entry tables: one per kind (19), or one for all (22).
    tables: fn(Kind) -> TableKind,
    /// The IR type `%struct.__tgt_offload_entry`.
    pub entry_ty: &'static str,
    /// What follows the dummy entry's section in IR (its alignment, in 22).
    pub dummy_align: &'static str,
    /// The CUDA/HIP entry walk.
    pub walk: Walk,
    /// The host entry of the HIP offload bundle (the bundler's normalized form of the
    /// `-targets=host-…` the linker wrapper passes).
    pub hip_host_id: &'static str,
}

static LLVM19: Release = Release {
    llvm: LlvmVersion::V19,
    tables: |k| match k {
        Kind::OpenMp => TableKind::OpenMp,
        Kind::Cuda => TableKind::Cuda,
        Kind::Hip => TableKind::Hip,
    },
    entry_ty: "{ ptr, ptr, i64, i32, i32 }",
    dummy_align: "",
    walk: Walk::Llvm19,
    hip_host_id: "host-x86_64-unknown-linux--",
};

static LLVM22: Release = Release {
    llvm: LlvmVersion::V22,
    tables: |_| TableKind::Llvm,
    entry_ty: "{ i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }",
    dummy_align: ", align 8",
    walk: Walk::Llvm22,
    hip_host_id: "host-x86_64-unknown-linux-gnu-",
};

impl Release {
    /// The table of `llvm` (a release newer than offkit knows writes what the newest one does).
    pub fn of(llvm: LlvmVersion) -> &'static Release {
        match llvm {
            LlvmVersion::V19 => &LLVM19,
            _ => &LLVM22,
        }
    }

    /// The entry section the module for `kind` walks (`__start_`/`__stop_` bound it).
    pub fn entries(&self, kind: Kind) -> &'static str {
        (self.tables)(kind).section_name()
    }

    /// `__start_<entries>`.
    pub fn start(&self, kind: Kind) -> &'static str {
        bounds((self.tables)(kind)).0
    }

    /// `__stop_<entries>`.
    pub fn stop(&self, kind: Kind) -> &'static str {
        bounds((self.tables)(kind)).1
    }

    /// What the CUDA/HIP entry walk of `kind` needs.
    pub fn entries_walk(&self, kind: Kind) -> Entries {
        Entries {
            walk: self.walk,
            start: self.start(kind),
            stop: self.stop(kind),
        }
    }
}

/// The CUDA/HIP entry walk and the bounds of the table it walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entries {
    /// How entries are read and registered.
    pub walk: Walk,
    /// `__start_<entries>`.
    pub start: &'static str,
    /// `__stop_<entries>`.
    pub stop: &'static str,
}

/// The symbols the linker defines around an entry section.
fn bounds(t: TableKind) -> (&'static str, &'static str) {
    match t {
        TableKind::OpenMp => (
            "__start_omp_offloading_entries",
            "__stop_omp_offloading_entries",
        ),
        TableKind::Cuda => (
            "__start_cuda_offloading_entries",
            "__stop_cuda_offloading_entries",
        ),
        TableKind::Hip => (
            "__start_hip_offloading_entries",
            "__stop_hip_offloading_entries",
        ),
        TableKind::Llvm => (
            "__start_llvm_offload_entries",
            "__stop_llvm_offload_entries",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        let r19 = Release::of(LlvmVersion::V19);
        assert_eq!(r19.entries(Kind::Hip), "hip_offloading_entries");
        assert_eq!(r19.start(Kind::OpenMp), "__start_omp_offloading_entries");
        let r22 = Release::of(LlvmVersion::V22);
        for k in [Kind::OpenMp, Kind::Cuda, Kind::Hip] {
            assert_eq!(r22.stop(k), "__stop_llvm_offload_entries");
        }
        for t in TableKind::ALL {
            let (start, stop) = bounds(t);
            assert_eq!(start, format!("__start_{}", t.section_name()));
            assert_eq!(stop, format!("__stop_{}", t.section_name()));
        }
    }
}
