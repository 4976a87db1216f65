//! The containers offload data lives in, as every reader of this crate and its callers read
//! them: the [`sections`] of an object file that hold offload data (one iterator, one rule for
//! which section holds what: [`SectionKind::of`]), the [`members`] of a static archive, the
//! bitcode magic.
//!
//! ```text
//! libk.a ─members─► k.o ─sections─► Section { kind: OffloadBinaries, name: ".llvm.offloading", index, offset, data }
//!                                   Section { kind: HipFatbin | Bundle | CudaFatbin | EntryTable, .. }
//! ```

mod archive;
mod sections;

pub use archive::{members, Member};
pub use sections::{sections, Section, SectionKind, Sections, ENTRY_TABLES};

/// `SHT_LLVM_OFFLOADING`, the ELF section type of `.llvm.offloading`.
pub const SHT_LLVM_OFFLOADING: u32 = 0x6fff_4c0b;

/// The bitcode wrapper magic and the raw bitcode magic.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.starts_with(b"BC\xC0\xDE") || data.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// Makes the section alignments of an ELF file about to be rebuilt with `object`'s builder safe
/// for it: `0` (no constraint, as `1`) becomes `1`, and the index of the first section whose
/// alignment is not a power of two up to [`MAX_SECTION_ALIGN`], or that takes the padding the
/// alignments may add past [`MAX_ALIGN_PADDING`], is returned as an error. The builder computes
/// `(offset + align - 1) & !(align - 1)`, which overflows for `0` and is meaningless for
/// the others, and pads the output to each alignment (found by fuzzing
/// `offkit_link::relocate::rewrite`: a 2^32 alignment made a 4 GiB output).
///
/// [`MAX_SECTION_ALIGN`]: offkit_read::limits::MAX_SECTION_ALIGN
/// [`MAX_ALIGN_PADDING`]: offkit_read::limits::MAX_ALIGN_PADDING
pub fn builder_alignments<'a>(
    aligns: impl IntoIterator<Item = &'a mut u64>,
) -> std::result::Result<(), usize> {
    use offkit_read::limits::{MAX_ALIGN_PADDING, MAX_SECTION_ALIGN};
    let mut padding = 0u64;
    for (i, a) in aligns.into_iter().enumerate() {
        if *a == 0 {
            *a = 1;
        }
        if !a.is_power_of_two() || *a > MAX_SECTION_ALIGN {
            return Err(i);
        }
        padding += *a - 1;
        if padding > MAX_ALIGN_PADDING {
            return Err(i);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn builder_alignments_are_made_safe() {
        let mut a = [0u64, 1, 4096, 1 << 21];
        assert_eq!(super::builder_alignments(a.iter_mut()), Ok(()));
        assert_eq!(a, [1, 1, 4096, 1 << 21]);
        assert_eq!(super::builder_alignments([8u64, 12].iter_mut()), Err(1));
        assert_eq!(super::builder_alignments([1u64 << 32].iter_mut()), Err(0));
        assert_eq!(super::builder_alignments([u64::MAX].iter_mut()), Err(0));
        let mut many = vec![1u64 << 21; 40];
        assert_eq!(super::builder_alignments(many.iter_mut()), Err(32));
    }
}
