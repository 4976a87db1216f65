//! The CUDA and HIP objects (LLVM's `wrapCudaBinary` / `wrapHIPBinary`): the fatbinary in
//! `.nv_fatbin` / `.hip_fatbin`, the `fatbin_wrapper` struct pointing at it in
//! `.nvFatBinSegment` / `.hipFatBinSegment`, the binary handle in `.bss`, and a priority-101
//! constructor that registers the fatbinary, then every kernel and variable of the entry table
//! (LLVM 19: `<kind>_offloading_entries`; LLVM 22: its kind's entries of
//! `llvm_offload_entries`, through a jump table in `.rodata` for HIP on x86-64), and the
//! unregistration through `atexit`.
//!
//! For HIP the fatbinary is the offload bundle the linker wrapper has `clang-offload-bundler`
//! make: `-type=o -bundle-align=4096`, an empty host entry (whatever the host; LLVM 19
//! `host-x86_64-unknown-linux--`, LLVM 22 `host-x86_64-unknown-linux-gnu-`), then one
//! `hip-amdgcn-amd-amdhsa--<arch>` entry per image, payloads written from the borrowed images.

use object::elf::{SHT_INIT_ARRAY, SHT_NOBITS, SHT_PROGBITS};

use crate::code::{Target, Text};
use crate::elf::Reloc;

use offkit_format::bundle::binary as bundle;
use offkit_format::bundle::compressed;

use crate::code::{self, Anchor, Routines};
use crate::elf::{Contents, Object, Piece, Section, Symbol, A, SHF_X86_64_LARGE, WA};
use crate::error::Error;
use crate::host::Host;
use crate::openmp::Builder;
use crate::{Kind, Wrapper};

/// `fatbin_wrapper.magic` for CUDA (`0x466243b1`).
pub const CUDA_FAT_MAGIC: u32 = 0x4662_43b1;
/// `fatbin_wrapper.magic` for HIP (`0x48495046`, "HIPF").
pub const HIP_FAT_MAGIC: u32 = 0x4849_5046;
/// The bundle alignment the linker wrapper asks the bundler for.
pub const HIP_BUNDLE_ALIGN: u64 = 4096;

/// The bundle ID LLVM 19 gives a HIP image of architecture `arch`.
pub fn hip_bundle_id(arch: &str) -> String {
    format!("hip-amdgcn-amd-amdhsa--{arch}")
}

/// The pieces of the HIP offload bundle: header, then each image at its 4096-aligned offset.
pub fn hip_bundle<'a>(w: &Wrapper<'a>) -> Result<Vec<Piece<'a>>, Error> {
    let ids: Vec<String> = std::iter::once(w.release.hip_host_id.to_string())
        .chain(w.placed.iter().map(|p| hip_bundle_id(p.image.arch)))
        .collect();
    let id_bytes: Vec<&[u8]> = ids.iter().map(|s| s.as_bytes()).collect();
    let sizes: Vec<u64> = std::iter::once(0)
        .chain(w.placed.iter().map(|p| p.image.data.len() as u64))
        .collect();
    let layout =
        bundle::layout(&id_bytes, &sizes, HIP_BUNDLE_ALIGN).map_err(|source| Error::Format {
            what: "HIP offload bundle",
            source,
        })?;
    if let Some(opts) = &w.hip_compress {
        // Compression needs the whole bundle; LLVM's bundler builds it in memory too.
        let entries: Vec<(&[u8], &[u8])> = std::iter::once((id_bytes[0], &[][..]))
            .chain(
                id_bytes[1..]
                    .iter()
                    .copied()
                    .zip(w.placed.iter().map(|p| p.image.data)),
            )
            .collect();
        let whole = bundle::write(&entries, HIP_BUNDLE_ALIGN).map_err(|source| Error::Format {
            what: "HIP offload bundle",
            source,
        })?;
        let c = compressed::compress(&whole, opts).map_err(|source| Error::Format {
            what: "compressed HIP offload bundle",
            source,
        })?;
        return Ok(vec![Piece::Bytes(c.bytes)]);
    }
    let mut pieces = vec![Piece::Bytes(layout.header.clone())];
    // The host entry is empty; its padding is all that is written for it.
    let payloads = std::iter::once(&[][..]).chain(w.placed.iter().map(|p| p.image.data));
    for (pad, data) in layout.padding().into_iter().zip(payloads) {
        if pad > 0 {
            pieces.push(Piece::Zeros(pad));
        }
        if !data.is_empty() {
            pieces.push(Piece::Borrowed(data));
        }
    }
    Ok(pieces)
}

/// The fatbinary's pieces: the one CUDA fatbinary, or the HIP bundle.
pub fn fatbin_pieces<'a>(w: &Wrapper<'a>) -> Result<Vec<Piece<'a>>, Error> {
    let data = w.placed[0].image.data;
    // A dry run's empty bundle is embedded as it is (LLVM 19 embeds the bundler's output, which
    // a dry run does not make).
    let ready =
        w.as_given || crate::image::is_offload_bundle(data) || (w.allow_empty && data.is_empty());
    match w.kind {
        Kind::Hip if !ready => hip_bundle(w),
        _ => Ok(w
            .placed
            .iter()
            .map(|p| Piece::Borrowed(p.image.data))
            .collect()),
    }
}

/// The `.rodata` section holding the code's jump table (4-byte entries), if it has one.
fn jump_table_section(b: &mut Builder<'_>, text: &Text) -> Option<usize> {
    if text.jump_table.is_empty() {
        return None;
    }
    let mut s = Section::new(".rodata", SHT_PROGBITS.0, A, 4);
    s.push(Piece::Zeros(4 * text.jump_table.len() as u64));
    Some(b.section(s))
}

/// The CUDA or HIP object.
pub(crate) fn object<'a>(w: &'a Wrapper<'a>) -> Result<Object<'a>, Error> {
    let h = w.host;
    let cuda = w.kind == Kind::Cuda;
    let (x, fat_magic) = if cuda {
        ("cuda", CUDA_FAT_MAGIC)
    } else {
        ("hip", HIP_FAT_MAGIC)
    };
    let walk = w.release.entries_walk(w.kind);
    let text = code::assemble(
        h,
        if cuda {
            Routines::Cuda(walk)
        } else {
            Routines::Hip(walk)
        },
    );
    let mut b = Builder::new(h);
    let ts = b.text_sections(&text);
    let jump_table = jump_table_section(&mut b, &text);
    let table = w.release.entries(w.kind);
    let entries = b.entries_section(table);

    let pieces = fatbin_pieces(w)?;
    let size: u64 = pieces.iter().map(Piece::len).sum();
    let mut flags = A;
    if w.large && h == Host::X86_64 {
        flags |= SHF_X86_64_LARGE;
    }
    let mut fb = Section::new(
        w.image_section(),
        SHT_PROGBITS.0,
        flags,
        h.byte_array_align(size),
    );
    fb.contents = Contents::Data(pieces);
    let fb = b.section(fb);

    let seg_name = if cuda {
        ".nvFatBinSegment"
    } else {
        ".hipFatBinSegment"
    };
    let mut seg = Section::new(seg_name, SHT_PROGBITS.0, WA, 8);
    let mut wrapper = vec![0u8; 24];
    wrapper[..4].copy_from_slice(&fat_magic.to_le_bytes());
    wrapper[4..8].copy_from_slice(&1u32.to_le_bytes());
    seg.push(Piece::Bytes(wrapper));
    let seg = b.section(seg);
    let mut bss = Section::new(".bss", SHT_NOBITS.0, WA, 8);
    bss.contents = Contents::NoBits(8);
    let bss = b.section(bss);
    let mut init = Section::new(".init_array.101", SHT_INIT_ARRAY.0, WA, 8);
    init.push(Piece::Zeros(8));
    let init = b.section(init);
    b.section(Section::new(".note.GNU-stack", SHT_PROGBITS.0, 0, 1));
    let ehf = b.section(Section::new(".eh_frame", h.eh_frame_type(), A, 8));

    let f = |s: &str| format!(".{x}.{s}");
    b.file("offload.wrapper.module");
    b.sym(Symbol::section(ts));
    b.func_sym(&text, ts, &f("fatbin_reg"));
    b.mapping_x(ts);
    b.object(".fatbin_wrapper", seg, 0, 24);
    b.object(&f("binary_handle"), bss, 0, 8);
    b.func_sym(&text, ts, &f("globals_reg"));
    b.func_sym(&text, ts, &f("fatbin_unreg"));
    if let Some(jt) = jump_table {
        b.sym(Symbol::section(jt));
    }
    b.object(&format!("__dummy.{table}"), entries, 0, 0);
    b.object(".fatbin_image", fb, 0, size);
    b.section_syms(fb);
    b.section_syms(seg);
    b.section_syms(bss);
    b.mapping_d(init);
    b.mapping_d(ehf);
    // The functions the code calls, in the order it first refers to them (as LLVM's MC layer
    // lists them); the entry table's bounds are hidden.
    let mut seen: Vec<&str> = Vec::new();
    for f in &text.fixups {
        if let Target::Ext(name) = f.target {
            if !seen.contains(&name) {
                seen.push(name);
                if name == walk.start || name == walk.stop {
                    b.undef_hidden(name);
                } else {
                    b.undef(name);
                }
            }
        }
    }

    b.text_relocs(&text, ts, |a| match a {
        Anchor::FatbinWrapper => (seg, 0),
        Anchor::Handle => (bss, 0),
        Anchor::JumpTable => (jump_table.unwrap_or(ts), 0),
        _ => unreachable!("no {a:?} in the fatbinary object"),
    });
    if let Some(jt) = jump_table {
        let ts_sym = b.of_section(ts);
        for (i, &target) in text.jump_table.iter().enumerate() {
            let at = 4 * i as u64;
            // `.long .Ltarget - .LJTI`: the distance from the table to the target.
            b.obj.sections[jt].relocs.push(Reloc {
                offset: at,
                symbol: ts_sym,
                r_type: h.prel32(),
                addend: (target + at) as i64,
            });
        }
    }
    let fb_sym = b.of_section(fb);
    b.abs64(seg, 8, fb_sym, 0);
    let ts_sym = b.of_section(ts);
    b.abs64(init, 0, ts_sym, 0);
    b.eh_frame(&text, ehf, ts);
    Ok(b.obj)
}
