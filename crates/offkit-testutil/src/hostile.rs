//! Hostile inputs made from valid ones, for the CLI's hostile-input test: every
//! header field of offload binaries, bundles, compressed bundles (`CCOB` v1/v2/v3), ELF section
//! headers and `ar` member headers set to the edge values of [`EDGES`]; truncations at every
//! header boundary; decompression bombs of every compressed kind, alone, in a `.hip_fatbin`
//! section and in an archive member; bundle entry IDs and archive member names with `..`,
//! absolute paths and NULs; thin archives whose members are special files or lie outside.
//!
//! Everything is built by hand from the documented layouts (`docs/formats.md`), so that the
//! generator shares no code with the parsers it attacks; the test checks that each valid seed is
//! accepted before it trusts the mutations made from it.

use std::io::Write;

use md5::{Digest, Md5};
use object::write::{Object, StandardSection};
use object::{Architecture, BinaryFormat, Endianness, SectionKind};

use crate::targets::write_bundle;

/// The values every header field is set to: 0, 1, 2^31, 2^32−1, 2^63, 2^64−1.
pub const EDGES: [u64; 6] = [0, 1, 1 << 31, u32::MAX as u64, 1 << 63, u64::MAX];

/// The address-space limit (`ulimit -v`, in bytes) every run of the hostile-input test is under:
/// room for offkit and any honest input of the test (offkit runs in 16 MiB), and small, so that
/// a bomb that inflates until memory runs out does little work before it does.
pub const MEMORY_LIMIT: u64 = 128 << 20;

/// How big a "real" bomb inflates: 64 MiB over [`MEMORY_LIMIT`], so holding it whole must fail.
pub const BOMB_SIZE: u64 = MEMORY_LIMIT + (64 << 20);

/// What a hostile case is, for choosing which commands run on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// A valid input the mutations start from: every command must accept it.
    Valid,
    /// One header field set to an edge value.
    Field,
    /// Cut at a header boundary.
    Truncated,
    /// A decompression bomb (lying header or a real one).
    Bomb,
    /// An entry ID or member name that tries to leave the output directory.
    Path,
    /// A thin archive pointing at special or outside files (made by the test: it needs files).
    Thin,
}

/// One hostile file.
#[derive(Debug, Clone)]
pub struct Case {
    /// A file name (letters, digits, `._-`).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// What it is.
    pub group: Group,
    /// Whether it holds a bundle at the top level or in an object (the bundler's `-type`):
    /// `"a"` for archives, `"o"` otherwise.
    pub bundler_type: &'static str,
}

/// A header field: where it is and how wide (2, 4 or 8 bytes, little-endian; 10 for an `ar`
/// decimal size field).
#[derive(Debug, Clone, Copy)]
struct Field {
    name: &'static str,
    at: usize,
    width: usize,
}

fn field(name: &'static str, at: usize, width: usize) -> Field {
    Field { name, at, width }
}

/// `bytes` with `f` set to `v` (truncated to the field's width; decimal text for `ar` sizes).
fn set(bytes: &[u8], f: Field, v: u64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    if f.width == 10 {
        let text = format!("{v:<10}");
        let text = text.as_bytes();
        b[f.at..f.at + 10].copy_from_slice(&text[..10]);
        return b;
    }
    let le = v.to_le_bytes();
    b[f.at..f.at + f.width].copy_from_slice(&le[..f.width]);
    b
}

fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// An offload binary (version 1, one image, strings `triple` and `arch`) as
/// `clang-offload-packager` 19 lays it out.
pub fn offload_binary(image: &[u8], offload_kind: u16, triple: &str, arch: &str) -> Vec<u8> {
    // The string table: "\0" then the strings; order does not matter to readers.
    let mut strtab = vec![0u8];
    let mut offs = Vec::new();
    for s in ["triple", triple, "arch", arch] {
        offs.push(strtab.len());
        strtab.extend_from_slice(s.as_bytes());
        strtab.push(0);
    }
    let strings_at = 72usize;
    let table_at = strings_at + 2 * 16;
    let image_at = align8(table_at + strtab.len());
    let size = align8(image_at + image.len());
    let mut b = Vec::with_capacity(size);
    b.extend_from_slice(&[0x10, 0xFF, 0x10, 0xAD]);
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&(size as u64).to_le_bytes());
    b.extend_from_slice(&32u64.to_le_bytes());
    b.extend_from_slice(&40u64.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // image kind: object
    b.extend_from_slice(&offload_kind.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&(strings_at as u64).to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    b.extend_from_slice(&(image_at as u64).to_le_bytes());
    b.extend_from_slice(&(image.len() as u64).to_le_bytes());
    for pair in offs.chunks(2) {
        b.extend_from_slice(&((table_at + pair[0]) as u64).to_le_bytes());
        b.extend_from_slice(&((table_at + pair[1]) as u64).to_le_bytes());
    }
    b.extend_from_slice(&strtab);
    b.resize(image_at, 0);
    b.extend_from_slice(image);
    b.resize(size, 0);
    b
}

fn binary_fields() -> Vec<Field> {
    vec![
        field("version", 4, 4),
        field("size", 8, 8),
        field("entry_offset", 16, 8),
        field("entry_size", 24, 8),
        field("image_kind", 32, 2),
        field("offload_kind", 34, 2),
        field("string_offset", 40, 8),
        field("num_strings", 48, 8),
        field("image_offset", 56, 8),
        field("image_size", 64, 8),
        field("key_offset", 72, 8),
        field("value_offset", 80, 8),
    ]
}

/// The fields of a binary bundle's header and entry records (IDs of `id_lens` bytes).
fn bundle_fields(id_lens: &[usize]) -> Vec<Field> {
    let mut f = vec![field("count", 24, 8)];
    let mut at = 32;
    for len in id_lens {
        f.push(field("entry_offset", at, 8));
        f.push(field("entry_size", at + 8, 8));
        f.push(field("id_len", at + 16, 8));
        at += 24 + len;
    }
    f
}

/// The compressed kinds: (CCOB version, method 0 zlib / 1 zstd).
pub const CCOB_KINDS: [(u16, u16); 6] = [(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)];

/// The CCOB header size of `version`.
fn ccob_header(version: u16) -> usize {
    match version {
        1 => 20,
        2 => 24,
        _ => 32,
    }
}

/// A CCOB header for a stream of `stream_len` bytes inflating to `size` bytes hashed `hash`.
fn ccob_head(version: u16, method: u16, stream_len: usize, size: u64, hash: [u8; 8]) -> Vec<u8> {
    let total = (ccob_header(version) + stream_len) as u64;
    let mut h = b"CCOB".to_vec();
    h.extend_from_slice(&version.to_le_bytes());
    h.extend_from_slice(&method.to_le_bytes());
    match version {
        1 => h.extend_from_slice(&(size as u32).to_le_bytes()),
        2 => {
            h.extend_from_slice(&(total as u32).to_le_bytes());
            h.extend_from_slice(&(size as u32).to_le_bytes());
        }
        _ => {
            h.extend_from_slice(&total.to_le_bytes());
            h.extend_from_slice(&size.to_le_bytes());
        }
    }
    h.extend_from_slice(&hash);
    h
}

fn md5_8(data: &[u8]) -> [u8; 8] {
    let d = Md5::digest(data);
    let mut h = [0u8; 8];
    h.copy_from_slice(&d[..8]);
    h
}

fn compress(method: u16, data: &[u8]) -> Vec<u8> {
    if method == 1 {
        zstd::bulk::compress(data, 3).expect("zstd compresses")
    } else {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).expect("zlib compresses");
        e.finish().expect("zlib compresses")
    }
}

/// A compressed bundle of `bundle`, valid.
pub fn ccob(version: u16, method: u16, bundle: &[u8]) -> Vec<u8> {
    let stream = compress(method, bundle);
    let mut b = ccob_head(
        version,
        method,
        stream.len(),
        bundle.len() as u64,
        md5_8(bundle),
    );
    b.extend_from_slice(&stream);
    b
}

fn ccob_fields(version: u16) -> Vec<Field> {
    let mut f = vec![field("version", 4, 2), field("method", 6, 2)];
    match version {
        1 => f.push(field("uncompressed", 8, 4)),
        2 => {
            f.push(field("total", 8, 4));
            f.push(field("uncompressed", 12, 4));
        }
        _ => {
            f.push(field("total", 8, 8));
            f.push(field("uncompressed", 16, 8));
        }
    }
    f
}

/// A zstd frame of `n` zero bytes made of RLE blocks (4 bytes per 128 KiB), with the content
/// size in its header: a real bomb, built in microseconds.
fn zstd_zeros(n: u64) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let mut b = vec![0x28, 0xB5, 0x2F, 0xFD];
    // Frame header descriptor: 8-byte content size, not single-segment; window 128 KiB.
    b.push(0xC0);
    b.push(0x38);
    b.extend_from_slice(&n.to_le_bytes());
    let mut left = n;
    loop {
        let size = left.min(BLOCK);
        left -= size;
        let last = u32::from(left == 0);
        let header = last | (1 << 1) | ((size as u32) << 3);
        b.extend_from_slice(&header.to_le_bytes()[..3]);
        b.push(0);
        if left == 0 {
            return b;
        }
    }
}

/// A zlib stream of `n` zero bytes (`n` a multiple of 1 MiB, at least 2 MiB): deflate reaches a
/// steady state on zeros, so the compressed form of one MiB after a sync flush repeats, and a
/// gigabyte costs one megabyte and a few milliseconds.
fn zlib_zeros(n: u64) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    const MIB: usize = 1 << 20;
    let zeros = vec![0u8; MIB];
    let mut c = Compress::new(Compression::best(), true);
    let piece = |c: &mut Compress| {
        let mut out = Vec::with_capacity(MIB);
        c.compress_vec(&zeros, &mut out, FlushCompress::Sync)
            .expect("deflate");
        out
    };
    let first = piece(&mut c);
    let second = piece(&mut c);
    let third = piece(&mut c);
    assert_eq!(second, third, "deflate of zeros reaches a steady state");
    let mut b = first;
    for _ in 1..n / MIB as u64 {
        b.extend_from_slice(&second);
    }
    // An empty final fixed-Huffman block (BFINAL=1, BTYPE=01, end-of-block), byte-aligned
    // after the sync flush, then Adler-32 of n zeros (a = 1, b = n mod 65521).
    b.extend_from_slice(&[0x03, 0x00]);
    let adler = (((n % 65521) as u32) << 16) | 1;
    b.extend_from_slice(&adler.to_be_bytes());
    b
}

/// Bombs of one compressed kind: headers that lie about a huge size over a small stream, and
/// a real stream of [`BOMB_SIZE`] zeros with a truthful header.
fn bombs(version: u16, method: u16, small: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let stream = compress(method, small);
    let claims: &[u64] = if version == 3 {
        &[u32::MAX as u64, 16 << 30]
    } else {
        &[u32::MAX as u64]
    };
    for &claim in claims {
        let mut b = ccob_head(version, method, stream.len(), claim, md5_8(small));
        b.extend_from_slice(&stream);
        out.push((format!("claims{claim}"), b));
    }
    let real = if method == 1 {
        zstd_zeros(BOMB_SIZE)
    } else {
        zlib_zeros(BOMB_SIZE)
    };
    // The hash of the zeros is not worth a gigabyte of hashing: a reader must stop long before.
    let mut b = ccob_head(version, method, real.len(), BOMB_SIZE, [0; 8]);
    b.extend_from_slice(&real);
    out.push(("real".into(), b));
    out
}

/// An x86-64 ELF relocatable object with `.llvm.offloading` holding `offloading` (if any) and
/// `.hip_fatbin` holding `fatbin` (if any).
pub fn elf_object(offloading: Option<&[u8]>, fatbin: Option<&[u8]>) -> Vec<u8> {
    let mut o = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let text = o.section_id(StandardSection::Text);
    o.append_section_data(text, &[0xC3], 16);
    if let Some(d) = offloading {
        let s = o.add_section(Vec::new(), b".llvm.offloading".to_vec(), SectionKind::Data);
        o.append_section_data(s, d, 8);
    }
    if let Some(d) = fatbin {
        let s = o.add_section(
            Vec::new(),
            b".hip_fatbin".to_vec(),
            SectionKind::ReadOnlyData,
        );
        o.append_section_data(s, d, 4096);
    }
    let mut elf = o.write().expect("object writes ELF");
    // `object` has no section kind for SHT_LLVM_OFFLOADING: set the type in the header.
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8"));
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4"));
    let shoff = u64_at(&elf, 0x28) as usize;
    let shnum = u16::from_le_bytes([elf[0x3c], elf[0x3d]]) as usize;
    let shstrndx = u16::from_le_bytes([elf[0x3e], elf[0x3f]]) as usize;
    let names = u64_at(&elf, shoff + 64 * shstrndx + 24) as usize;
    for i in 0..shnum {
        let at = shoff + 64 * i;
        let name = names + u32_at(&elf, at) as usize;
        if elf[name..].starts_with(b".llvm.offloading\0") {
            elf[at + 4..at + 8].copy_from_slice(&0x6fff_4c0bu32.to_le_bytes());
        }
    }
    elf
}

/// The ELF header's section-table fields and each section header's fields.
fn elf_fields(elf: &[u8]) -> Vec<Field> {
    let mut f = vec![
        field("e_shoff", 0x28, 8),
        field("e_shentsize", 0x3a, 2),
        field("e_shnum", 0x3c, 2),
        field("e_shstrndx", 0x3e, 2),
    ];
    let shoff = u64::from_le_bytes(elf[0x28..0x30].try_into().expect("8 bytes")) as usize;
    let shnum = u16::from_le_bytes([elf[0x3c], elf[0x3d]]) as usize;
    for i in 0..shnum {
        let at = shoff + 64 * i;
        f.push(field("sh_name", at, 4));
        f.push(field("sh_type", at + 4, 4));
        f.push(field("sh_offset", at + 24, 8));
        f.push(field("sh_size", at + 32, 8));
        f.push(field("sh_link", at + 40, 4));
        f.push(field("sh_addralign", at + 48, 8));
    }
    f
}

/// A GNU `ar` archive of `members` (`(name, bytes)`; names up to 15 bytes are written in the
/// header, longer ones through the `//` table; a name may hold anything, `/` included).
pub fn archive(members: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut longnames = Vec::new();
    let mut names = Vec::new();
    for (name, _) in members {
        if name.len() <= 15 && !name.contains(&b'/') {
            let mut n = name.to_vec();
            n.push(b'/');
            names.push(n);
        } else {
            names.push(format!("/{}", longnames.len()).into_bytes());
            longnames.extend_from_slice(name);
            longnames.extend_from_slice(b"/\n");
        }
    }
    let mut b = b"!<arch>\n".to_vec();
    let member = |b: &mut Vec<u8>, name: &[u8], data: &[u8]| {
        let mut h = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "",
            0,
            0,
            0,
            644,
            data.len()
        )
        .into_bytes();
        h[..name.len().min(16)].copy_from_slice(&name[..name.len().min(16)]);
        b.extend_from_slice(&h);
        b.extend_from_slice(data);
        if b.len() % 2 == 1 {
            b.push(b'\n');
        }
    };
    if !longnames.is_empty() {
        member(&mut b, b"//", &longnames);
    }
    for (name, (_, data)) in names.iter().zip(members) {
        member(&mut b, name, data);
    }
    b
}

/// A thin archive naming `members` (paths relative to the archive's directory, or absolute).
pub fn thin_archive(members: &[(&str, u64)]) -> Vec<u8> {
    let mut longnames = Vec::new();
    let mut headers = Vec::new();
    for (name, size) in members {
        headers.push((format!("/{}", longnames.len()), *size));
        longnames.extend_from_slice(name.as_bytes());
        longnames.extend_from_slice(b"/\n");
    }
    let mut b = b"!<thin>\n".to_vec();
    let head = |name: &str, size: u64| {
        format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644).into_bytes()
    };
    b.extend_from_slice(&head("//", longnames.len() as u64));
    b.extend_from_slice(&longnames);
    if b.len() % 2 == 1 {
        b.push(b'\n');
    }
    for (name, size) in headers {
        b.extend_from_slice(&head(&name, size));
    }
    b
}

/// The fields of the member headers of an archive made by [`archive`]: each header's size.
fn archive_fields(ar: &[u8]) -> Vec<Field> {
    let mut f = Vec::new();
    let mut at = 8;
    while at + 60 <= ar.len() {
        f.push(field("ar_size", at + 48, 10));
        let size: usize = std::str::from_utf8(&ar[at + 48..at + 58])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        at += 60 + size + size % 2;
    }
    f
}

/// A made-up device image (an amdgcn code object is not needed: nothing runs it).
fn image(tag: &str) -> Vec<u8> {
    let mut v = b"\x7fELF-hostile-image-".to_vec();
    v.extend_from_slice(tag.as_bytes());
    v.resize(200, b'.');
    v
}

/// The IDs the valid bundles hold.
pub const HOST_ID: &str = "host-x86_64-unknown-linux-gnu-";
/// The device entry of the valid bundles (what `unbundle` asks for).
pub const DEVICE_ID: &str = "hip-amdgcn-amd-amdhsa--gfx90a";

fn valid_bundle() -> Vec<u8> {
    let host: &[u8] = b"";
    let dev = image("gfx90a");
    write_bundle(&[(HOST_ID.as_bytes(), host), (DEVICE_ID.as_bytes(), &dev)])
}

fn push(out: &mut Vec<Case>, name: String, bytes: Vec<u8>, group: Group, ty: &'static str) {
    out.push(Case {
        name,
        bytes,
        group,
        bundler_type: ty,
    });
}

/// Every field of `fields` in `seed` set to every edge value, and `seed` cut at every field's
/// start and end.
fn mutate(out: &mut Vec<Case>, base: &str, seed: &[u8], fields: &[Field], ty: &'static str) {
    let mut cuts = std::collections::BTreeSet::new();
    for (i, f) in fields.iter().enumerate() {
        for (k, &v) in EDGES.iter().enumerate() {
            let b = set(seed, *f, v);
            if b != seed {
                push(
                    out,
                    format!("{base}.f{i}-{}.{k}", f.name),
                    b,
                    Group::Field,
                    ty,
                );
            }
        }
        cuts.insert(f.at);
        cuts.insert(f.at + f.width);
    }
    for cut in cuts.into_iter().filter(|&c| c < seed.len()) {
        push(
            out,
            format!("{base}.cut{cut}"),
            seed[..cut].to_vec(),
            Group::Truncated,
            ty,
        );
    }
}

/// All generated cases (thin archives excepted: they need files beside them, see
/// [`thin_archive`]).
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    // Offload binaries, alone and in an object's `.llvm.offloading`.
    let bin = offload_binary(&image("omp"), 1, "amdgcn-amd-amdhsa", "gfx90a");
    push(
        &mut out,
        "binary.valid".into(),
        bin.clone(),
        Group::Valid,
        "o",
    );
    mutate(&mut out, "binary", &bin, &binary_fields(), "o");
    // Bundles.
    let bundle = valid_bundle();
    push(
        &mut out,
        "bundle.valid".into(),
        bundle.clone(),
        Group::Valid,
        "o",
    );
    let lens = [HOST_ID.len(), DEVICE_ID.len()];
    mutate(&mut out, "bundle", &bundle, &bundle_fields(&lens), "o");
    // Compressed bundles of every kind.
    for (v, m) in CCOB_KINDS {
        let c = ccob(v, m, &bundle);
        let base = format!("ccob-v{v}-{}", ["zlib", "zstd"][m as usize]);
        push(
            &mut out,
            format!("{base}.valid"),
            c.clone(),
            Group::Valid,
            "o",
        );
        mutate(&mut out, &base, &c, &ccob_fields(v), "o");
        // Bombs alone, in a `.hip_fatbin` section, in an archive member.
        for (what, b) in bombs(v, m, &bundle) {
            let name = format!("{base}.bomb-{what}");
            let obj = elf_object(None, Some(&b));
            let ar = archive(&[(b"k.o", &obj)]);
            push(&mut out, name.clone(), b, Group::Bomb, "o");
            push(&mut out, format!("{name}.o"), obj, Group::Bomb, "o");
            push(&mut out, format!("{name}.a"), ar, Group::Bomb, "a");
        }
    }
    // ELF objects: section headers of an object with both kinds of offload sections.
    let obj = elf_object(Some(&bin), Some(&bundle));
    push(&mut out, "elf.valid".into(), obj.clone(), Group::Valid, "o");
    mutate(&mut out, "elf", &obj, &elf_fields(&obj), "o");
    // Archives.
    let ar = archive(&[(b"k.o", &obj), (b"b.bundle", &bundle)]);
    push(
        &mut out,
        "archive.valid".into(),
        ar.clone(),
        Group::Valid,
        "a",
    );
    mutate(&mut out, "archive", &ar, &archive_fields(&ar), "a");
    // Paths that try to leave the output directory.
    let dev = image("path");
    for (i, id) in [
        "hip-amdgcn-amd-amdhsa--../../../escape",
        "../../escape",
        "/tmp/offkit-hostile-escape",
        "hip-amdgcn-amd-amdhsa--gfx90a\0../x",
        "hip-amdgcn-amd-amdhsa--gfx90a/../../../../escape",
    ]
    .iter()
    .enumerate()
    {
        let b = write_bundle(&[(HOST_ID.as_bytes(), b""), (id.as_bytes(), &dev)]);
        let o = elf_object(None, Some(&b));
        push(&mut out, format!("path-id{i}.bundle"), b, Group::Path, "o");
        push(&mut out, format!("path-id{i}.o"), o, Group::Path, "o");
    }
    for (i, name) in [
        &b"../../escape.o"[..],
        b"/tmp/offkit-hostile-escape.o",
        b"k\0../../x.o",
        b"../../../../../../../../../tmp/offkit-hostile-escape2.o",
    ]
    .iter()
    .enumerate()
    {
        let a = archive(&[(name, &obj)]);
        push(&mut out, format!("path-member{i}.a"), a, Group::Path, "a");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bombs_inflate_to_what_they_claim() {
        let z = zstd_zeros(3 << 20);
        let d = zstd::stream::decode_all(&z[..]).unwrap();
        assert_eq!(d.len(), 3 << 20);
        assert!(d.iter().all(|&b| b == 0));
        let z = zlib_zeros(4 << 20);
        let mut d = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&z[..]), &mut d).unwrap();
        assert_eq!(d.len(), 4 << 20);
        assert!(z.len() < 16 << 10, "{}", z.len());
    }

    #[test]
    fn fields_and_names() {
        let cases = cases();
        let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "case names are unique");
        for g in [
            Group::Valid,
            Group::Field,
            Group::Truncated,
            Group::Bomb,
            Group::Path,
        ] {
            assert!(cases.iter().any(|c| c.group == g), "{g:?}");
        }
        let ar = archive(&[(b"k.o", b"abc"), (b"a-long-name.bundle", b"x")]);
        assert_eq!(archive_fields(&ar).len(), 3);
    }
}
