//! Named limits, checked before allocating or recursing: the one table for offkit's parsers
//! (the models of LLVM in `offkit-llvm`, such as bitcode, and the offload formats of
//! `offkit-format` alike), so that every limit is defined once and every error names it from
//! here ([`Limit`], [`Limit::exceeded`](crate::Limit::exceeded)).
//!
//! Every count read from an input is checked against the bytes left **and** one of these limits
//! before anything is allocated for it, so that no input makes offkit recurse deeper than
//! [`MAX_NESTING_DEPTH`] or produce more than [`MAX_ROWS`] rows.
//!
//! **Memory is bounded by design, not by a header's claim**: nothing is allocated from a size
//! field; compressed data is decompressed as a stream into a buffer that grows with what the
//! stream yields (or into output files), stopped the moment it yields more than its header says.
//! The bounds, for any input (peak resident memory, measured by `tests/all/memory.rs` and the
//! `bench/` scripts):
//! - listing (`offkit inspect`, `offkit check`, `offkit list` of `.hip_fatbin` sections,
//!   `extract`'s selection): ≤ 64 MiB whatever the input, since a compressed bundle is
//!   decompressed only as far as its entry table ([`MAX_INFLATED_PREFIX`]), then as a stream
//!   that keeps nothing else as far as its images' first bytes ([`MAX_INFLATED_HEADS`]);
//! - extracting: ≤ 64 MiB + the largest single image actually extracted, or, for an image
//!   inside a compressed bundle, + the bundle's decompressed size up to that image's end (zstd
//!   keeps the frame's window, and LLVM's frames are single-segment: the window is the bundle);
//! - rewriting (`compress`, `decompress`, `prune`, `replace`): ≤ 64 MiB + the largest bundle
//!   rewritten, and + twice its decompressed size when a compressed bundle is pruned or
//!   compressed again (the decompressor's window and the bundle compressed from); pruning a
//!   CUDA fat binary or an OpenMP `.llvm.offloading` section: + what it keeps (the bytes it
//!   frees are zeroed in the output, as holes where the file system can, never held).
//!
//! The input itself is memory-mapped, not read: its pages are released from the resident set
//! as the walk goes, and the holes of a sparse input (what offkit's own rewrites free) are
//! covered by zero pages that cost nothing. (`offkit list`/`unbundle` of a compressed bundle
//! *file* still hold the whole decompressed bundle — `offkit-bundle`'s strict reader — and
//! fail cleanly where memory cannot hold it.)

/// Defines each limit as a `pub const` and as a variant of [`Limit`], whose name is generated
/// from the constant's (so that no error spells a limit's name by hand).
macro_rules! limits {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:ident: $ty:ty = $value:expr;)*) => {
        $($(#[doc = $doc])* pub const $name: $ty = $value;)*

        /// One of the named limits, for errors: its value and its name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Limit {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Limit {
            /// The limit's value.
            pub const fn value(self) -> u64 {
                match self {
                    $(Limit::$variant => $name as u64,)*
                }
            }

            /// The name of the limit's constant (`MAX_ROWS`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Limit::$variant => stringify!($name),)*
                }
            }
        }
    };
}

limits! {
    /// The most bytes one decompression may produce (a compressed bundle or a compressed offload
    /// binary). A larger `uncompressed size` field is refused before any memory is reserved.
    InflatedSize = MAX_INFLATED_SIZE: u64 = 16 << 30;

    /// The most of a compressed bundle that listing it (`offkit inspect`, `list`, selecting
    /// images) decompresses: the prefix that holds its header and entry table (a few KiB in
    /// practice). A header longer than this is an error, not a reason to decompress more.
    InflatedPrefix = MAX_INFLATED_PREFIX: u64 = 16 << 20;

    /// How far listing a compressed bundle decompresses past its entry table to read the
    /// first bytes (the ELF header) of each image: as a stream, nothing held but those bytes
    /// and the decompressor's window, which this bounds. Images that start further in are
    /// listed without knowing their kind.
    InflatedHeads = MAX_INFLATED_HEADS: u64 = 32 << 20;

    /// How deep containers may nest (archive → object → section → bundle → compressed bundle → …).
    NestingDepth = MAX_NESTING_DEPTH: usize = 16;

    /// The most bytes of one code object that listing a compressed bundle keeps to describe it
    /// (its ELF and section headers, symbol tables, notes, `.nv.info`), read from the stream as
    /// they go by; a code object that needs more is described from its ELF header alone, with a
    /// warning.
    CodeObjectParts = MAX_CODE_OBJECT_PARTS: u64 = 32 << 20;

    /// The most rows (device images, bundle entries, entry-table entries) one scan reports.
    Rows = MAX_ROWS: usize = 1 << 20;

    /// The most string entries one offload-binary entry may have.
    Strings = MAX_STRINGS: u64 = 1 << 16;

    /// The most entries one offload binary (version 2 and later) may have.
    BinaryEntries = MAX_BINARY_ENTRIES: u64 = 1 << 16;

    /// The most entries one offload bundle may have.
    BundleEntries = MAX_BUNDLE_ENTRIES: u64 = 1 << 16;

    /// The longest bundle entry ID.
    BundleIdLen = MAX_BUNDLE_ID_LEN: u64 = 1 << 16;

    /// How deep bitcode blocks may nest (LLVM 19 writes at most 3 levels: module → function →
    /// constants/metadata).
    BitcodeBlockDepth = MAX_BITCODE_BLOCK_DEPTH: usize = 32;

    /// The most abbreviations one bitcode block (or one block ID in `BLOCKINFO`) may define.
    BitcodeAbbrevs = MAX_BITCODE_ABBREVS: usize = 1 << 12;

    /// The most entries the fat binaries of one section (`.nv_fatbin`, `__nv_relfatbin`) may have
    /// together (real libraries have a few thousand).
    FatbinEntries = MAX_FATBIN_ENTRIES: usize = 1 << 16;

    /// The largest fat binary entry header (real ones are 64 to 112 bytes).
    FatbinEntryHeader = MAX_FATBIN_ENTRY_HEADER: u64 = 1 << 12;

    /// The most kernel names (and OpenMP offload entries) one code object's description lists;
    /// the rest are left out with a warning.
    Kernels = MAX_KERNELS: usize = 1 << 16;

    /// The most images one registered image table (`__tgt_bin_desc`) found in a linked file may
    /// hold; a word giving more is not a descriptor.
    RegisteredImages = MAX_REGISTERED_IMAGES: u32 = 1 << 12;

    /// The largest section alignment of an object offkit rebuilds (the largest page size, 2 MiB;
    /// clang's objects use at most 4096): a rebuilt object pads each section to its alignment.
    SectionAlign = MAX_SECTION_ALIGN: u64 = 1 << 21;

    /// The most padding the section alignments of an object offkit rebuilds may add together
    /// (found by fuzzing: thousands of 2 MiB alignments in a small object made gigabytes).
    AlignPadding = MAX_ALIGN_PADDING: u64 = 64 << 20;
}

/// The most a compressed stream of `n` bytes can inflate to, so that a header claiming more can
/// be refused before anything is reserved: deflate expands at most 1032:1, zstd at most
/// 32768:1 (a 128 KiB RLE block costs 4 bytes); plus a frame header's worth.
pub fn max_inflated(zstd: bool, n: u64) -> u64 {
    n.saturating_mul(if zstd { 32768 } else { 1032 })
        .saturating_add(1 << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_come_from_the_constants() {
        assert_eq!(Limit::Rows.name(), "MAX_ROWS");
        assert_eq!(Limit::Rows.value(), MAX_ROWS as u64);
        assert_eq!(Limit::InflatedSize.name(), "MAX_INFLATED_SIZE");
        assert_eq!(Limit::InflatedSize.value(), MAX_INFLATED_SIZE);
        assert_eq!(Limit::FatbinEntryHeader.name(), "MAX_FATBIN_ENTRY_HEADER");
    }
}
