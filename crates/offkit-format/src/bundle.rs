//! Offload bundles: the binary (`__CLANG_OFFLOAD_BUNDLE__`) and text formats, and compressed
//! bundles (`CCOB`), as `clang-offload-bundler` of LLVM 19 writes and reads them.
//!
//! Each format has two readers:
//!
//! * a **strict** one for offkit's own commands: every entry must lie inside the file, past the
//!   header, without overlapping another; IDs must be unique; compressed bundles must have the
//!   right sizes and hash. Errors name the absolute offset.
//! * an **LLVM 19** one that accepts exactly what LLVM 19 accepts and reports where LLVM 19
//!   would crash or loop, so that the drop-in can fail cleanly in those cases instead.
//!
//! Writers reproduce LLVM 19's bytes (including its quirks, such as where payloads with
//! duplicate IDs land). The binary writer is split into a header [`binary::Layout`] and the
//! payload positions, so that a caller can stream payloads from files instead of holding them.
//!
//! ```text
//! binary:  "__CLANG_OFFLOAD_BUNDLE__" │ n │ n × {offset, size, id_len, id} │ pad │ payload │ pad │ payload …
//! text:    \n// __CLANG_OFFLOAD_BUNDLE____START__ id\n payload \n// __CLANG_OFFLOAD_BUNDLE____END__ id\n …
//! CCOB:    "CCOB" │ version │ method │ [total size] │ uncompressed size │ md5[0..8] │ zstd/zlib stream
//! ```
//!
//! ```
//! use offkit_format::bundle::binary;
//!
//! let bytes = binary::write(&[(b"host-x86_64-unknown-linux-gnu-", b"host"), (b"hip-amdgcn-amd-amdhsa--gfx906", b"dev")], 1).unwrap();
//! let header = binary::parse(&bytes, bytes.len() as u64, 0).unwrap();
//! assert_eq!(header.entries[1].id, b"hip-amdgcn-amd-amdhsa--gfx906");
//! assert_eq!(header.entries[1].payload(&bytes), Some(&b"dev"[..]));
//! ```

pub mod binary;
pub mod compressed;
pub mod sequence;
pub mod text;

/// The magic string that starts a binary bundle, prefixes bundle section names in fat objects,
/// and (after a comment and a newline) marks text bundles.
pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";

/// What a buffer holds, judged by its first bytes as LLVM 19 judges them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// A compressed bundle (`CCOB` and at least 20 bytes).
    Compressed,
    /// A binary bundle (the magic and at least 25 bytes).
    Binary,
    /// Anything else (a text bundle, an object file, a plain file).
    Other,
}

/// Classifies `data` by its magic, with LLVM 19's size thresholds.
pub fn detect(data: &[u8]) -> Detected {
    if compressed::is_compressed(data) {
        Detected::Compressed
    } else if binary::is_bundle(data) {
        Detected::Binary
    } else {
        Detected::Other
    }
}

/// `alignTo(x, align)` as LLVM computes it, or `None` on overflow or a zero alignment.
pub(crate) fn align_to(x: u64, align: u64) -> Option<u64> {
    if align == 0 {
        return None;
    }
    x.checked_add(align - 1).map(|v| v / align * align)
}
