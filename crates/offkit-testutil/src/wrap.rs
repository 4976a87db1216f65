//! Test support for the wrap work: comparing two relocatable ELF objects byte for byte (and,
//! to explain a difference, by meaning), running LLVM 19's `clang-linker-wrapper` to get its
//! registration object and IR for given images, and making device images (tiny ELF files for
//! any machine, via `yaml2obj`).

use std::collections::BTreeMap;
use std::error::Error as _;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use object::elf;
use object::read::elf::{ElfFile64, FileHeader as _, SectionHeader as _};
use object::{Endianness, Object, ObjectSection, ObjectSymbol, RelocationTarget};

use crate::llvm::{clang, llvm_lib, llvm_tool};
use crate::run::{run, run_ok};
use crate::Error;

/// One section as compared: everything but its place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SectionView {
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    size: u64,
    /// Contents with relocated fields zeroed (empty for NOBITS).
    data: Vec<u8>,
    /// `(offset, type, target, addend)`, sorted.
    relocs: Vec<(u64, u32, String, i64)>,
}

/// A symbol as compared: `(name, bind, visibility, type, section, value, size)`; section
/// symbols are named after their section.
type SymbolView = (String, u8, u8, u8, String, u64, u64);

/// The parts of an object the comparison looks at.
#[derive(Debug)]
struct ObjectView {
    header: (u16, u16, u32, u8),
    sections: BTreeMap<String, Vec<SectionView>>,
    symbols: Vec<SymbolView>,
}

/// Sections whose presence or contents differ between compilers and say nothing about the
/// object's meaning.
const IGNORED_SECTIONS: &[&str] = &[
    ".comment",
    ".llvm_addrsig",
    ".shstrtab",
    ".strtab",
    ".symtab",
];

/// The bits of the field a relocation of `r_type` fills in (little-endian), as
/// `(offset from r_offset, byte mask)`: `R_X86_64_64`/`R_AARCH64_ABS64` 8 bytes, 32-bit ones 4,
/// AArch64 instruction relocations only their immediate bits.
fn relocated_field(machine: u16, r_type: u32) -> Vec<u8> {
    match (machine, r_type) {
        (62, 1) | (183, 257) => vec![0xff; 8],
        (62, _) | (183, 261) => vec![0xff; 4],
        // ADR_PREL_PG_HI21, ADR_GOT_PAGE: immlo (29-30), immhi (5-23).
        (183, 275) | (183, 311) => 0x60ff_ffe0u32.to_le_bytes().to_vec(),
        // CALL26, JUMP26.
        (183, 282) | (183, 283) => 0x03ff_ffffu32.to_le_bytes().to_vec(),
        // ADD_ABS_LO12_NC, LDST*_ABS_LO12_NC, LD64_GOT_LO12_NC: imm12 (10-21).
        (183, 277 | 278 | 284 | 285 | 286 | 299 | 312) => 0x003f_fc00u32.to_le_bytes().to_vec(),
        _ => vec![0xff; 4],
    }
}

/// [`Error::Object`] for a failure to read `what`.
fn bad(what: &'static str) -> impl Fn(object::read::Error) -> Error {
    move |source| Error::Object { what, source }
}

fn view(bytes: &[u8]) -> Result<ObjectView, Error> {
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(bad("ELF header"))?;
    let endian = Endianness::Little;
    let hdr = file.elf_header();
    let header = (
        hdr.e_type(endian).0,
        hdr.e_machine(endian).0,
        hdr.e_flags(endian).0,
        hdr.e_ident().os_abi.0,
    );
    let machine = header.1;
    let shdrs = hdr
        .section_headers(endian, bytes)
        .map_err(bad("section headers"))?;
    let mut sections: BTreeMap<String, Vec<SectionView>> = BTreeMap::new();
    for sec in file.sections() {
        let name = sec.name().map_err(bad("section name"))?.to_string();
        let sh = &shdrs[sec.index().0];
        let sh_type = sh.sh_type(endian).0;
        if IGNORED_SECTIONS.contains(&name.as_str())
            || sh_type == elf::SHT_RELA.0
            || sh_type == elf::SHT_REL.0
            || sh_type == elf::SHT_NULL.0
        {
            continue;
        }
        let mut data = if sh_type == elf::SHT_NOBITS.0 {
            Vec::new()
        } else {
            sec.data().map_err(bad("section contents"))?.to_vec()
        };
        let mut relocs = Vec::new();
        for (off, r) in sec.relocations() {
            let object::RelocationFlags::Elf { r_type } = r.flags() else {
                return Err(Error::NonElfRelocation {
                    section: name,
                    offset: off,
                });
            };
            let r_type = r_type.0;
            let target = match r.target() {
                RelocationTarget::Symbol(i) => {
                    let s = file
                        .symbol_by_index(i)
                        .map_err(bad("relocation's symbol"))?;
                    if s.kind() == object::SymbolKind::Section {
                        let sec = s
                            .section_index()
                            .and_then(|i| file.section_by_index(i).ok())
                            .and_then(|s| s.name().ok().map(str::to_string))
                            .unwrap_or_default();
                        format!("section {sec}")
                    } else {
                        s.name().map_err(bad("symbol name"))?.to_string()
                    }
                }
                t => format!("{t:?}"),
            };
            for (i, m) in relocated_field(machine, r_type).iter().enumerate() {
                if let Some(b) = data.get_mut(off as usize + i) {
                    *b &= !m;
                }
            }
            relocs.push((off, r_type, target, r.addend()));
        }
        relocs.sort();
        sections.entry(name).or_default().push(SectionView {
            sh_type,
            flags: sh.sh_flags(endian).0,
            align: sh.sh_addralign(endian),
            entsize: sh.sh_entsize(endian),
            size: sh.sh_size(endian),
            data,
            relocs,
        });
    }
    let mut symbols = Vec::new();
    let table = file.elf_symbol_table();
    for sym in file.symbols() {
        let raw = table.symbol(sym.index()).map_err(bad("symbol"))?;
        let section = match sym.section_index() {
            Some(i) => file
                .section_by_index(i)
                .and_then(|s| s.name().map(str::to_string))
                .map_err(bad("symbol's section"))?,
            None if sym.is_undefined() => "UND".to_string(),
            None => "ABS".to_string(),
        };
        let mut name = sym.name().map_err(bad("symbol name"))?.to_string();
        if sym.kind() == object::SymbolKind::Section {
            name = section.clone();
        }
        symbols.push((
            name,
            raw.st_bind().0,
            raw.st_visibility().0,
            raw.st_type().0,
            section,
            sym.address(),
            sym.size(),
        ));
    }
    symbols.sort();
    Ok(ObjectView {
        header,
        sections,
        symbols,
    })
}

fn hex_diff(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => {
            let show = |d: &[u8]| {
                d.iter()
                    .skip(i.saturating_sub(8))
                    .take(24)
                    .map(|x| format!("{x:02x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "first difference at {i:#x}: ours [{}] theirs [{}]",
                show(a),
                show(b)
            )
        }
        None => format!("lengths {} vs {}", a.len(), b.len()),
    }
}

/// The differences by meaning between two relocatable objects (empty when they agree): the same
/// sections by name (type, flags, alignment, entry size, size, contents with relocated fields
/// zeroed), the same relocations per section (offset, type, target symbol or section, addend)
/// and the same symbols (name, binding, visibility, type, section, value, size). File layout,
/// section and symbol order, and `.comment` / `.llvm_addrsig` are not compared.
pub fn object_differences(ours: &[u8], theirs: &[u8]) -> Vec<String> {
    let (a, b) = match (view(ours), view(theirs)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let why = |r: Result<ObjectView, Error>| match r {
                Ok(_) => "read".to_string(),
                Err(e) => match e.source() {
                    Some(cause) => format!("{e}: {cause}"),
                    None => e.to_string(),
                },
            };
            return vec![format!(
                "cannot compare: ours {}, theirs {}",
                why(a),
                why(b)
            )];
        }
    };
    let mut out = Vec::new();
    if a.header != b.header {
        out.push(format!(
            "ELF header (type, machine, flags, OS ABI): ours {:?} theirs {:?}",
            a.header, b.header
        ));
    }
    let names: std::collections::BTreeSet<&String> =
        a.sections.keys().chain(b.sections.keys()).collect();
    for name in names {
        match (a.sections.get(name), b.sections.get(name)) {
            (Some(x), None) => out.push(format!("section {name}: only ours ({} of them)", x.len())),
            (None, Some(y)) => {
                out.push(format!("section {name}: only theirs ({} of them)", y.len()))
            }
            (Some(x), Some(y)) => {
                if x.len() != y.len() {
                    out.push(format!(
                        "section {name}: {} vs {} sections",
                        x.len(),
                        y.len()
                    ));
                }
                for (s, t) in x.iter().zip(y) {
                    let fields = [
                        ("type", u64::from(s.sh_type), u64::from(t.sh_type)),
                        ("flags", s.flags, t.flags),
                        ("alignment", s.align, t.align),
                        ("entry size", s.entsize, t.entsize),
                        ("size", s.size, t.size),
                    ];
                    for (what, p, q) in fields {
                        if p != q {
                            out.push(format!("section {name}: {what} ours {p:#x} theirs {q:#x}"));
                        }
                    }
                    if s.data != t.data {
                        out.push(format!(
                            "section {name}: contents differ, {}",
                            hex_diff(&s.data, &t.data)
                        ));
                    }
                    if s.relocs != t.relocs {
                        let mut m = format!("section {name}: relocations differ\n  ours:");
                        for r in &s.relocs {
                            let _ = write!(m, "\n    {r:?}");
                        }
                        m.push_str("\n  theirs:");
                        for r in &t.relocs {
                            let _ = write!(m, "\n    {r:?}");
                        }
                        out.push(m);
                    }
                }
            }
            (None, None) => {}
        }
    }
    if a.symbols != b.symbols {
        let only = |x: &[SymbolView], y: &[SymbolView]| {
            let mut y = y.to_vec();
            x.iter()
                .filter(|s| match y.iter().position(|t| t == *s) {
                    Some(i) => {
                        y.remove(i);
                        false
                    }
                    None => true,
                })
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
        };
        out.push(format!(
            "symbols differ\n  only ours: {:#?}\n  only theirs: {:#?}",
            only(&a.symbols, &b.symbols),
            only(&b.symbols, &a.symbols)
        ));
    }
    out
}

/// Panics unless `ours` and `theirs` are the same bytes. The message names the first
/// differing byte and, to explain it, the differences by meaning ([`object_differences`]; when
/// there are none, only the layout differs: section or symbol order, padding, `.comment`).
#[track_caller]
pub fn assert_same_bytes(ours: &[u8], theirs: &[u8], what: &str) {
    if ours == theirs {
        return;
    }
    let mut d = object_differences(ours, theirs);
    if d.is_empty() {
        d.push("none by meaning: the layout differs".to_string());
    }
    panic!(
        "{what}: objects are not the same bytes ({} vs {} bytes, {}); differences:\n{}",
        ours.len(),
        theirs.len(),
        hex_diff(ours, theirs),
        d.join("\n")
    );
}

/// What LLVM 19's linker wrapper made.
#[derive(Debug, Clone)]
pub struct LlvmWrapped {
    /// `a.out.<kind>.image.wrapper.o` (kept by `--save-temps`).
    pub object: Vec<u8>,
    /// The module printed by `--print-wrapped-module`.
    pub ir: String,
    /// The directory it ran in.
    pub dir: PathBuf,
}

/// Runs `clang-linker-wrapper --host-triple=<host> --save-temps --print-wrapped-module
/// --linker-path=/bin/true -o a.out <args>` in `dir` and returns the wrapper object of offload
/// kind `kind` (`openmp`, `cuda`, `hip`) and the printed module. `args` carry the inputs, e.g.
/// `--override-image=hip=<file>` or host objects, and `--cuda-path=`.
#[track_caller]
pub fn llvm_wrap(dir: &Path, host: &str, kind: &str, args: &[String]) -> LlvmWrapped {
    std::fs::create_dir_all(dir).expect("create dir");
    let mut all = vec![
        format!("--host-triple={host}"),
        "--save-temps".to_string(),
        "--print-wrapped-module".to_string(),
        "--linker-path=/bin/true".to_string(),
        "-o".to_string(),
        "a.out".to_string(),
    ];
    all.extend(args.iter().cloned());
    let out = run(llvm_tool("clang-linker-wrapper"), &all, dir);
    let stderr = out.stderr_str();
    let object_path = dir.join(format!("a.out.{kind}.image.wrapper.o"));
    let object = std::fs::read(&object_path).unwrap_or_else(|e| {
        panic!(
            "clang-linker-wrapper made no {} ({e}); exit {:?}\n{stderr}",
            object_path.display(),
            out.code
        )
    });
    let start = stderr
        .find("; ModuleID")
        .unwrap_or_else(|| panic!("no module printed:\n{stderr}"));
    // The module ends at the first line that is not IR: a tool's message (`/usr/…: error: …`)
    // or a command printed by `-v` (` "…"`).
    let mut module = String::new();
    for line in stderr[start..].split_inclusive('\n') {
        if line.starts_with('/') || line.starts_with(" \"") || line.starts_with("clang") {
            break;
        }
        module.push_str(line);
    }
    LlvmWrapped {
        object,
        ir: module,
        dir: dir.to_path_buf(),
    }
}

/// Compiles LLVM IR text `ir` for `target` to an object the way the linker wrapper compiles
/// its module: `clang-19 -c -O2`, the IR optimisation pipeline off, an empty target CPU (as
/// `clang-linker-wrapper` creates its target machine), no address-significance table.
#[track_caller]
pub fn compile_ir(dir: &Path, name: &str, ir: &str, target: &str) -> Vec<u8> {
    let ll = dir.join(format!("{name}.ll"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&ll, ir).expect("write IR");
    run_ok(
        crate::clang(),
        [
            format!("--target={target}"),
            "-c".into(),
            "-O2".into(),
            "-Xclang".into(),
            "-disable-llvm-passes".into(),
            "-Xclang".into(),
            "-target-cpu".into(),
            "-Xclang".into(),
            String::new(),
            "-fno-addrsig".into(),
            "-Wno-override-module".into(),
            ll.display().to_string(),
            "-o".into(),
            o.display().to_string(),
        ],
        dir,
    );
    std::fs::read(&o).expect("read object")
}

/// Writes a small ELF file `name` in `dir` for machine `machine` (a `yaml2obj` name such as
/// `EM_AMDGPU`), with `e_flags = flags`, OS ABI `os_abi`, and one allocatable section of
/// `payload` bytes (a pattern, so images differ). Returns its path.
#[track_caller]
pub fn device_elf(
    dir: &Path,
    name: &str,
    machine: &str,
    os_abi: u8,
    flags: u32,
    payload: usize,
) -> PathBuf {
    let content: String = (0..payload)
        .map(|i| format!("{:02x}", (i * 7 + payload) & 0xff))
        .collect();
    let yaml = format!(
        "--- !ELF\nFileHeader:\n  Class: ELFCLASS64\n  Data: ELFDATA2LSB\n  OSABI: {os_abi}\n  ABIVersion: 2\n  Type: ET_DYN\n  Machine: {machine}\nSections:\n  - Name: .text\n    Type: SHT_PROGBITS\n    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]\n    Content: \"{content}\"\n"
    );
    let y = dir.join(format!("{name}.yaml"));
    let p = dir.join(name);
    std::fs::write(&y, yaml).expect("write yaml");
    run_ok(
        llvm_tool("yaml2obj"),
        [
            y.display().to_string(),
            "-o".into(),
            p.display().to_string(),
        ],
        dir,
    );
    let mut bytes = std::fs::read(&p).expect("read ELF");
    bytes[48..52].copy_from_slice(&flags.to_le_bytes());
    std::fs::write(&p, bytes).expect("write ELF");
    p
}

/// An AMD GPU code object for `gfx` (`e_flags` machine number, e.g. `0x3f` for gfx90a).
#[track_caller]
pub fn amdgpu_elf(dir: &Path, name: &str, mach: u32, payload: usize) -> PathBuf {
    device_elf(dir, name, "EM_AMDGPU", 64, mach, payload)
}

/// An NVIDIA cubin-like ELF for `sm` (e.g. 70).
#[track_caller]
pub fn cuda_elf(dir: &Path, name: &str, sm: u32, payload: usize) -> PathBuf {
    device_elf(dir, name, "EM_CUDA", 0x33, sm, payload)
}

/// Panics at the first line where `ours` and `theirs` differ (long lines shortened).
#[track_caller]
pub fn assert_same_text(ours: &str, theirs: &str, what: &str) {
    if ours == theirs {
        return;
    }
    // Keep both for a closer look.
    let keep = std::env::temp_dir().join(format!(
        "offkit-diff-{}",
        what.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ));
    let _ = std::fs::create_dir_all(&keep);
    let _ = std::fs::write(keep.join("ours"), ours);
    let _ = std::fs::write(keep.join("theirs"), theirs);
    let what = format!("{what} (both kept in {})", keep.display());
    let cut = |s: &str| {
        if s.len() > 300 {
            let end = (0..=300)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}…({} bytes)", &s[..end], s.len())
        } else {
            s.to_string()
        }
    };
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.split('\n').collect(), theirs.split('\n').collect());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied(), b.get(i).copied());
        if x != y {
            panic!(
                "{what}: texts differ at line {}:\n  ours:   {:?}\n  theirs: {:?}",
                i + 1,
                x.map(cut),
                y.map(cut)
            );
        }
    }
    panic!("{what}: texts differ");
}

/// Target regions, `declare target` globals (updated both ways), and a C++ global whose device
/// copy is built by its constructor on the device.
pub const PROGRAM: &str = r#"
#include <omp.h>
#include <stdio.h>
#pragma omp declare target
int counter = 5;
int table[4] = {1, 2, 3, 4};
struct Init {
  int v;
  Init() : v(42) {}
};
Init g;
#pragma omp end declare target

int main() {
  int initial = -1, gv = 0, sum = 0, cnt = 0;
  g.v = 1;  // the host copy; the device copy keeps what its constructor set
  counter = 7;
#pragma omp target update to(counter)
#pragma omp target map(from : initial, gv, sum, cnt)
  {
    initial = omp_is_initial_device();
    gv = g.v;
    sum = table[0] + table[1] + table[2] + table[3];
    cnt = counter;
    counter += 1;
  }
#pragma omp target update from(counter)
  printf("initial=%d g=%d sum=%d counter=%d after=%d\n", initial, gv, sum, cnt, counter);
  return initial;
}
"#;

/// What the program prints when its target region ran on the offload device.
pub const EXPECTED: &str = "initial=0 g=42 sum=10 counter=7 after=8\n";

/// Compiles [`PROGRAM`] to `host.o` and links its device object to `device.so` the way
/// `clang-linker-wrapper` 19 does for a CPU target (`-Wl,-Bsymbolic -shared` plus the host
/// libraries). Returns `(host.o, device.so)`.
#[track_caller]
pub fn build_offload_program(dir: &Path) -> (PathBuf, PathBuf) {
    let src = dir.join("p.cpp");
    std::fs::write(&src, PROGRAM).unwrap();
    let host = dir.join("host.o");
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            "-fopenmp-targets=x86_64-pc-linux-gnu",
            "-c",
            &src.display().to_string(),
            "-o",
            &host.display().to_string(),
        ],
        dir,
    );
    // The device object clang embedded in `.llvm.offloading`.
    let dev_o = dir.join("device.o");
    run_ok(
        llvm_tool("clang-offload-packager"),
        [
            host.display().to_string(),
            format!(
                "--image=file={},triple=x86_64-pc-linux-gnu",
                dev_o.display()
            ),
        ],
        dir,
    );
    let dev_so = dir.join("device.so");
    run_ok(
        clang(),
        [
            "--no-default-config",
            "-o",
            &dev_so.display().to_string(),
            "--target=x86_64-pc-linux-gnu",
            "-O2",
            "-Wl,--no-undefined",
            &dev_o.display().to_string(),
            "-Wl,-Bsymbolic",
            "-shared",
            "-L",
            &llvm_lib().display().to_string(),
            "-lomp",
            "-lomptarget",
            // clang++ links the host with libstdc++; the linker wrapper passes the host
            // libraries on to a CPU device link.
            "-lstdc++",
        ],
        dir,
    );
    (host, dev_so)
}

/// Links `host.o` with `wrapper` (plain `-fopenmp`: no linker wrapper, no second registration)
/// into `name` with `linker` (`bfd` or `lld`) and runs it; returns its stdout.
#[track_caller]
pub fn link_and_run(dir: &Path, host: &Path, wrapper: &Path, name: &str, linker: &str) -> String {
    let exe = dir.join(name);
    run_ok(
        llvm_tool("clang++"),
        [
            "-fopenmp",
            &format!("-fuse-ld={linker}"),
            &host.display().to_string(),
            &wrapper.display().to_string(),
            "-L",
            &llvm_lib().display().to_string(),
            "-lomptarget",
            "-o",
            &exe.display().to_string(),
        ],
        dir,
    );
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", llvm_lib())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} failed ({:?}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object as WriteObject, StandardSection};
    use object::{Architecture, BinaryFormat, Endianness as E};

    fn object(data: &[u8]) -> Vec<u8> {
        let mut o = WriteObject::new(BinaryFormat::Elf, Architecture::X86_64, E::Little);
        let s = o.section_id(StandardSection::Data);
        o.append_section_data(s, data, 8);
        o.write().unwrap()
    }

    /// The same bytes pass; one changed byte fails, naming where and what differs.
    #[test]
    fn same_bytes_or_the_differences() {
        let a = object(b"0123456789abcdef");
        assert_same_bytes(&a, &a.clone(), "same");
        let b = object(b"0123456789abcdeX");
        let msg = std::panic::catch_unwind(|| assert_same_bytes(&a, &b, "changed"))
            .expect_err("different bytes must fail")
            .downcast::<String>()
            .unwrap();
        assert!(
            msg.starts_with("changed: objects are not the same bytes"),
            "{msg}"
        );
        assert!(msg.contains("first difference at 0x4f"), "{msg}");
        assert!(msg.contains("section .data: contents differ"), "{msg}");
        assert!(object_differences(&a, b"not ELF")[0].starts_with("cannot compare"));
    }
}
