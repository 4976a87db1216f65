//! `llvm-objdump --offloading` as LLVM 22 (offkit's face, linked by `offkit shims --llvm 22
//! --with-objdump`, against Debian 13's `llvm-objdump` 22.1.8 in the root): the LLVM 19 cases
//! (`tests/all/objdump.rs`) on clang-22's inputs and on clang-19's (whose HIP kind, 3, LLVM 22
//! names `none`), where 22 also writes out the HIP fat-binary bundles of every section
//! (`<file>.<n>.<id>`, compared byte for byte, compressed bundles too); then what offkit does
//! where LLVM 22 reads past its buffer, and the refusals.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_testutil::llvm22::{self, Run, Side};
use offkit_testutil::llvm22_bundler::shared_dir;
use offkit_testutil::llvm22_objdump::{objdump_shims, ObjdumpTwin22};
use offkit_testutil::llvm22_packager::Pair;

use crate::objdump::{build_inputs_in, built19, listing_cases_on, INPUTS};

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_offkit"))
}

fn twin() -> ObjdumpTwin22 {
    ObjdumpTwin22::new(exe())
}

/// clang-22's inputs, made once per test binary.
fn built22() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = shared_dir(env!("CARGO_TARGET_TMPDIR"), "objdump22");
        let inner = llvm22::inner_path(&d);
        build_inputs_in(
            &d,
            &|args: &[&str]| {
                llvm22::clang(args, &inner);
            },
            &|name: &str, args: &[&str]| {
                Run::new(Side::Llvm, name, args, &inner).ok();
            },
        );
        d
    })
}

/// [`INPUTS`] but the compressed object, whose bundle entries LLVM 22 copies from past the end
/// of the object ([`compressed_bundle_entries_past_the_object`]).
fn inputs() -> Vec<&'static str> {
    INPUTS
        .iter()
        .copied()
        .filter(|i| *i != "hip-oldz.o")
        .collect()
}

#[test]
fn listings_and_bundles_of_clang_22_inputs() {
    listing_cases_on(&twin(), built22(), &inputs());
}

#[test]
fn listings_and_bundles_of_clang_19_inputs() {
    listing_cases_on(&twin(), built19(), &inputs());
}

/// LLVM 22 reads a compressed bundle's entries from the object at the offsets of the
/// decompressed bundle: in a program large enough (`hipz.exe`) that is bytes of the program,
/// which offkit writes too (the cases above compare them); in a small object (`hip-oldz.o`)
/// the offsets run past the end, and LLVM writes what follows its buffer in memory. offkit
/// names the entry, exits 1 and writes no file.
#[test]
fn compressed_bundle_entries_past_the_object() {
    for built in [built22(), built19()] {
        let t = twin();
        t.put_file("hip-oldz.o", &built.join("hip-oldz.o"));
        let args = ["--offloading".to_string(), "hip-oldz.o".to_string()];
        let (theirs, ours) = t.run(&args, None);
        assert_eq!(theirs.code, Some(0), "{}", theirs.stderr_str());
        assert!(theirs
            .stdout_str()
            .contains("Extracting offload bundle: hip-oldz.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a"));
        assert_eq!(ours.code, Some(1));
        let err = ours.stderr_str();
        assert!(
            err.starts_with("llvm-objdump: error: 'hip-oldz.o': while extracting offload Bundle Entries: the entry `hipv4-amdgcn-amd-amdhsa--gfx")
                && err.contains("does not lie in the file"),
            "{err}"
        );
        assert_eq!(
            ours.stdout_str(),
            "\nhip-oldz.o:\tfile format elf64-x86-64\n"
        );
        let left: Vec<_> = std::fs::read_dir(t.ours_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["hip-oldz.o"]);
    }
    // Where the offsets lie in the file, what is written is the file's bytes there.
    let t = twin();
    t.put_file("hipz.exe", &built22().join("hipz.exe"));
    let args = ["--offloading".to_string(), "hipz.exe".to_string()];
    t.assert_same(&args, None, "hipz");
    let written = std::fs::read(
        t.ours_dir()
            .join("hipz.exe.0.hipv4-amdgcn-amd-amdhsa--gfx90a"),
    )
    .unwrap();
    let exe = std::fs::read(t.ours_dir().join("hipz.exe")).unwrap();
    assert!(exe.windows(written.len()).any(|w| w == written));
}

/// Options the face does not have are refused with LLVM 22's tool named; the default shims
/// leave `llvm-objdump` to LLVM.
#[test]
fn other_options_are_refused_and_default_shims_leave_it_out() {
    let t = twin();
    t.put_file("omp.o", &built22().join("omp.o"));
    for args in [&["-d", "omp.o"][..], &["--version"], &["omp.o"]] {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (theirs, ours) = t.run(&args, None);
        // LLVM does it (`omp.o` alone: no action, its help and status 2).
        assert!(matches!(theirs.code, Some(0 | 2)), "{args:?}");
        assert_eq!(ours.code, Some(1), "{args:?}");
        let err = ours.stderr_str();
        assert!(
            err.starts_with("llvm-objdump: error: offkit's llvm-objdump does --offloading only")
                && err.contains("LLVM 22's llvm-objdump (/usr/lib/llvm-22/bin/llvm-objdump)"),
            "{err}"
        );
    }
    // (The links point at offkit's path inside the root.)
    let linked = |p: PathBuf| std::fs::symlink_metadata(p).is_ok();
    let with = llvm22::host_path(objdump_shims(exe()));
    assert!(linked(with.join("llvm-objdump")));
    assert_eq!(
        std::fs::read_to_string(with.join(".offkit-llvm")).unwrap(),
        "22\n"
    );
    let without = llvm22::host_path(llvm22::offkit_shims(exe()));
    assert!(linked(without.join("llvm-offload-binary")));
    assert!(!linked(without.join("llvm-objdump")));
}
