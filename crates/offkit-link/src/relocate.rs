//! The last step of a relocatable (`-r`) link, done in-process: LLVM 19 runs
//!
//! ```text
//! llvm-objcopy <out> --remove-section .llvm.offloading
//!   --rename-section <p>_offloading_entries=<p>_offloading_entries<S>
//!   --redefine-sym __start_<p>_offloading_entries=__start_<p>_offloading_entries<S>
//!   --redefine-sym __stop_<p>_offloading_entries=__stop_<p>_offloading_entries<S>   (p = omp, cuda, hip)
//! ```
//!
//! with `S = "_" + hex(low 64 bits of MD5(<out>))` (the first eight digest bytes read
//! little-endian, lower-case, no leading zeros), so that the object registers its own entries
//! and cannot be device-linked again.
//!
//! offkit patches the ELF file in place instead of rewriting its layout: the section and symbol
//! names are changed by appending new string tables at the end of the file (the old ones stay as
//! unreferenced bytes), relocation sections of a renamed section are renamed with it (as
//! llvm-objcopy does), and `.llvm.offloading` is emptied and turned into `SHT_PROGBITS` rather
//! than deleted, so no section or symbol index moves (COMDAT groups and relocations keep
//! pointing where they did). The result links the same way.

use md5::{Digest, Md5};

/// The prefixes of the entry sections LLVM 19 renames.
pub const PREFIXES: [&str; 3] = ["omp", "cuda", "hip"];

/// LLVM's `getHash`: `"_"` + the low 64 bits of the MD5 of `contents` in lower-case hex.
pub fn suffix(contents: &[u8]) -> String {
    let digest = Md5::digest(contents);
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    format!("_{:x}", u64::from_le_bytes(low))
}

/// The llvm-objcopy arguments LLVM 19 runs (printed under `--wrapper-verbose`).
pub fn objcopy_args(file: &str, suffix: &str) -> Vec<String> {
    let mut v = vec![
        file.to_string(),
        "--remove-section".into(),
        ".llvm.offloading".into(),
    ];
    for p in PREFIXES {
        let s = format!("{p}_offloading_entries");
        v.push("--rename-section".into());
        v.push(format!("{s}={s}{suffix}"));
        v.push("--redefine-sym".into());
        v.push(format!("__start_{s}=__start_{s}{suffix}"));
        v.push("--redefine-sym".into());
        v.push(format!("__stop_{s}=__stop_{s}{suffix}"));
    }
    v
}

/// Why an object could not be rewritten.
#[derive(Debug, thiserror::Error)]
#[error("malformed ELF file: {0}")]
pub struct RelocateError(pub &'static str);

type R<T> = Result<T, RelocateError>;

struct Elf<'a> {
    data: &'a [u8],
    is64: bool,
    le: bool,
}

impl Elf<'_> {
    fn get(&self, off: u64, n: usize) -> R<&[u8]> {
        usize::try_from(off)
            .ok()
            .and_then(|o| self.data.get(o..o.checked_add(n)?))
            .ok_or(RelocateError("truncated"))
    }
    fn u16(&self, off: u64) -> R<u64> {
        let b: [u8; 2] = self
            .get(off, 2)?
            .try_into()
            .map_err(|_| RelocateError("x"))?;
        Ok(u64::from(if self.le {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }))
    }
    fn u32(&self, off: u64) -> R<u64> {
        let b: [u8; 4] = self
            .get(off, 4)?
            .try_into()
            .map_err(|_| RelocateError("x"))?;
        Ok(u64::from(if self.le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }))
    }
    fn u64(&self, off: u64) -> R<u64> {
        let b: [u8; 8] = self
            .get(off, 8)?
            .try_into()
            .map_err(|_| RelocateError("x"))?;
        Ok(if self.le {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }
    fn word(&self, off: u64) -> R<u64> {
        if self.is64 {
            self.u64(off)
        } else {
            self.u32(off)
        }
    }
    fn cstr(&self, off: u64) -> R<&[u8]> {
        let start = usize::try_from(off).map_err(|_| RelocateError("bad string offset"))?;
        let rest = self
            .data
            .get(start..)
            .ok_or(RelocateError("bad string offset"))?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(RelocateError("unterminated string"))?;
        Ok(&rest[..end])
    }
}

fn put(out: &mut [u8], off: u64, v: u64, size: usize, le: bool) -> R<()> {
    let o = usize::try_from(off).map_err(|_| RelocateError("offset"))?;
    let dst = out.get_mut(o..o + size).ok_or(RelocateError("truncated"))?;
    let bytes = if le { v.to_le_bytes() } else { v.to_be_bytes() };
    if le {
        dst.copy_from_slice(&bytes[..size]);
    } else {
        dst.copy_from_slice(&bytes[8 - size..]);
    }
    Ok(())
}

struct Shdr {
    off: u64,
    name: u64,
    ty: u64,
    offset: u64,
    size: u64,
    link: u64,
    info: u64,
}

/// Rewrites the object `data` as LLVM 19's objcopy step does (see the module documentation).
pub fn rewrite(data: &[u8], suffix: &str) -> R<Vec<u8>> {
    if !data.starts_with(b"\x7fELF") {
        return Err(RelocateError("not an ELF file"));
    }
    let e = Elf {
        data,
        is64: data.get(4) == Some(&2),
        le: data.get(5) != Some(&2),
    };
    let (shoff, shentsize, shnum_at, shstrndx_at) = if e.is64 {
        (e.u64(0x28)?, e.u16(0x3a)?, 0x3c, 0x3e)
    } else {
        (e.u32(0x20)?, e.u16(0x2e)?, 0x30, 0x32)
    };
    let read_shdr = |i: u64| -> R<Shdr> {
        let off = shoff + i * shentsize;
        let w = if e.is64 { 8 } else { 4 };
        Ok(Shdr {
            off,
            name: e.u32(off)?,
            ty: e.u32(off + 4)?,
            offset: e.word(off + 8 + 2 * w)?,
            size: e.word(off + 8 + 3 * w)?,
            link: e.u32(off + 8 + 4 * w)?,
            info: e.u32(off + 12 + 4 * w)?,
        })
    };
    let mut shnum = e.u16(shnum_at)?;
    let mut shstrndx = e.u16(shstrndx_at)?;
    if shoff == 0 {
        return Err(RelocateError("no section headers"));
    }
    let s0 = read_shdr(0)?;
    if shnum == 0 {
        shnum = s0.size;
    }
    if shstrndx == 0xffff {
        shstrndx = s0.link;
    }
    if shnum > 1 << 24 {
        return Err(RelocateError("too many sections"));
    }
    let sections: Vec<Shdr> = (0..shnum).map(read_shdr).collect::<R<_>>()?;
    let shstr = sections
        .get(shstrndx as usize)
        .ok_or(RelocateError("bad e_shstrndx"))?;
    let names: Vec<Vec<u8>> = sections
        .iter()
        .map(|s| e.cstr(shstr.offset + s.name).map(<[u8]>::to_vec))
        .collect::<R<_>>()?;

    let renamed = |n: &[u8]| -> Option<Vec<u8>> {
        PREFIXES.iter().find_map(|p| {
            let s = format!("{p}_offloading_entries");
            (n == s.as_bytes()).then(|| format!("{s}{suffix}").into_bytes())
        })
    };
    // New section names: renamed entry sections, and relocation sections that target them.
    let mut new_names = names.clone();
    for (i, s) in sections.iter().enumerate() {
        if let Some(n) = renamed(&names[i]) {
            new_names[i] = n;
        }
        let is_rel = s.ty == 4 || s.ty == 9; // SHT_RELA, SHT_REL
        if is_rel {
            if let Some(t) = names.get(s.info as usize).and_then(|n| renamed(n)) {
                let prefix: &[u8] = if s.ty == 4 { b".rela" } else { b".rel" };
                new_names[i] = [prefix, &t].concat();
            }
        }
    }
    let mut out = data.to_vec();
    // Append the new section name table.
    let mut shstrtab = vec![0u8];
    let mut name_offsets = Vec::with_capacity(sections.len());
    for n in &new_names {
        name_offsets.push(shstrtab.len() as u64);
        shstrtab.extend_from_slice(n);
        shstrtab.push(0);
    }
    let shstr_off = out.len() as u64;
    out.extend_from_slice(&shstrtab);
    let w = if e.is64 { 8 } else { 4 };
    for (s, name_off) in sections.iter().zip(&name_offsets) {
        put(&mut out, s.off, *name_off, 4, e.le)?;
    }
    let sh = &sections[shstrndx as usize];
    put(&mut out, sh.off + 8 + 2 * w, shstr_off, w as usize, e.le)?;
    put(
        &mut out,
        sh.off + 8 + 3 * w,
        shstrtab.len() as u64,
        w as usize,
        e.le,
    )?;
    // Empty `.llvm.offloading` (SHT_LLVM_OFFLOADING or by name), making it plain PROGBITS.
    for (s, n) in sections.iter().zip(&names) {
        if n == b".llvm.offloading" {
            put(&mut out, s.off + 4, 1, 4, e.le)?;
            put(&mut out, s.off + 8 + 3 * w, 0, w as usize, e.le)?;
        }
    }
    // Rename the `__start_`/`__stop_` symbols in every symbol table.
    for s in sections.iter().filter(|s| s.ty == 2) {
        let strtab = sections
            .get(s.link as usize)
            .ok_or(RelocateError("bad sh_link"))?;
        let entsize = if e.is64 { 24 } else { 16 };
        let count = s.size / entsize;
        let mut extra = Vec::new();
        let base = out.len() as u64;
        let mut strtab_bytes = e
            .get(
                strtab.offset,
                usize::try_from(strtab.size).map_err(|_| RelocateError("size"))?,
            )?
            .to_vec();
        let mut changed = false;
        for k in 0..count {
            let at = s.offset + k * entsize;
            let name = e.cstr(strtab.offset + e.u32(at)?)?;
            let new = PREFIXES.iter().find_map(|p| {
                ["__start_", "__stop_"].iter().find_map(|b| {
                    let old = format!("{b}{p}_offloading_entries");
                    (name == old.as_bytes()).then(|| format!("{old}{suffix}"))
                })
            });
            if let Some(new) = new {
                let off = strtab_bytes.len() as u64;
                strtab_bytes.extend_from_slice(new.as_bytes());
                strtab_bytes.push(0);
                put(&mut out, at, off, 4, e.le)?;
                changed = true;
            }
        }
        if changed {
            extra.extend_from_slice(&strtab_bytes);
            out.extend_from_slice(&extra);
            put(&mut out, strtab.off + 8 + 2 * w, base, w as usize, e.le)?;
            put(
                &mut out,
                strtab.off + 8 + 3 * w,
                strtab_bytes.len() as u64,
                w as usize,
                e.le,
            )?;
        }
    }
    // Move the section header table after the appended data (8-aligned), as the file's last
    // part, so that nothing appended overlaps it.
    while out.len() % 8 != 0 {
        out.push(0);
    }
    let new_shoff = out.len() as u64;
    let table_len = usize::try_from(shnum * shentsize).map_err(|_| RelocateError("size"))?;
    let table = out
        .get(shoff as usize..shoff as usize + table_len)
        .ok_or(RelocateError("truncated section headers"))?
        .to_vec();
    out.extend_from_slice(&table);
    put(
        &mut out,
        if e.is64 { 0x28 } else { 0x20 },
        new_shoff,
        w as usize,
        e.le,
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_suffix_as_llvm_19() {
        // Seen from the real tool in --dry-run mode, where the buffer is empty.
        assert_eq!(suffix(b""), "_4b2008fd98c1dd4");
    }
}
