//! `llvm-offload-binary`, and `clang-offload-packager` (its old name), as LLVM 22: the LLVM 19
//! conformance cases (`tests/all/packager.rs`: random image sets, special files, errors,
//! command-line parsing and typos, extraction with random filters and from clang's objects,
//! executables and archives, corrupted inputs, output modes) run by LLVM 22's tool and offkit's
//! LLVM 22 face in the Debian 13 root, under both names, on inputs of clang-22; then cases of
//! what 22 changed.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use offkit_testutil::llvm22::{self, Run, Side};
use offkit_testutil::llvm22_bundler::shared_dir;
use offkit_testutil::llvm22_packager::{Pair, Twin22};

use crate::packager::{
    build_fixtures_in, command_line_parsing_help_and_typos_on, extraction_errors_on,
    extraction_from_clang_objects_on, extraction_from_packager_outputs_random_filters_on,
    packaged_outputs_have_llvms_mode_and_atomicity_on, packaging_random_image_sets_on,
    packaging_to_stdout_special_files_and_errors_on,
};

/// LLVM 22's two names of the tool.
const NAMES: [&str; 2] = ["llvm-offload-binary", "clang-offload-packager"];

fn twins() -> impl Iterator<Item = Twin22> {
    NAMES
        .into_iter()
        .map(|n| Twin22::new(n, Path::new(env!("CARGO_BIN_EXE_offkit"))))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// clang-22's objects, executables and archives (made once per test binary).
fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = shared_dir(env!("CARGO_TARGET_TMPDIR"), "packager22");
        let inner = llvm22::inner_path(&d);
        build_fixtures_in(
            &d,
            &|args: &[&str]| {
                llvm22::clang(args, &inner);
            },
            &|args: &[&str]| {
                Run::new(Side::Llvm, "llvm-ar", args, &inner).ok();
            },
        );
        d
    })
}

#[test]
fn packaging_random_image_sets() {
    for t in twins() {
        packaging_random_image_sets_on(&t);
    }
}

#[test]
fn packaging_to_stdout_special_files_and_errors() {
    for t in twins() {
        packaging_to_stdout_special_files_and_errors_on(&t);
    }
}

#[test]
fn command_line_parsing_help_and_typos() {
    for t in twins() {
        command_line_parsing_help_and_typos_on(&t);
    }
}

#[test]
fn extraction_from_packager_outputs_random_filters() {
    for t in twins() {
        extraction_from_packager_outputs_random_filters_on(&t);
    }
}

#[test]
fn extraction_from_clang_objects_executables_and_archives() {
    let built = built();
    for t in twins() {
        // clang-22's `-flto` objects and nested archives hold fewer images than 19's.
        extraction_from_clang_objects_on(&t, built, (1, 2));
    }
}

#[test]
fn extraction_errors() {
    for t in twins() {
        extraction_errors_on(&t);
    }
}

#[test]
fn packaged_outputs_have_llvms_mode_and_atomicity() {
    for t in twins() {
        packaged_outputs_have_llvms_mode_and_atomicity_on(&t);
    }
}

/// What LLVM 22 changed: no required `triple=`, `kind=sycl`, bit-flag kinds (HIP is 4), the
/// help list for a command line with nothing to do, the old name's deprecation warning (not
/// for `-22`-suffixed names), extraction names without `file=`, and clang-22's HIP objects of
/// the new offload driver.
#[test]
fn llvm22_changes() {
    let built = built();
    let inner = llvm22::inner_path(built);
    std::fs::write(
        built.join("k.hip"),
        format!(
            "{}__attribute__((device)) int dev_one = 1;\n\
             __attribute__((global)) void kern(int *p) {{ *p = dev_one; }}\n",
            offkit_testutil::bundler::HIP_PRELUDE
        ),
    )
    .unwrap();
    llvm22::clang(
        &[
            "-x",
            "hip",
            "--offload-new-driver",
            "--offload-arch=gfx90a",
            "--offload-arch=gfx950",
            "-nogpulib",
            "-nogpuinc",
            "-fgpu-rdc",
            "-c",
            "k.hip",
            "-o",
            "knew.o",
        ],
        &inner,
    );
    for t in twins() {
        t.clear();
        t.put("a.o", b"ABCDEFGHIJ");
        t.put("b.bc", b"BC\xC0\xDE1234");
        t.put_file("knew.o", &built.join("knew.o"));
        t.put_file("two.o", &built.join("two.o"));
        for (i, c) in [
            &[][..],
            &["-h"],
            &["-hW"],
            &["--help"],
            &["-o", "out", "--image=file=a.o"],
            &["-o", "out", "--image=triple=t"],
            &[
                "-o",
                "out",
                "--image=file=a.o,kind=sycl,triple=spirv64-intel",
            ],
            &["-o", "out", "--image=file=a.o,kind=hip,arch=gfx950:xnack+"],
            &[
                "-o",
                "out",
                "--image=file=a.o,file=b.bc,kind=cuda,zz=1,aa=2,mm=",
            ],
            &["knew.o", "--image=kind=hip"],
            &["knew.o", "--image=kind=hip,arch=gfx950"],
            &["knew.o", "--image=kind=hip,file=one.bc"],
            &["knew.o", "--image=kind=hip,file=k.a", "--archive"],
            &["knew.o", "--image=kind=sycl"],
            &["two.o", "--image=triple=amdgcn-amd-amdhsa"],
            &["two.o", "--image=kind=openmp", "--image=arch=gfx90a"],
            &["-o", "x", "knew.o"],
        ]
        .iter()
        .enumerate()
        {
            t.assert_same(&strings(c), None, &format!("{} case {i}", t.name()));
        }
        // LLVM 22 numbers HIP 4, and selects it by that number.
        t.clear();
        t.put("a.o", b"x");
        let kinds = t.llvm_ok(&strings(&["-o", "p.bin", "--image=file=a.o,kind=hip"]));
        assert!(kinds.stderr.is_empty() || t.name() == "clang-offload-packager");
        let bytes = std::fs::read(t.llvm_dir().join("p.bin")).unwrap();
        assert_eq!(bytes[0x22], 4, "LLVM 22 writes HIP as 4");
        t.put("p.bin", &bytes);
        t.assert_same(&strings(&["p.bin", "--image=kind=hip"]), None, "hip is 4");
        // One of LLVM 19's (HIP is 3 there) is no `kind=hip` for LLVM 22.
        use offkit_format::binary::{write_v1, ImageSpec};
        use offkit_format::kind::{ImageKind, OffloadKind};
        let spec = ImageSpec {
            image_kind: ImageKind::Object,
            offload_kind: OffloadKind::Hip,
            flags: 0,
            strings: vec![(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")],
        };
        let old = write_v1(&spec, b"image", offkit_llvm::LlvmVersion::V19).unwrap();
        assert_eq!(old[0x22], 3);
        t.put("old.bin", &old);
        for filter in [
            "--image=kind=hip",
            "--image=arch=gfx90a",
            "--image=kind=openmp",
        ] {
            t.assert_same(&strings(&["old.bin", filter]), None, "19's hip");
        }
    }
}
