//! The OpenMP objects: LLVM's (`__tgt_bin_desc` over offload binaries, registered from
//! `.init_array.101`, unregistered through `atexit`; LLVM 19 and 22 differ only in the entry
//! table's name, see `release.rs`) and the image-info one (AMD's `clang-offload-wrapper`: raw images, a
//! `__tgt_image_info` and target-ID string per image, `.init_array.1` / `.fini_array.1`).
//!
//! Symbols, their order, sections, flags and alignments are those of the objects LLVM 19 and
//! 22 make from the same module (checked by the conformance tests).

use object::elf::{
    SHT_FINI_ARRAY, SHT_INIT_ARRAY, SHT_PROGBITS, STB_GLOBAL, STB_WEAK, STT_FILE, STT_FUNC,
    STT_NOTYPE, STT_OBJECT, STV_DEFAULT, STV_HIDDEN,
};

use crate::code::{self, Anchor, Routines, Target, Text};
use crate::eh_frame;
use crate::elf::{Object, Piece, Place, Reloc, Section, Symbol, A, AMS, AX, SHF_X86_64_LARGE, WA};
use crate::host::Host;
use crate::release::Release;
use crate::{Kind, Wrapper};
use offkit_format::container::SHT_LLVM_OFFLOADING;

/// Sizes of the runtime structures on a 64-bit host.
pub const DEVICE_IMAGE_SIZE: u64 = 32;
pub const BIN_DESC_SIZE: u64 = 32;
pub const IMAGE_INFO_SIZE: u64 = 32;

/// Builds an object in LLVM's order: sections first, then the symbol table, then the
/// relocations (which refer to symbols by name or by section).
pub(crate) struct Builder<'a> {
    pub host: Host,
    pub obj: Object<'a>,
}

impl<'a> Builder<'a> {
    pub fn new(host: Host) -> Self {
        Builder {
            host,
            obj: Object {
                machine: host.machine(),
                sections: Vec::new(),
                symbols: Vec::new(),
            },
        }
    }

    pub fn section(&mut self, s: Section<'a>) -> usize {
        self.obj.sections.push(s);
        self.obj.sections.len() - 1
    }

    pub fn sym(&mut self, s: Symbol) {
        self.obj.symbols.push(s);
    }

    /// The section symbol and, on AArch64, the `$d` mapping symbol of a data section.
    pub fn section_syms(&mut self, sec: usize) {
        self.sym(Symbol::section(sec));
        self.mapping_d(sec);
    }

    /// AArch64's `$d` mapping symbol at the start of a data section.
    pub fn mapping_d(&mut self, sec: usize) {
        if self.host.mapping_symbols() {
            self.sym(Symbol::local("$d", STT_NOTYPE.0, sec, 0, 0));
        }
    }

    /// The function symbols of `.text.startup` (section `text`), in the order `names` gives,
    /// with AArch64's `$x` after the first.
    pub fn func_sym(&mut self, text: &Text, sec: usize, name: &str) {
        if let Some(f) = text.funcs.iter().find(|f| f.name == name) {
            self.sym(Symbol::local(name, STT_FUNC.0, sec, f.start, f.len));
        }
    }

    pub fn mapping_x(&mut self, sec: usize) {
        if self.host.mapping_symbols() {
            self.sym(Symbol::local("$x", STT_NOTYPE.0, sec, 0, 0));
        }
    }

    /// Index of the symbol named `name` (not a section symbol).
    pub fn named(&self, name: &str) -> usize {
        self.obj
            .symbols
            .iter()
            .position(|s| s.name == name && s.kind != object::elf::STT_SECTION.0)
            .unwrap_or_else(|| unreachable!("symbol {name} was not created"))
    }

    /// Index of section `sec`'s symbol.
    pub fn of_section(&self, sec: usize) -> usize {
        self.obj
            .symbols
            .iter()
            .position(|s| s.kind == object::elf::STT_SECTION.0 && s.place == Place::Section(sec))
            .unwrap_or_else(|| unreachable!("section symbol {sec} was not created"))
    }

    pub fn reloc(&mut self, sec: usize, offset: u64, symbol: usize, r_type: u32, addend: i64) {
        self.obj.sections[sec].relocs.push(Reloc {
            offset,
            symbol,
            r_type,
            addend,
        });
    }

    /// A 64-bit absolute data relocation.
    pub fn abs64(&mut self, sec: usize, offset: u64, symbol: usize, addend: u64) {
        let t = self.host.abs64();
        self.reloc(sec, offset, symbol, t, addend as i64);
    }

    /// The relocations of `.text.startup`; `anchor` says where local places are, as
    /// `(section, offset)`.
    pub fn text_relocs(
        &mut self,
        text: &Text,
        sec: usize,
        anchor: impl Fn(Anchor) -> (usize, u64),
    ) {
        for f in &text.fixups {
            let (symbol, addend) = match f.target {
                Target::Ext(name) => (self.named(name), f.addend),
                Target::Local(Anchor::Text(off)) => (self.of_section(sec), f.addend + off as i64),
                Target::Local(a) => {
                    let (s, off) = anchor(a);
                    (self.of_section(s), f.addend + off as i64)
                }
            };
            self.reloc(sec, f.at, symbol, f.r_type, addend);
        }
    }

    /// `.eh_frame` and its relocations against `.text.startup` (section `text_sec`).
    pub fn eh_frame(&mut self, text: &Text, sec: usize, text_sec: usize) {
        let ehf = eh_frame::encode(self.host, &text.fdes);
        self.obj.sections[sec].push(Piece::Bytes(ehf.bytes));
        let sym = self.of_section(text_sec);
        let t = self.host.prel32();
        for (at, addend) in ehf.relocs {
            self.reloc(sec, at, sym, t, addend);
        }
    }

    /// The sections every wrapper object starts with: `.text` (empty) and `.text.startup`.
    pub fn text_sections(&mut self, text: &Text) -> usize {
        self.section(Section::new(".text", SHT_PROGBITS.0, AX, 4));
        let mut ts = Section::new(
            ".text.startup",
            SHT_PROGBITS.0,
            AX,
            self.host.function_align(),
        );
        ts.push(Piece::Bytes(text.bytes.clone()));
        self.section(ts)
    }

    /// The empty entry-table section LLVM defines so that `__start_`/`__stop_` exist.
    pub fn entries_section(&mut self, name: &str) -> usize {
        self.section(Section::new(name, SHT_PROGBITS.0, A, 8))
    }

    /// The image section: every placed image (head, borrowed bytes, tail) at its offset.
    pub fn image_section(&mut self, w: &Wrapper<'a>, sh_type: u32, align: u64) -> usize {
        let mut flags = A;
        if w.large && self.host == Host::X86_64 {
            flags |= SHF_X86_64_LARGE;
        }
        let mut s = Section::new(w.image_section(), sh_type, flags, align);
        for p in &w.placed {
            let here = s.size();
            if p.offset > here {
                s.push(Piece::Zeros(p.offset - here));
            }
            if !p.head.is_empty() {
                s.push(Piece::Bytes(p.head.clone()));
            }
            s.push(Piece::Borrowed(p.image.data));
            if p.tail > 0 {
                s.push(Piece::Zeros(p.tail));
            }
        }
        self.section(s)
    }

    pub fn file(&mut self, name: &str) {
        self.sym(Symbol {
            name: name.to_string(),
            bind: 0,
            kind: STT_FILE.0,
            vis: STV_DEFAULT.0,
            place: Place::Abs,
            value: 0,
            size: 0,
        });
    }

    pub fn object(&mut self, name: &str, sec: usize, value: u64, size: u64) {
        self.sym(Symbol::local(name, STT_OBJECT.0, sec, value, size));
    }

    pub fn undef(&mut self, name: &str) {
        self.sym(Symbol::undefined(name, STB_GLOBAL.0, STV_DEFAULT.0));
    }

    pub fn undef_hidden(&mut self, name: &str) {
        self.sym(Symbol::undefined(name, STB_GLOBAL.0, STV_HIDDEN.0));
    }
}

/// The name LLVM gives the `n`th image global (automatic renaming of a repeated name).
pub fn image_global(n: usize) -> String {
    if n == 0 {
        ".omp_offloading.device_image".to_string()
    } else {
        format!(".omp_offloading.device_image.{n}")
    }
}

/// LLVM's OpenMP object.
pub(crate) fn llvm<'a>(w: &'a Wrapper<'a>) -> Object<'a> {
    let h = w.host;
    let k = w.placed.len() as u64;
    let text = code::assemble(h, Routines::OpenMp);
    let mut b = Builder::new(h);
    let ts = b.text_sections(&text);
    let table = w.release.entries(Kind::OpenMp);
    let entries = b.entries_section(table);
    let images = b.image_section(w, SHT_LLVM_OFFLOADING, 8);
    let mut data = Section::new(".data.rel.ro", SHT_PROGBITS.0, WA, 16);
    let desc_off = k * DEVICE_IMAGE_SIZE;
    data.push(Piece::Zeros(desc_off));
    let mut desc = vec![0u8; BIN_DESC_SIZE as usize];
    desc[..4].copy_from_slice(&(k as u32).to_le_bytes());
    data.push(Piece::Bytes(desc));
    let data = b.section(data);
    let mut init = Section::new(".init_array.101", SHT_INIT_ARRAY.0, WA, 8);
    init.push(Piece::Zeros(8));
    let init = b.section(init);
    b.section(Section::new(".note.GNU-stack", SHT_PROGBITS.0, 0, 1));
    let ehf = b.section(Section::new(".eh_frame", h.eh_frame_type(), A, 8));

    b.file("offload.wrapper.module");
    b.sym(Symbol::section(ts));
    b.func_sym(&text, ts, ".omp_offloading.descriptor_reg");
    b.mapping_x(ts);
    b.object(".omp_offloading.descriptor", data, desc_off, BIN_DESC_SIZE);
    b.func_sym(&text, ts, ".omp_offloading.descriptor_unreg");
    b.object(&format!("__dummy.{table}"), entries, 0, 0);
    for (n, p) in w.placed.iter().enumerate() {
        b.object(&image_global(n), images, p.offset, p.size());
        if n == 0 {
            b.section_syms(images);
        }
    }
    b.object(".omp_offloading.device_images", data, 0, desc_off);
    b.section_syms(data);
    b.mapping_d(init);
    b.mapping_d(ehf);
    b.undef("__tgt_register_lib");
    b.undef("atexit");
    b.undef("__tgt_unregister_lib");
    let bounds = (w.release.start(Kind::OpenMp), w.release.stop(Kind::OpenMp));
    b.undef_hidden(bounds.0);
    b.undef_hidden(bounds.1);

    b.text_relocs(&text, ts, |a| match a {
        Anchor::Descriptor => (data, desc_off),
        _ => unreachable!("no {a:?} in the OpenMP object"),
    });
    descriptor_relocs(&mut b, w, bounds, data, images, 0, desc_off);
    let ts_sym = b.of_section(ts);
    b.abs64(init, 0, ts_sym, 0);
    b.eh_frame(&text, ehf, ts);
    b.obj
}

/// The `__tgt_device_image` array at `array_off` and the `__tgt_bin_desc` at `desc_off` in
/// `.data.rel.ro` (section `data`), pointing into the image section `images` and at the entry
/// table's `bounds` (`__start_…`, `__stop_…`).
fn descriptor_relocs(
    b: &mut Builder<'_>,
    w: &Wrapper<'_>,
    bounds: (&str, &str),
    data: usize,
    images: usize,
    array_off: u64,
    desc_off: u64,
) {
    let img_sym = b.of_section(images);
    let data_sym = b.of_section(data);
    let start = b.named(bounds.0);
    let stop = b.named(bounds.1);
    for (n, p) in w.placed.iter().enumerate() {
        let at = array_off + n as u64 * DEVICE_IMAGE_SIZE;
        let (begin, end) = p.registered();
        b.abs64(data, at, img_sym, begin);
        b.abs64(data, at + 8, img_sym, end);
        b.abs64(data, at + 16, start, 0);
        b.abs64(data, at + 24, stop, 0);
    }
    b.abs64(data, desc_off + 8, data_sym, array_off);
    b.abs64(data, desc_off + 16, start, 0);
    b.abs64(data, desc_off + 24, stop, 0);
}

/// The offsets of the target-ID strings in `.offload_arch_list` (each `[len+1 x i8]`, aligned
/// as LLVM aligns byte arrays), the section's bytes and its alignment.
pub fn arch_strings(w: &Wrapper<'_>) -> (Vec<u64>, Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let mut offsets = Vec::new();
    let mut max_align = 1;
    for p in &w.placed {
        let len = p.image.arch.len() as u64 + 1;
        let align = w.host.byte_array_align(len);
        max_align = max_align.max(align);
        bytes.resize((bytes.len() as u64).next_multiple_of(align) as usize, 0);
        offsets.push(bytes.len() as u64);
        bytes.extend_from_slice(p.image.arch.as_bytes());
        bytes.push(0);
    }
    (offsets, bytes, max_align)
}

/// The image-info object (AMD's `clang-offload-wrapper` registration through `__tgt_register_image_info`).
pub(crate) fn image_info<'a>(w: &'a Wrapper<'a>) -> Object<'a> {
    let h = w.host;
    let n = w.placed.len();
    let k = n as u64;
    let text = code::assemble(h, Routines::ImageInfo { images: n });
    let mut b = Builder::new(h);
    let ts = b.text_sections(&text);
    // The image-info form is one fixed module, whatever the LLVM release.
    let seed = Release::of(offkit_llvm::LlvmVersion::V19);
    let bounds = (seed.start(Kind::OpenMp), seed.stop(Kind::OpenMp));
    let entries = b.entries_section(seed.entries(Kind::OpenMp));
    let image_align = w
        .placed
        .iter()
        .map(|p| h.byte_array_align(p.image.data.len() as u64))
        .max()
        .unwrap_or(1);
    let images = b.image_section(w, SHT_PROGBITS.0, image_align);
    let (arch_offs, arch_bytes, arch_align) = arch_strings(w);
    let mut arch = Section::new(".offload_arch_list", SHT_PROGBITS.0, AMS, arch_align);
    arch.entsize = 1;
    arch.push(Piece::Bytes(arch_bytes));
    let arch = b.section(arch);

    // .data.rel.ro: the infos, the device image array, the descriptor.
    let mut data = Section::new(".data.rel.ro", SHT_PROGBITS.0, WA, 16);
    let array_off = k * IMAGE_INFO_SIZE;
    let desc_off = array_off + k * DEVICE_IMAGE_SIZE;
    let mut bytes = vec![0u8; (desc_off + BIN_DESC_SIZE) as usize];
    for i in 0..n {
        let at = i * IMAGE_INFO_SIZE as usize;
        bytes[at..at + 4].copy_from_slice(&1u32.to_le_bytes()); // version
        bytes[at + 4..at + 8].copy_from_slice(&(i as u32).to_le_bytes()); // image_number
        bytes[at + 8..at + 12].copy_from_slice(&(n as u32).to_le_bytes()); // number_images
    }
    let d = desc_off as usize;
    bytes[d..d + 4].copy_from_slice(&(n as u32).to_le_bytes());
    data.push(Piece::Bytes(bytes));
    let data = b.section(data);
    let mut init = Section::new(".init_array.1", SHT_INIT_ARRAY.0, WA, 8);
    init.push(Piece::Zeros(8));
    let init = b.section(init);
    let mut fini = Section::new(".fini_array.1", SHT_FINI_ARRAY.0, WA, 8);
    fini.push(Piece::Zeros(8));
    let fini = b.section(fini);
    b.section(Section::new(".note.GNU-stack", SHT_PROGBITS.0, 0, 1));
    let ehf = b.section(Section::new(".eh_frame", h.eh_frame_type(), A, 8));

    b.file("offload.wrapper.object");
    b.sym(Symbol::section(ts));
    b.func_sym(&text, ts, ".omp_offloading.descriptor_reg");
    b.mapping_x(ts);
    for i in 0..n {
        b.object(
            &format!(".offload_image_info_{i}"),
            data,
            i as u64 * IMAGE_INFO_SIZE,
            IMAGE_INFO_SIZE,
        );
    }
    b.object(".omp_offloading.descriptor", data, desc_off, BIN_DESC_SIZE);
    b.func_sym(&text, ts, ".omp_offloading.descriptor_unreg");
    for (i, p) in w.placed.iter().enumerate() {
        b.object(&image_global(i), images, p.offset, p.size());
        if i == 0 {
            b.section_syms(images);
        }
    }
    for (i, p) in w.placed.iter().enumerate() {
        b.object(
            &format!("__offload_arch_{i}"),
            arch,
            arch_offs[i],
            p.image.arch.len() as u64 + 1,
        );
        if i == 0 {
            b.section_syms(arch);
        }
    }
    b.section_syms(data);
    b.object(
        ".omp_offloading.device_images",
        data,
        array_off,
        k * DEVICE_IMAGE_SIZE,
    );
    b.mapping_d(init);
    b.mapping_d(fini);
    b.mapping_d(ehf);
    b.sym(Symbol::undefined(
        "__tgt_register_image_info",
        STB_WEAK.0,
        STV_DEFAULT.0,
    ));
    b.undef("__tgt_register_lib");
    b.undef("__tgt_unregister_lib");
    b.undef_hidden(bounds.0);
    b.undef_hidden(bounds.1);
    b.sym(Symbol {
        name: "__dummy.omp_offloading.entry".to_string(),
        bind: STB_GLOBAL.0,
        kind: STT_OBJECT.0,
        vis: STV_HIDDEN.0,
        place: Place::Section(entries),
        value: 0,
        size: 0,
    });

    b.text_relocs(&text, ts, |a| match a {
        Anchor::Descriptor => (data, desc_off),
        Anchor::ImageInfo(i) => (data, i as u64 * IMAGE_INFO_SIZE),
        _ => unreachable!("no {a:?} in the image-info object"),
    });
    let arch_sym = b.of_section(arch);
    for (i, off) in arch_offs.iter().enumerate() {
        b.abs64(data, i as u64 * IMAGE_INFO_SIZE + 16, arch_sym, *off);
    }
    descriptor_relocs(&mut b, w, bounds, data, images, array_off, desc_off);
    let ts_sym = b.of_section(ts);
    b.abs64(init, 0, ts_sym, 0);
    let unreg = text.offset_of(".omp_offloading.descriptor_unreg");
    b.abs64(fini, 0, ts_sym, unreg);
    b.eh_frame(&text, ehf, ts);
    b.obj
}
