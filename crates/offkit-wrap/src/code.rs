//! The registration functions as machine code: what LLVM 19's and LLVM 22's backends emit for
//! the wrapper module's functions (`clang-linker-wrapper` compiles them with an empty CPU, `-O2`-level
//! code generation and the PIC relocation model), instruction by instruction.
//!
//! The functions are tiny and their shape never depends on the images, only on a few offsets
//! (which go into relocation addends) and, for the image-info constructor, on the number of
//! images. So rather than carry a code generator, each host has a table of instructions with
//! their relocations and call-frame instructions; the conformance tests compare the result
//! with the objects LLVM 19 and 22 write (x86-64: `clang-linker-wrapper`; AArch64: the same with
//! `--host-triple=aarch64-linux-gnu`) and with `clang-19`'s compilation of offkit's own IR.
//! The two releases differ only in the CUDA/HIP entry walk (`x86_64_22.rs`, `aarch64_22.rs`).

mod aarch64;
mod aarch64_22;
mod x86_64;
mod x86_64_22;

use crate::eh_frame::{Cfi, Fde};
use crate::host::Host;
use crate::release::Entries;

/// Something a code relocation refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An undefined global symbol, by name.
    Ext(&'static str),
    /// A place in this object, referenced (as LLVM does for local symbols) through its
    /// section's symbol with the place's offset folded into the addend.
    Local(Anchor),
}

/// A local place the code refers to; the object builder knows where each one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The OpenMP `__tgt_bin_desc`.
    Descriptor,
    /// The image-info form's `__tgt_image_info` of image `n`.
    ImageInfo(usize),
    /// The CUDA/HIP `fatbin_wrapper`.
    FatbinWrapper,
    /// The CUDA/HIP binary handle (in `.bss`).
    Handle,
    /// The jump table of LLVM 22's HIP entry walk (in `.rodata`).
    JumpTable,
    /// An offset in `.text.startup` (a function).
    Text(u64),
}

/// A relocation in `.text.startup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixup {
    /// Offset of the relocated field in `.text.startup`.
    pub at: u64,
    /// The relocation type.
    pub r_type: u32,
    /// What it refers to.
    pub target: Target,
    /// The addend before the anchor's offset is added.
    pub addend: i64,
}

/// One function's symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    /// The symbol name.
    pub name: &'static str,
    /// Offset in `.text.startup`.
    pub start: u64,
    /// The symbol size (up to and including the return; alignment padding excluded).
    pub len: u64,
}

/// The assembled `.text.startup`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// The bytes, relocated fields zero.
    pub bytes: Vec<u8>,
    /// The functions in address order.
    pub funcs: Vec<Func>,
    /// The relocations in offset order.
    pub fixups: Vec<Fixup>,
    /// The frame descriptions, one per function.
    pub fdes: Vec<Fde>,
    /// The jump table's targets (offsets in `.text.startup`), if the code has one: 4-byte
    /// entries in `.rodata`, each the distance from the table to its target.
    pub jump_table: Vec<u64>,
}

impl Text {
    /// The offset of function `name`.
    pub fn offset_of(&self, name: &str) -> u64 {
        self.funcs
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.start)
            .unwrap_or_default()
    }
}

/// Which set of registration functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routines {
    /// LLVM 19's OpenMP constructor (`__tgt_register_lib`, `atexit`) and destructor.
    OpenMp,
    /// The image-info constructor for `images` images (`__tgt_register_image_info` when
    /// present, then `__tgt_register_lib`) and destructor.
    ImageInfo {
        /// How many images (at least 1).
        images: usize,
    },
    /// The CUDA constructor, destructor and entry-table walk.
    Cuda(Entries),
    /// The HIP constructor, destructor and entry-table walk.
    Hip(Entries),
}

/// Assembles the registration functions for `host`.
pub fn assemble(host: Host, routines: Routines) -> Text {
    let mut a = Asm::new(host);
    match host {
        Host::X86_64 => x86_64::emit(&mut a, routines),
        Host::Aarch64 => aarch64::emit(&mut a, routines),
    }
    a.finish()
}

/// A function being assembled: its name, start and call-frame instructions so far.
type Open = (&'static str, u64, Vec<(u64, Cfi)>);

/// A minimal assembler state: bytes, relocations, functions and their CFI.
struct Asm {
    host: Host,
    bytes: Vec<u8>,
    fixups: Vec<Fixup>,
    funcs: Vec<Func>,
    fdes: Vec<Fde>,
    jump_table: Vec<u64>,
    /// The function being assembled: name, start, CFI so far.
    current: Option<Open>,
}

impl Asm {
    fn new(host: Host) -> Self {
        Asm {
            host,
            bytes: Vec::new(),
            fixups: Vec::new(),
            funcs: Vec::new(),
            fdes: Vec::new(),
            jump_table: Vec::new(),
            current: None,
        }
    }

    fn pos(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Starts function `name` at the next function-aligned offset.
    fn begin(&mut self, name: &'static str) {
        self.end();
        self.align(self.host.function_align());
        self.current = Some((name, self.pos(), Vec::new()));
    }

    /// Ends the current function here.
    fn end(&mut self) {
        if let Some((name, start, ops)) = self.current.take() {
            let len = self.pos() - start;
            self.funcs.push(Func { name, start, len });
            self.fdes.push(Fde { start, len, ops });
        }
    }

    /// Pads to a multiple of `align` with the host's padding (x86-64: LLVM's longest-first NOP
    /// sequence; AArch64 code is always 4-aligned).
    fn align(&mut self, align: u64) {
        let mut n = (self.pos().next_multiple_of(align) - self.pos()) as usize;
        while n > 0 {
            let k = n.min(X86_NOPS.len());
            self.bytes.extend_from_slice(X86_NOPS[k - 1]);
            n -= k;
        }
    }

    /// Records a call-frame instruction at the current offset.
    fn cfi(&mut self, op: Cfi) {
        let pos = self.pos();
        if let Some((_, start, ops)) = &mut self.current {
            ops.push((pos - *start, op));
        }
    }

    /// An instruction without relocation.
    fn b(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// An instruction whose bytes at `field` are relocated.
    fn r(&mut self, bytes: &[u8], field: usize, r_type: u32, target: Target, addend: i64) {
        self.fixups.push(Fixup {
            at: self.pos() + field as u64,
            r_type,
            target,
            addend,
        });
        self.b(bytes);
    }

    /// A 4-byte instruction word (AArch64).
    fn w(&mut self, word: u32) {
        self.b(&word.to_le_bytes());
    }

    /// A relocated 4-byte instruction word (AArch64).
    fn wr(&mut self, word: u32, r_type: u32, target: Target, addend: i64) {
        self.r(&word.to_le_bytes(), 0, r_type, target, addend);
    }

    fn finish(mut self) -> Text {
        self.end();
        Text {
            bytes: self.bytes,
            funcs: self.funcs,
            fixups: self.fixups,
            fdes: self.fdes,
            jump_table: self.jump_table,
        }
    }
}

/// LLVM's x86 multi-byte NOPs (`X86AsmBackend::writeNopData` for a generic CPU, at most 10
/// bytes each); padding of n bytes is the longest NOP repeated, then the remainder.
const X86_NOPS: [&[u8]; 10] = [
    &[0x90],
    &[0x66, 0x90],
    &[0x0f, 0x1f, 0x00],
    &[0x0f, 0x1f, 0x40, 0x00],
    &[0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
    &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
];

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(llvm: offkit_llvm::LlvmVersion, kind: crate::Kind) -> Entries {
        crate::release::Release::of(llvm).entries_walk(kind)
    }

    #[test]
    fn function_sizes_match_llvm() {
        use crate::Kind;
        use offkit_llvm::LlvmVersion::{V19, V22};
        // Symbol sizes and offsets in LLVM 19's objects (linking-evidence and the HIP/CUDA
        // objects of clang-linker-wrapper).
        let sizes = |h, r| {
            assemble(h, r)
                .funcs
                .iter()
                .map(|f| (f.name, f.start, f.len))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            sizes(Host::X86_64, Routines::OpenMp),
            [
                (".omp_offloading.descriptor_reg", 0, 27),
                (".omp_offloading.descriptor_unreg", 0x20, 15)
            ]
        );
        assert_eq!(
            sizes(Host::X86_64, Routines::Hip(walk(V19, Kind::Hip))),
            [
                (".hip.fatbin_reg", 0, 42),
                (".hip.fatbin_unreg", 0x30, 15),
                (".hip.globals_reg", 0x40, 232)
            ]
        );
        assert_eq!(
            sizes(Host::X86_64, Routines::Cuda(walk(V19, Kind::Cuda))),
            [
                (".cuda.fatbin_reg", 0, 53),
                (".cuda.fatbin_unreg", 0x40, 15),
                (".cuda.globals_reg", 0x50, 143)
            ]
        );
        assert_eq!(
            sizes(Host::Aarch64, Routines::OpenMp),
            [
                (".omp_offloading.descriptor_reg", 0, 36),
                (".omp_offloading.descriptor_unreg", 0x24, 24)
            ]
        );
        assert_eq!(
            sizes(Host::Aarch64, Routines::Hip(walk(V19, Kind::Hip))),
            [
                (".hip.fatbin_reg", 0, 48),
                (".hip.fatbin_unreg", 0x30, 24),
                (".hip.globals_reg", 0x48, 224)
            ]
        );
        assert_eq!(
            sizes(Host::Aarch64, Routines::Cuda(walk(V19, Kind::Cuda))),
            [
                (".cuda.fatbin_reg", 0, 60),
                (".cuda.fatbin_unreg", 0x3c, 24),
                (".cuda.globals_reg", 0x54, 160)
            ]
        );
        // LLVM 22's objects: only the entry walk differs.
        assert_eq!(
            sizes(Host::X86_64, Routines::Hip(walk(V22, Kind::Hip)))[2],
            (".hip.globals_reg", 0x40, 284)
        );
        assert_eq!(
            sizes(Host::X86_64, Routines::Cuda(walk(V22, Kind::Cuda)))[2],
            (".cuda.globals_reg", 0x50, 206)
        );
        assert_eq!(
            sizes(Host::Aarch64, Routines::Hip(walk(V22, Kind::Hip)))[2],
            (".hip.globals_reg", 0x48, 312)
        );
        assert_eq!(
            sizes(Host::Aarch64, Routines::Cuda(walk(V22, Kind::Cuda)))[2],
            (".cuda.globals_reg", 0x54, 220)
        );
        let hip = assemble(Host::X86_64, Routines::Hip(walk(V22, Kind::Hip)));
        assert_eq!(hip.jump_table, [0xde, 0x139, 0xfa, 0x110]);
    }
}
