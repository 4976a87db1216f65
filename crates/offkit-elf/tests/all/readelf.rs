//! Objects clang 19 builds for 32- and 64-bit, little- and big-endian targets, edited (a
//! section appended, a section resized in place, a rebuild), read back by `llvm-readelf-19`:
//! what it prints of the edited file is what it printed of the original, but for the edit.

use std::path::Path;
use std::process::Command;

use object::elf;
use offkit_elf::{rebuild, Editor, Elf, Section};
use offkit_testutil::llvm::{clang, llvm_tool};

const TARGETS: [&str; 6] = [
    "i386-linux-gnu",
    "x86_64-linux-gnu",
    "armv7-linux-gnueabihf",
    "powerpc-linux-gnu",
    "powerpc64-linux-gnu",
    "s390x-linux-gnu",
];

const SOURCE: &str = "int g = 3;\nstatic int s[4];\nint f(int x) { s[x & 3] = x; return x + g; }\n";

/// `clang-19 -c --target=TARGET -ffreestanding` of [`SOURCE`].
fn object(dir: &Path, target: &str) -> Vec<u8> {
    let src = dir.join("a.c");
    std::fs::write(&src, SOURCE).unwrap();
    let out = dir.join(format!("{target}.o"));
    let st = Command::new(clang())
        .args(["-c", "-ffreestanding", &format!("--target={target}")])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "clang failed for {target}");
    std::fs::read(out).unwrap()
}

/// `llvm-readelf-19 ARGS` of `bytes`; it must warn of nothing.
fn readelf(dir: &Path, bytes: &[u8], args: &[&str]) -> String {
    let f = dir.join("edited.o");
    std::fs::write(&f, bytes).unwrap();
    let out = Command::new(llvm_tool("llvm-readelf"))
        .args(args)
        .arg(&f)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of `-S --wide` as columns: name, type, address, offset, size, entsize, flags,
/// link, info, alignment (the null section's name empty, absent flags empty).
fn rows(out: &str) -> Vec<Vec<String>> {
    out.lines()
        .filter_map(|l| l.trim_start().strip_prefix('[')?.split_once(']'))
        .filter(|(nr, _)| nr.trim() != "Nr")
        .map(|(_, rest)| {
            let mut t: Vec<String> = rest.split_whitespace().map(String::from).collect();
            if t.first().map(String::as_str) == Some("NULL") {
                t.insert(0, String::new());
            }
            if t.len() == 9 {
                t.insert(6, String::new());
            }
            assert_eq!(t.len(), 10, "{rest}");
            t
        })
        .collect()
}

/// The lines of `-h` but those naming the section header table's place and size.
fn file_header(out: &str) -> Vec<&str> {
    out.lines()
        .take_while(|l| !l.starts_with("There are"))
        .filter(|l| {
            !l.contains("Start of section headers") && !l.contains("Number of section headers")
        })
        .collect()
}

const OFF: usize = 3;
const SIZE: usize = 4;

#[test]
fn appended_section_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for target in TARGETS {
        let obj = object(d, target);
        let elf = Elf::parse(&obj).unwrap();
        let mut ed = Editor::new(&elf);
        let name = ed.add_name(b".offkit.test").unwrap();
        let at = ed.append(b"hello offkit", 4);
        ed.push(Section {
            sh_name: name,
            sh_type: elf::SHT_PROGBITS,
            sh_flags: elf::SHF_EXCLUDE,
            sh_offset: at,
            sh_size: 12,
            sh_addralign: 4,
            ..Section::default()
        });
        let out = ed.write_appended().unwrap();
        let args = ["-S", "-h", "--wide"];
        let (before, after) = (readelf(d, &obj, &args), readelf(d, &out, &args));
        assert_eq!(file_header(&before), file_header(&after), "{target}");
        let (old, new) = (rows(&before), rows(&after));
        assert_eq!(new.len(), old.len() + 1, "{target}");
        let strndx = elf.header().shstrndx;
        for (i, (o, n)) in old.iter().zip(&new).enumerate() {
            let mut o = o.clone();
            o[OFF] = n[OFF].clone();
            if i == strndx {
                o[SIZE] = n[SIZE].clone();
            }
            assert_eq!(&o, n, "{target}: section {i}");
        }
        let last = new.last().unwrap();
        assert_eq!(last[0], ".offkit.test", "{target}");
        assert_eq!(last[1], "PROGBITS", "{target}");
        assert_eq!(u64::from_str_radix(&last[OFF], 16).unwrap(), at, "{target}");
        assert_eq!(last[SIZE], "00000c", "{target}");
        assert_eq!((&*last[6], &*last[9]), ("E", "4"), "{target}");
        // The section-name table moved with the symbol names it holds in clang's objects:
        // symbols and relocations read the same.
        for args in [&["-s", "--wide"][..], &["-r", "--wide"]] {
            let (a, b) = (readelf(d, &obj, args), readelf(d, &out, args));
            assert_eq!(
                a.replace("edited.o", ""),
                b.replace("edited.o", ""),
                "{target}"
            );
        }
        let dump = readelf(d, &out, &["-p", ".offkit.test"]);
        assert!(dump.contains("hello offkit"), "{target}: {dump}");
        // The editor reads its own output as llvm-readelf does.
        let again = Elf::parse(&out).unwrap();
        assert_eq!(again.section_data(new.len() - 1).unwrap(), b"hello offkit");
        let mut kept = ed_sections(&again);
        kept.pop();
        assert_eq!(kept, ed_sections(&elf), "{target}");
    }
}

/// `elf`'s sections but the section-name table, whose place the append changes.
fn ed_sections(elf: &Elf<'_>) -> Vec<Section> {
    let mut v = elf.sections().to_vec();
    v.remove(elf.header().shstrndx);
    v
}

#[test]
fn resized_in_place_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for target in TARGETS {
        let obj = object(d, target);
        let elf = Elf::parse(&obj).unwrap();
        let text = (0..elf.sections().len())
            .find(|&i| elf.section_name(i).unwrap() == b".comment")
            .unwrap();
        let mut ed = Editor::new(&elf);
        let s = ed.section_mut(text).unwrap();
        s.sh_size -= 1;
        let size = s.sh_size;
        let out = ed.write_in_place().unwrap();
        assert_eq!(out.len(), obj.len());
        let args = ["-S", "-h", "--wide"];
        let (before, after) = (readelf(d, &obj, &args), readelf(d, &out, &args));
        let (mut old, new) = (rows(&before), rows(&after));
        old[text][SIZE] = format!("{size:06x}");
        assert_eq!(old, new, "{target}");
        assert_eq!(before.lines().next(), after.lines().next());
        assert_eq!(
            before.lines().take(22).collect::<Vec<_>>(),
            after.lines().take(22).collect::<Vec<_>>(),
            "{target}"
        );
    }
}

#[test]
fn rebuilt_keeps_carried_types() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for target in TARGETS {
        let obj = object(d, target);
        let elf = Elf::parse(&obj).unwrap();
        let out = rebuild(&elf, |b| -> offkit_elf::Result<()> {
            // clang's `.strtab` holds the section names too: the builder wants a table of
            // its own, added last so that no index moves.
            let s = b.sections.add();
            s.name = b".shstrtab"[..].into();
            s.sh_type = elf::SHT_STRTAB;
            s.sh_addralign = 1;
            s.data = object::build::elf::SectionData::SectionString;
            Ok(())
        })
        .unwrap();
        let args = ["-S", "--wide"];
        let (old, new) = (
            rows(&readelf(d, &obj, &args)),
            rows(&readelf(d, &out, &args)),
        );
        assert_eq!(new.len(), old.len() + 1, "{target}");
        // Name, type, address, size, entsize, flags, link, info, alignment: all but the place.
        let cols = |r: &Vec<String>| [&r[..OFF], &r[OFF + 1..]].concat();
        // The builder writes the symbol names alone in `.strtab`: it shrinks.
        let strndx = elf.header().shstrndx;
        for (i, (o, n)) in old.iter().zip(&new).enumerate() {
            let mut o = o.clone();
            if i == strndx {
                o[SIZE] = n[SIZE].clone();
            }
            assert_eq!(cols(&o), cols(n), "{target}");
        }
        assert!(new.iter().any(|r| r[1] == "LLVM_ADDRSIG"), "{target}");
        let syms = |b: &[u8]| readelf(d, b, &["-s", "--wide"]);
        assert_eq!(syms(&obj), syms(&out), "{target}");
    }
}
