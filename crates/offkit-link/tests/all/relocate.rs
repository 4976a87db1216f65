//! The in-process objcopy step (`relocate::rewrite`, the fallback of `-r` links when no
//! `llvm-objcopy` is found) on real clang-19 objects, which carry section types `object`'s ELF
//! builder does not parse (`SHT_LLVM_ADDRSIG`, `SHT_GROUP` for COMDATs,
//! `SHT_LLVM_OFFLOADING`): the result has the same sections (save `.llvm.offloading`, emptied
//! where LLVM removes it, and a `.shstrtab` added last) and symbols, with the same names, as LLVM 19's `llvm-objcopy` makes.

use std::path::Path;

use offkit_link::relocate;
use offkit_llvm::LlvmVersion;
use offkit_testutil::offload::{compile, Kind};
use offkit_testutil::{llvm_tool, run_ok};

/// `(section name, type)` lines and `(symbol name, binding, section)` lines of `file`.
fn listing(dir: &Path, file: &str) -> (Vec<String>, Vec<String>) {
    let field = |l: &str, i: usize| l.split_whitespace().nth(i).unwrap_or("").to_string();
    let s = run_ok(llvm_tool("llvm-readelf"), ["-S", "-W", file], dir).stdout_str();
    let sections = s
        .lines()
        .filter_map(|l| l.split_once("] ").map(|(_, r)| r))
        .map(|r| format!("{} {}", field(r, 0), field(r, 1)))
        .filter(|l| !l.starts_with(".llvm.offloading") && !l.starts_with("Name "))
        .collect();
    let s = run_ok(llvm_tool("llvm-readelf"), ["-s", "-W", file], dir).stdout_str();
    let mut symbols: Vec<String> = s
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| format!("{} {} {}", field(l, 7), field(l, 4), field(l, 6)))
        .collect();
    symbols.sort();
    (sections, symbols)
}

#[test]
fn clang_objects_renamed_as_llvm_objcopy_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (name, kind) in [("omp", Kind::OpenMp), ("hip", Kind::Hip)] {
        let obj = compile(dir, name, kind, "x86_64-pc-linux-gnu", false, &[]);
        let data = std::fs::read(&obj).unwrap();
        let suffix = relocate::suffix(&data);
        let ours = relocate::rewrite(&obj, &data, &suffix, LlvmVersion::V19).unwrap();
        let ours_name = format!("{name}-ours.o");
        std::fs::write(dir.join(&ours_name), &ours).unwrap();
        let llvm_name = format!("{name}-llvm.o");
        std::fs::copy(&obj, dir.join(&llvm_name)).unwrap();
        run_ok(
            llvm_tool("llvm-objcopy"),
            relocate::objcopy_args(&llvm_name, &suffix, LlvmVersion::V19),
            dir,
        );
        let (mut ours_s, ours_y) = listing(dir, &ours_name);
        // Ours has the section names in a `.shstrtab` of their own, added last.
        assert_eq!(ours_s.pop().as_deref(), Some(".shstrtab STRTAB"), "{name}");
        let (llvm_s, llvm_y) = listing(dir, &llvm_name);
        assert!(
            ours_s.iter().any(|s| s == ".llvm_addrsig LLVM_ADDRSIG"),
            "{name}: {ours_s:?}"
        );
        assert!(
            ours_s
                .iter()
                .any(|s| s.starts_with(&format!("{name}_offloading_entries{suffix} "))),
            "{name}: {ours_s:?}"
        );
        assert_eq!(ours_s, llvm_s, "{name}: sections");
        assert_eq!(ours_y, llvm_y, "{name}: symbols");
    }
}
